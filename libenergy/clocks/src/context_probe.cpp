#include "energy/context_probe.h"

#include <map>

#include "energy/tick_path.h"

namespace energy {
namespace {

AttrFile open_attr(const SysRoot& root, const std::string& board_path) { return AttrFile(root, board_path); }

bool is_debugfs(const std::string& dir) { return dir.rfind("/sys/kernel/debug", 0) == 0; }

// The current-frequency file of a domain and its unit in Hz.
std::pair<std::string, int64_t> frequency_file(const SysRoot& root, const ClockDomain& d) {
  if (d.kind == DomainKind::kCpu) return {join_path(d.dir, "scaling_cur_freq"), 1000};
  if (!is_debugfs(d.dir)) return {join_path(d.dir, "cur_freq"), 1};
  std::string rate = join_path(d.dir, "rate");
  return {root.exists(rate) ? rate : join_path(d.dir, "clk_rate"), 1};
}

std::string governor_path(const ClockDomain& d) {
  if (d.kind == DomainKind::kCpu) return join_path(d.dir, "scaling_governor");
  return is_debugfs(d.dir) ? std::string() : join_path(d.dir, "governor");
}

// The domain's residency counter file and its format; "" when it has none.
std::pair<std::string, CounterFormat> counters_file(const SysRoot& root, const ClockDomain& d) {
  std::string path;
  CounterFormat format = CounterFormat::kTimeInState;
  if (d.kind == DomainKind::kCpu) path = join_path(d.dir, "stats/time_in_state");
  if (d.kind == DomainKind::kGpu && !is_debugfs(d.dir)) {
    path = join_path(d.dir, "trans_stat");
    format = CounterFormat::kTransStat;
  }
  return {!path.empty() && root.exists(path) ? path : std::string(), format};
}

std::string last_component(const std::string& path) {
  auto at = path.rfind('/');
  return at == std::string::npos ? path : path.substr(at + 1);
}

}  // namespace

ContextProbe::ContextProbe(const SysRoot& root, const ClockInventory& inv) {
  for (const auto& d : inv.domains) {
    auto [cur, unit] = frequency_file(root, d);
    std::string gov = governor_path(d);
    auto [counters, format] = counters_file(root, d);
    domains_.push_back(Domain{d.name, open_attr(root, cur), unit, gov.empty() ? AttrFile() : open_attr(root, gov),
                              counters.empty() ? AttrFile() : open_attr(root, counters), format});
  }
  std::map<std::string, int> uses;
  for (const auto& z : inv.thermal) ++uses[z.type];
  for (const auto& z : inv.thermal) {
    std::string name = uses[z.type] > 1 ? z.type + "@" + last_component(z.dir) : z.type;
    zones_.push_back(Zone{std::move(name), open_attr(root, join_path(z.dir, "temp"))});
  }
}

ENERGY_TICK_PATH ContextValue ContextProbe::read_frequency(size_t i) {
  Domain& d = domains_[i];
  int64_t v = 0;
  auto hz = d.cur.read_int(v, nullptr) ? frequency_hz(v, d.hz_per_unit) : std::nullopt;  // a failed read: unknown
  return hz ? ContextValue::of_number(*hz) : ContextValue::unknown();
}

ContextValue ContextProbe::read_governor(size_t i) {
  Domain& d = domains_[i];
  if (!d.governor.configured()) return ContextValue::unknown();
  auto text = d.governor.read_text();
  if (!text || text->empty()) return ContextValue::unknown();
  return ContextValue::of_text(std::move(text).value());
}

Result<ResidencyCounters> ContextProbe::read_counters(size_t i) {
  Domain& d = domains_[i];
  if (!d.counters.configured()) return make_error(ErrorCode::kUnsupported, d.name + " has no residency counters");
  Result<std::string> text = d.counters.read_text();
  if (!text) return text.take_error();
  return parse_counters(d.counter_format, *text, d.counters.label());
}

ContextValue ContextProbe::read_temperature(size_t i) {
  int64_t v = 0;
  if (!zones_[i].temp.read_int(v, nullptr)) return ContextValue::unknown();
  if (v == kThermalGatedMilliC) return ContextValue::of_text(kThermalGatedText);
  return ContextValue::of_number(v);
}

}  // namespace energy
