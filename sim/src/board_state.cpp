#include "energysim/board_state.h"

#include <algorithm>

namespace energy::sim {
namespace {

struct RailMatch {
  std::vector<std::string> ids;
  bool disabled = false;
};

RailMatch match_rails(const BoardSpec& spec, std::string_view name) {
  RailMatch match;
  for (const PowerMonitorSpec& m : spec.monitors) {
    for (const ChannelSpec& c : m.channels) {
      if (c.label != name && rail_id(m, c) != name) continue;
      match.ids.push_back(rail_id(m, c));
      match.disabled = match.disabled || c.disabled;
    }
  }
  return match;
}

std::string rail_names(const BoardSpec& spec) {
  std::string out;
  for (const PowerMonitorSpec& m : spec.monitors) {
    for (const ChannelSpec& c : m.channels) {
      if (!c.disabled) out += (out.empty() ? "" : ", ") + (c.label.empty() ? rail_id(m, c) : c.label);
    }
  }
  return out;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

BoardState idle_state(const BoardSpec& spec) {
  BoardState state;
  for (const PowerMonitorSpec& m : spec.monitors) {
    for (const ChannelSpec& c : m.channels) state.rails[rail_id(m, c)] = RailState{c.idle_mv, c.idle_ma};
  }
  const std::uint32_t max_khz = spec.cpu.available_khz.empty() ? 0 : spec.cpu.available_khz.back();
  for (const CpuPolicySpec& p : spec.cpu.policies) {
    CpuPolicyState& policy = state.policies[p.policy];
    policy.min_khz = spec.cpu.floor_khz;
    policy.max_khz = max_khz;
    policy.cur_khz = spec.cpu.floor_khz;
    policy.governor = spec.cpu.default_governor;
  }
  for (int cpu : spec.cpu.all_cpus()) state.cpu_online[cpu] = true;
  for (const GpuSpec& g : spec.gpus) {
    const std::uint64_t min_hz = g.available_hz.empty() ? 0 : g.available_hz.front();
    const std::uint64_t cur_hz = g.idle_gated ? 0 : min_hz;
    GpuState& gpu = state.gpus[g.devfreq_name];
    gpu.min_hz = min_hz;
    gpu.max_hz = g.default_max_hz;
    gpu.cur_hz = cur_hz;
    gpu.governor = g.default_governor;
  }
  for (const ThermalZoneSpec& zone : spec.thermal_zones) state.thermal_mc.push_back(zone.idle_mc);
  if (!spec.emc.rates_hz.empty()) {
    const std::uint64_t low = spec.emc.rates_hz.front();
    state.emc = EmcState{low, spec.emc.rates_hz.back(), low, 0, false, spec.emc.devfreq_governor};
  }
  for (const PowerMonitorSpec& m : spec.monitors) {
    if (m.layout == MonitorLayout::kIna3221Hwmon) state.monitor_config[m.device_name()] = MonitorConfig{};
  }
  return state;
}

Result<std::string> resolve_rail(const BoardSpec& spec, std::string_view name) {
  const RailMatch match = match_rails(spec, name);
  const std::string quoted = "'" + std::string(name) + "'";
  if (match.ids.empty()) {
    return make_error(ErrorCode::kNotFound,
                      "no rail " + quoted + " on " + spec.id + " (rails: " + rail_names(spec) + ")");
  }
  if (match.ids.size() > 1) {
    return make_error(ErrorCode::kInvalid,
                      quoted + " names several channels (" + joined(match.ids) + "); use a rail id");
  }
  if (match.disabled) return make_error(ErrorCode::kInvalid, "rail " + quoted + " is disabled in the device tree");
  return match.ids.front();
}

Status set_rail(BoardState& state, const BoardSpec& spec, std::string_view name, RailState value) {
  Result<std::string> id = resolve_rail(spec, name);
  if (!id) return id.take_error();
  state.rails[*id] = value;
  return ok_status();
}

}  // namespace energy::sim
