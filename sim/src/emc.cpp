// The memory clock: governor, power share, files (emc.h).
#include "emc.h"

#include <algorithm>
#include <utility>

#include "build.h"
#include "governor.h"
#include "sysfs_write.h"

namespace energy::sim {
namespace {

constexpr const char* kT210Override = "/sys/kernel/debug/clk/override.emc";
constexpr const char* kT210Clock = "/sys/kernel/debug/clk/emc";
constexpr const char* kT210Bwmgr = "/sys/kernel/debug/tegra_bwmgr";
constexpr const char* kBpmpDir = "/sys/kernel/debug/bpmp/debug/clk/emc";
constexpr const char* kIsoCap = "/sys/kernel/nvpmodel_emc_cap/emc_iso_cap";
constexpr const char* kThorDevfreq = "/sys/devices/virtual/devfreq/bwmgr";  // A48: physical dir assumed

ContentFn emc_content(std::function<std::string(const EmcState&)> format) {
  return [format = std::move(format)](const BoardState& s) -> Result<std::string> { return format(s.emc); };
}

// The clock framework's rounding of a written rate: up to the next listed
// rate, the top for anything above it; 0 and non-numbers are EINVAL.
Result<std::uint64_t> rounded_rate(const EmcSpec& spec, std::string_view text) {
  Result<std::uint64_t> hz = parse_written_unsigned(text);
  if (!hz) return hz.take_error();
  if (*hz == 0) return rejected_write("EMC rate 0 Hz");
  return lowest_at_least(spec.rates_hz, spec.rates_hz.front(), spec.rates_hz.back(), static_cast<double>(*hz));
}

WriteFn store_pinned_rate(const EmcSpec& spec) {
  return [spec](BoardState& s, std::string_view text) -> Status {
    Result<std::uint64_t> hz = rounded_rate(spec, text);
    if (!hz) return hz.take_error();
    s.emc.pinned_hz = *hz;
    return ok_status();
  };
}

// A lock (bpmp mrq_rate_locked, T210 clk_state): 1 holds the written rate,
// or the running one when none was written; 0 hands the clock back.
WriteFn store_lock() {
  return [](BoardState& s, std::string_view text) -> Status {
    Result<std::string> flag = accept_flag(text);
    if (!flag) return flag.take_error();
    s.emc.locked = *flag == "1";
    if (s.emc.locked && s.emc.pinned_hz == 0) s.emc.pinned_hz = s.emc.rate_hz;
    return ok_status();
  };
}

ContentFn rate_file() {
  return emc_content([](const EmcState& e) { return line_of(e.rate_hz); });
}
ContentFn lock_file() {
  return emc_content([](const EmcState& e) { return line_of(e.locked ? 1 : 0); });
}

void add_t210(Tree& tree, const EmcSpec& spec) {
  const std::string o = kT210Override;
  tree.add_file(o + "/clk_rate", kModeRootRead, rate_file());
  tree.add_file(o + "/clk_state", kModeRootOnly, lock_file(), store_lock());
  tree.add_file(o + "/clk_update_rate", kModeRootOnly,
                emc_content([](const EmcState& e) { return line_of(e.pinned_hz); }), store_pinned_rate(spec));
  tree.add_file(std::string(kT210Clock) + "/clk_rate", kModeRootRead, rate_file());
  tree.add_text_file(std::string(kT210Bwmgr) + "/emc_min_rate", kModeRootRead, line_of(spec.rates_hz.front()));
  tree.add_text_file(std::string(kT210Bwmgr) + "/emc_max_rate", kModeRootRead, line_of(spec.rates_hz.back()));
}

std::string spaced_rates(const std::vector<std::uint64_t>& rates) {
  std::string out;
  for (std::uint64_t r : rates) out += (out.empty() ? "" : " ") + std::to_string(r);
  return out + "\n";
}

void add_bpmp(Tree& tree, const EmcSpec& spec) {
  const std::string d = kBpmpDir;
  tree.add_file(d + "/rate", kModeRootOnly, rate_file(), store_pinned_rate(spec));
  tree.add_text_file(d + "/min_rate", kModeRootRead, line_of(spec.rates_hz.front()));
  tree.add_text_file(d + "/max_rate", kModeRootRead, line_of(spec.rates_hz.back()));
  tree.add_file(d + "/mrq_rate_locked", kModeRootOnly, lock_file(), store_lock());
  tree.add_text_file(d + "/possible_rates", kModeRootRead, spaced_rates(spec.rates_hz));
  if (spec.nvpmodel_cap) tree.add_text_file(kIsoCap, kModeReadOnly, "0\n");
}

std::vector<std::string> thor_governors(const EmcSpec& spec) {
  return {spec.devfreq_governor, "performance", "powersave"};
}

// devfreq min_freq / max_freq: a listed rate, min <= max (as the GPU's, sim/README.md).
WriteFn store_limit(const EmcSpec& spec, bool is_max) {
  return [spec, is_max](BoardState& s, std::string_view text) -> Status {
    Result<std::uint64_t> hz = parse_written_unsigned(text);
    if (!hz) return hz.take_error();
    if (std::find(spec.rates_hz.begin(), spec.rates_hz.end(), *hz) == spec.rates_hz.end())
      return rejected_write("bwmgr: " + std::to_string(*hz) + " Hz is not in available_frequencies");
    if (is_max ? *hz < s.emc.min_hz : *hz > s.emc.max_hz)
      return rejected_write(is_max ? "bwmgr: max_freq below min_freq" : "bwmgr: min_freq above max_freq");
    (is_max ? s.emc.max_hz : s.emc.min_hz) = *hz;
    return ok_status();
  };
}

WriteFn store_governor(const EmcSpec& spec) {
  return [spec](BoardState& s, std::string_view text) -> Status {
    const std::string word = written_word(text);
    const std::vector<std::string> known = thor_governors(spec);
    if (std::find(known.begin(), known.end(), word) == known.end())
      return rejected_write("bwmgr governor: '" + word + "' is not in available_governors");
    s.emc.governor = word;
    return ok_status();
  };
}

void add_thor_devfreq(Tree& tree, const EmcSpec& spec) {
  const std::string d = kThorDevfreq;
  std::string governors;
  for (const std::string& g : thor_governors(spec)) governors += (governors.empty() ? "" : " ") + g;
  tree.add_text_file(d + "/available_frequencies", kModeReadOnly, spaced_rates(spec.rates_hz));
  tree.add_text_file(d + "/available_governors", kModeReadOnly, governors + "\n");
  tree.add_file(d + "/cur_freq", kModeReadOnly, rate_file());
  tree.add_file(d + "/min_freq", kModeReadWrite, emc_content([](const EmcState& e) { return line_of(e.min_hz); }),
                store_limit(spec, false));
  tree.add_file(d + "/max_freq", kModeReadWrite, emc_content([](const EmcState& e) { return line_of(e.max_hz); }),
                store_limit(spec, true));
  tree.add_file(d + "/governor", kModeReadWrite, emc_content([](const EmcState& e) { return line(e.governor); }),
                store_governor(spec));
  tree.add_sysfs_link("/sys/class/devfreq/bwmgr", d);
}

}  // namespace

double emc_demand(const ModelControls& controls) {
  std::uint32_t permille = std::max(controls.cpu_load_permille, controls.cpu_peak_permille);
  for (const auto& [name, gpu] : controls.board.gpus) permille = std::max(permille, gpu.load_permille);
  return std::min(1000u, permille) / kPermille;
}

std::uint64_t emc_governed_hz(const EmcSpec& spec, const EmcState& state, double demand) {
  if (spec.rates_hz.empty()) return 0;
  const std::uint64_t lo = std::max(state.min_hz, spec.rates_hz.front());
  const std::uint64_t hi = std::max(lo, std::min(state.max_hz, spec.rates_hz.back()));
  if (state.locked && state.pinned_hz != 0) return std::clamp(state.pinned_hz, lo, hi);
  if (state.governor == "performance") return hi;
  if (state.governor == "powersave") return lo;
  const double target = static_cast<double>(hi) * std::min(1.0, demand / kEmcFullDemand);
  return lowest_at_least(spec.rates_hz, lo, hi, target);
}

double emc_slowdown(const EmcSpec& spec, std::uint64_t rate_hz) {
  if (spec.rates_hz.empty() || rate_hz == 0) return 1.0;
  return static_cast<double>(spec.rates_hz.back()) / static_cast<double>(rate_hz);
}

void add_emc(Tree& tree, const EmcSpec& spec) {
  if (spec.rates_hz.empty()) return;
  switch (spec.layout) {
    case EmcLayout::kNone: return;
    case EmcLayout::kT210Debugfs: add_t210(tree, spec); return;
    case EmcLayout::kBpmpDebugfs: add_bpmp(tree, spec); return;
    case EmcLayout::kThorDevfreq: add_thor_devfreq(tree, spec); return;
  }
}

}  // namespace energy::sim
