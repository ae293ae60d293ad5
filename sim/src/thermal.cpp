#include "thermal.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

namespace energy::sim {
namespace {

// A43-A46 (sim/ASSUMPTIONS.md).
constexpr double kLeakPerC = 0.69314718055994530942 / 30.0;  // leakage doubles every 30 C
constexpr double kOwnFullRiseC = 15.0;                       // a CPU/GPU zone at full load, from its own rails
constexpr double kBoardFullRiseC = 25.0;                     // every heated zone at full load, from the module
constexpr double kOwnTauS = 40.0;
constexpr double kBoardTauS = 120.0;
constexpr double kFanGain = 1.0;  // full fan halves the thermal resistance
constexpr double kFanStartC = 50.0;
constexpr double kFanFullC = 80.0;
constexpr double kTripHysteresisC = 2.0;
constexpr double kAssumedPassiveC = 95.0;  // A47
constexpr double kAssumedHotC = 100.0;

std::string lower(const std::string& text) {
  std::string out = text;
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

bool starts(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

double idle_c(const ThermalZoneSpec& zone) { return zone.idle_mc / 1000.0; }

double fan_factor(std::uint32_t pwm) { return 1.0 + kFanGain * pwm / 255.0; }

std::size_t online_cpus(const Component& c, const BoardState& s) {
  std::size_t n = 0;
  for (int cpu : c.cpus) {
    const auto it = s.cpu_online.find(cpu);
    if (it != s.cpu_online.end() && it->second) ++n;
  }
  return n;
}

bool rail_measures(const PowerTopology& t, const RailModel& rail, ComponentKind kind) {
  for (int i : rail.components) {
    if (t.components[static_cast<std::size_t>(i)].kind == kind) return true;
  }
  return false;
}

double share(double mw, double full_mw) { return full_mw > 0 ? mw / full_mw : 0.0; }

// Steady rise of a heated zone under `heat`.
double steady_rise_c(ZoneRole role, const HeatInput& heat, const DynamicState& dyn) {
  double own = 0;
  if (role == ZoneRole::kCpu) own = share(heat.cpu_mw, dyn.full_cpu_mw);
  if (role == ZoneRole::kGpu) own = share(heat.gpu_mw, dyn.full_gpu_mw);
  const double board = share(heat.module_mw, dyn.full_module_mw);
  return (kOwnFullRiseC * own + kBoardFullRiseC * board) / fan_factor(dyn.fan_pwm);
}

// Every CPU and GPU at the top of its table with load 1, no leakage.
HeatInput full_load_heat(const PowerTopology& topology, const BoardSpec& spec) {
  ModelControls full{idle_state(spec), 1000, {}};
  for (auto& [policy, p] : full.board.policies) {
    p.governor = "performance";
    if (!spec.cpu.available_khz.empty()) p.max_khz = spec.cpu.available_khz.back();
  }
  for (const GpuSpec& g : spec.gpus) {
    GpuState& s = full.board.gpus[g.devfreq_name];
    s.governor = "performance";
    if (!g.available_hz.empty()) s.max_hz = g.available_hz.back();
    s.load_permille = 1000;
  }
  std::vector<double> mw;
  for (const RailLevel& l : rail_levels(topology, spec, full)) mw.push_back(l.power_mw);
  return heat_input(topology, mw);
}

void update_rises(const BoardSpec& spec, DynamicState& dyn) {
  dyn.cpu_rise_c = dyn.ambient_offset_c;
  dyn.gpu_rise_c = dyn.ambient_offset_c;
  double hottest = -1e9;
  for (std::size_t z = 0; z < spec.thermal_zones.size(); ++z) {
    const ZoneRole role = zone_role(spec.thermal_zones[z]);
    const double rise = dyn.zone_c[z] - idle_c(spec.thermal_zones[z]);
    if (role == ZoneRole::kCpu) dyn.cpu_rise_c = std::max(dyn.cpu_rise_c, rise);
    if (role == ZoneRole::kGpu) dyn.gpu_rise_c = std::max(dyn.gpu_rise_c, rise);
    if (role == ZoneRole::kCpu || role == ZoneRole::kGpu) hottest = std::max(hottest, dyn.zone_c[z]);
  }
  if (!dyn.fan_manual && spec.fan != FanLayout::kNone) dyn.fan_pwm = fan_curve_pwm(hottest);
}

void set_junctions(const BoardSpec& spec, DynamicState& dyn) {
  double rise = dyn.ambient_offset_c;
  for (std::size_t z = 0; z < spec.thermal_zones.size(); ++z) {
    const ZoneRole role = zone_role(spec.thermal_zones[z]);
    if (role != ZoneRole::kJunction && role != ZoneRole::kFixed) {
      rise = std::max(rise, dyn.zone_c[z] - idle_c(spec.thermal_zones[z]));
    }
  }
  for (std::size_t z = 0; z < spec.thermal_zones.size(); ++z) {
    if (zone_role(spec.thermal_zones[z]) == ZoneRole::kJunction) dyn.zone_c[z] = idle_c(spec.thermal_zones[z]) + rise;
  }
}

template <typename Freq>
Freq step_below(const std::vector<Freq>& table, Freq f) {
  Freq out = table.empty() ? f : table.front();
  for (Freq t : table) {
    if (t < f) out = t;
  }
  return out;
}

template <typename Freq>
Freq step_above(const std::vector<Freq>& table, Freq f) {
  for (Freq t : table) {
    if (t > f) return t;
  }
  return table.empty() ? f : table.back();
}

// The step-wise passive rule: above the hot trip the table minimum; above the
// passive trip one step below the running clock; below it - hysteresis one
// step up, none at the top.
template <typename Freq, typename Key>
void throttle(std::map<Key, Freq>& caps, const Key& key, const std::vector<Freq>& table, Freq running, double temp_c,
              const std::vector<double>& trips) {
  if (table.empty() || trips.empty()) return;
  const auto it = caps.find(key);
  if (trips.size() > 1 && temp_c >= trips[1]) {
    caps[key] = table.front();
  } else if (temp_c >= trips[0]) {
    const Freq from = it == caps.end() ? running : std::min(it->second, running);
    caps[key] = step_below(table, from);
  } else if (temp_c < trips[0] - kTripHysteresisC && it != caps.end()) {
    const Freq up = step_above(table, it->second);
    if (up >= table.back())
      caps.erase(key);
    else
      caps[key] = up;
  }
}

// The hottest zone of `role` and its trips; false when the board has none.
bool hottest_zone(const BoardSpec& spec, const DynamicState& dyn, ZoneRole role, double& temp_c,
                  std::vector<double>& trips) {
  bool found = false;
  for (std::size_t z = 0; z < spec.thermal_zones.size(); ++z) {
    if (zone_role(spec.thermal_zones[z]) != role || (found && dyn.zone_c[z] <= temp_c)) continue;
    temp_c = dyn.zone_c[z];
    trips = zone_trips_c(spec.thermal_zones[z]);
    found = true;
  }
  return found;
}

}  // namespace

ZoneRole zone_role(const ThermalZoneSpec& zone) {
  const std::string t = lower(zone.type);
  if (zone.idle_mc <= 0 || starts(t, "pmic")) return ZoneRole::kFixed;
  if (starts(t, "cpu") || starts(t, "bcpu") || starts(t, "mcpu")) return ZoneRole::kCpu;
  if (starts(t, "gpu")) return ZoneRole::kGpu;
  if (starts(t, "tj")) return ZoneRole::kJunction;
  return ZoneRole::kBoard;
}

double leakage_extra_mw(double static_mw, double rise_c) { return static_mw * std::expm1(kLeakPerC * rise_c); }

double component_leakage_mw(const Component& c, const BoardState& s, const DynamicState& dyn) {
  if (c.kind == ComponentKind::kCpu && !c.cpus.empty()) {
    const double on = static_cast<double>(online_cpus(c, s)) / static_cast<double>(c.cpus.size());
    return on * leakage_extra_mw(c.static_mw, dyn.cpu_rise_c);
  }
  if (c.kind != ComponentKind::kGpu) return 0.0;
  const auto it = s.gpus.find(c.gpu);
  if (it == s.gpus.end() || it->second.cur_hz == 0) return 0.0;
  return leakage_extra_mw(c.static_mw, dyn.gpu_rise_c);
}

HeatInput heat_input(const PowerTopology& topology, const std::vector<double>& mean_rail_mw) {
  HeatInput heat;
  for (int r : topology.total_rails) {
    const auto i = static_cast<std::size_t>(r);
    heat.module_mw += mean_rail_mw[i] - topology.rails[i].idle_mw;
  }
  for (std::size_t r = 0; r < topology.rails.size(); ++r) {
    const RailModel& rail = topology.rails[r];
    if (rail.role != RailRole::kComponents || rail.disabled) continue;
    const double change = mean_rail_mw[r] - rail.idle_mw;
    if (rail_measures(topology, rail, ComponentKind::kCpu)) heat.cpu_mw += change;
    if (rail_measures(topology, rail, ComponentKind::kGpu)) heat.gpu_mw += change;
  }
  return heat;
}

void init_thermal(const PowerTopology& topology, const BoardSpec& spec, double ambient_offset_c, DynamicState& dyn) {
  const HeatInput full = full_load_heat(topology, spec);
  dyn.full_module_mw = full.module_mw;
  dyn.full_cpu_mw = full.cpu_mw;
  dyn.full_gpu_mw = full.gpu_mw;
  dyn.ambient_offset_c = ambient_offset_c;
  dyn.zone_c.clear();
  for (const ThermalZoneSpec& zone : spec.thermal_zones) {
    const bool fixed = zone_role(zone) == ZoneRole::kFixed;
    dyn.zone_c.push_back(idle_c(zone) + (fixed ? 0.0 : ambient_offset_c));
  }
  update_rises(spec, dyn);
}

void thermal_step(const BoardSpec& spec, const HeatInput& heat, double dt_s, DynamicState& dyn) {
  for (std::size_t z = 0; z < spec.thermal_zones.size(); ++z) {
    const ZoneRole role = zone_role(spec.thermal_zones[z]);
    if (role == ZoneRole::kFixed || role == ZoneRole::kJunction) continue;
    const double tau = role == ZoneRole::kBoard ? kBoardTauS : kOwnTauS;
    const double target = idle_c(spec.thermal_zones[z]) + dyn.ambient_offset_c + steady_rise_c(role, heat, dyn);
    dyn.zone_c[z] = target + (dyn.zone_c[z] - target) * std::exp(-dt_s / tau);
  }
  set_junctions(spec, dyn);
  update_rises(spec, dyn);
}

void apply_trips(const BoardSpec& spec, const BoardState& governed, DynamicState& dyn) {
  double temp = 0;
  std::vector<double> trips;
  if (hottest_zone(spec, dyn, ZoneRole::kCpu, temp, trips)) {
    for (const auto& [policy, p] : governed.policies) {
      throttle<std::uint32_t, int>(dyn.cpu_cap_khz, policy, spec.cpu.available_khz, p.cur_khz, temp, trips);
    }
  }
  if (!hottest_zone(spec, dyn, ZoneRole::kGpu, temp, trips)) return;
  for (const GpuSpec& g : spec.gpus) {
    const auto it = governed.gpus.find(g.devfreq_name);
    if (it == governed.gpus.end()) continue;
    const std::uint64_t running = it->second.cur_hz == 0 ? g.available_hz.back() : it->second.cur_hz;
    throttle<std::uint64_t, std::string>(dyn.gpu_cap_hz, g.devfreq_name, g.available_hz, running, temp, trips);
  }
}

std::vector<std::int32_t> zone_readings_mc(const BoardSpec& spec, const DynamicState& dyn) {
  std::vector<std::int32_t> out;
  for (std::size_t z = 0; z < spec.thermal_zones.size(); ++z) {
    if (zone_role(spec.thermal_zones[z]) == ZoneRole::kFixed || z >= dyn.zone_c.size()) {
      out.push_back(spec.thermal_zones[z].idle_mc);
    } else {
      out.push_back(static_cast<std::int32_t>(std::lround(dyn.zone_c[z] * kPermille)));
    }
  }
  return out;
}

std::uint32_t fan_curve_pwm(double hottest_c) {
  const double share = std::clamp((hottest_c - kFanStartC) / (kFanFullC - kFanStartC), 0.0, 1.0);
  return static_cast<std::uint32_t>(std::lround(255.0 * share));
}

std::vector<double> zone_trips_c(const ThermalZoneSpec& zone) {
  if (!zone.trips_c.empty()) return zone.trips_c;
  return {kAssumedPassiveC, kAssumedHotC};
}

}  // namespace energy::sim
