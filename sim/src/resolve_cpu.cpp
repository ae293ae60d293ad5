// CPU: a property of the board, so each value a generation lacks comes from
// the nearest other generation of the same board; what no generation states
// is an assumption (A11-A13).
#include <algorithm>
#include <set>

#include "assumptions.h"
#include "resolve.h"

namespace energy::sim {
namespace {

CpuPolicySpec parse_policy(YamlReader& r, const YAML::Node& node) {
  CpuPolicySpec p;
  p.policy = r.integer<int>(node, "policy").value_or(-1);
  p.cpus = r.integers<int>(node, "cpus");
  std::sort(p.cpus.begin(), p.cpus.end());
  // cpufreq names a policy after its first CPU.
  if (p.cpus.empty() || p.cpus.front() != p.policy) {
    r.fail(ErrorCode::kParse,
           "policy " + std::to_string(p.policy) + " must list its CPUs, the first being " + std::to_string(p.policy));
  }
  return p;
}

std::vector<CpuPolicySpec> resolve_policies(ResolveContext& ctx) {
  const ResolveContext::Field f = ctx.nearest("cpu", {"policies"});
  std::vector<CpuPolicySpec> out;
  for (const YAML::Node& node : f ? ctx.reader().items(f.map, f.key) : std::vector<YAML::Node>{}) {
    out.push_back(parse_policy(ctx.reader(), node));
  }
  if (!out.empty()) return out;
  out = assumed::cpu_policies_for_soc(ctx.board().soc);
  if (!out.empty()) ctx.note("cpu policies assumed (A11)");
  return out;
}

std::vector<std::uint32_t> resolve_cpu_table(ResolveContext& ctx) {
  std::vector<std::uint32_t> table = ctx.nearest_integers<std::uint32_t>("cpu", {"available_frequencies_kHz"});
  if (!table.empty()) return table;
  if (auto max = ctx.nearest_integer<std::uint32_t>("cpu", {"cpuinfo_max_kHz", "cpuinfo_max_kHz_15W"})) {
    ctx.note("cpu frequency table: 76.8 MHz grid up to " + std::to_string(*max) + " kHz (A12)");
    return assumed::cpu_grid_up_to(*max);
  }
  table = assumed::cpu_table_for_soc(ctx.board().soc);
  if (!table.empty()) ctx.note("cpu frequency table assumed (A11)");
  return table;
}

std::vector<std::string> resolve_governors(ResolveContext& ctx) {
  std::vector<std::string> governors = ctx.nearest_texts("cpu", {"available_governors"});
  if (!governors.empty()) return governors;
  ctx.note("cpu governor list assumed (A13)");
  return assumed::cpu_governors(ctx.l4t());
}

std::string resolve_default_governor(ResolveContext& ctx) {
  if (auto governor = ctx.nearest_text("cpu", {"default_governor"})) return *governor;
  ctx.note(std::string("cpu default governor assumed ") + assumed::kCpuGovernor + " (A13)");
  return assumed::kCpuGovernor;
}

void validate(YamlReader& r, const CpuSpec& cpu) {
  if (cpu.policies.empty()) r.fail(ErrorCode::kNotFound, "no cpu policies in any generation");
  if (cpu.available_khz.empty()) r.fail(ErrorCode::kNotFound, "no cpu frequency table in any generation");
  const std::vector<int> cpus = cpu.all_cpus();
  if (std::set<int>(cpus.begin(), cpus.end()).size() != cpus.size())
    r.fail(ErrorCode::kParse, "a CPU is in two policies");
  const auto& g = cpu.governors;
  if (std::find(g.begin(), g.end(), cpu.default_governor) == g.end()) {
    r.fail(ErrorCode::kParse, "default governor '" + cpu.default_governor + "' is not an available governor");
  }
}

}  // namespace

CpuSpec resolve_cpu(ResolveContext& ctx) {
  auto scope = ctx.reader().scope("cpu");
  CpuSpec cpu;
  cpu.policies = resolve_policies(ctx);
  cpu.available_khz = resolve_cpu_table(ctx);
  std::sort(cpu.available_khz.begin(), cpu.available_khz.end());
  cpu.governors = resolve_governors(ctx);
  cpu.default_governor = resolve_default_governor(ctx);
  cpu.scaling_driver = assumed::cpufreq_driver(ctx.board().soc);
  const std::uint32_t table_min = cpu.available_khz.empty() ? 0 : cpu.available_khz.front();
  cpu.floor_khz = ctx.nearest_integer<std::uint32_t>("cpu", {"nvpmodel_min_kHz"}).value_or(table_min);
  validate(ctx.reader(), cpu);
  return cpu;
}

}  // namespace energy::sim
