// Topology building (components, idle split, feeding) and rail levels.
#include "model_power.h"

#include <algorithm>
#include <cmath>

#include "thermal.h"  // leakage at temperature

namespace energy::sim {
namespace {

// ---- building ------------------------------------------------------------

RailModel rail_model(const PowerMonitorSpec& m, const ChannelSpec& c) {
  RailModel r;
  r.id = rail_id(m, c);
  r.label = c.label;
  r.disabled = c.disabled;
  r.role = c.disabled ? RailRole::kConstant : classify_label(c.label).role;
  r.idle_mv = c.idle_mv;
  r.idle_mw = c.disabled ? 0.0 : static_cast<double>(c.idle_mv) * c.idle_ma / 1000.0;
  return r;
}

std::vector<Component> cpu_components(const CpuSpec& cpu, const BoardCalibration& cal, std::size_t cpu_count) {
  std::vector<Component> out;
  for (const CpuPolicySpec& p : cpu.policies) {
    Component c;
    c.kind = ComponentKind::kCpu;
    c.policy = p.policy;
    c.cpus = p.cpus;
    c.f_min = cpu.available_khz.empty() ? 0 : cpu.available_khz.front();
    c.f_max = cpu.available_khz.empty() ? 0 : cpu.available_khz.back();
    c.dyn_max_mw = cal.cpu_dyn_max_mw * static_cast<double>(p.cpus.size()) / static_cast<double>(cpu_count);
    out.push_back(c);
  }
  return out;
}

std::vector<Component> gpu_components(const std::vector<GpuSpec>& gpus, const BoardCalibration& cal) {
  std::vector<Component> out;
  for (const GpuSpec& g : gpus) {
    Component c;
    c.kind = ComponentKind::kGpu;
    c.gpu = g.devfreq_name;
    c.gated_at_idle = g.idle_gated;
    c.f_min = g.available_hz.empty() ? 0 : static_cast<double>(g.available_hz.front());
    c.f_max = g.available_hz.empty() ? 0 : static_cast<double>(g.available_hz.back());
    c.dyn_max_mw = cal.gpu_dyn_max_mw * (out.empty() ? 1.0 : kSecondaryGpuShare);
    out.push_back(c);
  }
  return out;
}

std::vector<Component> all_components(const BoardSpec& spec, const BoardCalibration& cal, std::size_t cpu_count) {
  std::vector<Component> out = cpu_components(spec.cpu, cal, cpu_count);
  const std::vector<Component> gpus = gpu_components(spec.gpus, cal);
  out.insert(out.end(), gpus.begin(), gpus.end());
  const std::pair<ComponentKind, double> others[] = {
      {ComponentKind::kCv, 0.0}, {ComponentKind::kSoc, cal.soc_dyn_max_mw}, {ComponentKind::kDdr, cal.ddr_dyn_max_mw}};
  for (const auto& [kind, dyn] : others) {
    Component c;
    c.kind = kind;
    c.dyn_max_mw = dyn;
    if (kind == ComponentKind::kDdr && !spec.emc.rates_hz.empty()) {  // its dynamic power scales with the EMC rate
      c.f_min = static_cast<double>(spec.emc.rates_hz.front());
      c.f_max = static_cast<double>(spec.emc.rates_hz.back());
    }
    out.push_back(c);
  }
  return out;
}

// Each component goes to the first rail whose label names it.
void assign_components(PowerTopology& t) {
  for (std::size_t r = 0; r < t.rails.size(); ++r) {
    RailModel& rail = t.rails[r];
    if (rail.role != RailRole::kComponents) continue;
    for (ComponentKind kind : classify_label(rail.label).components) {
      for (std::size_t c = 0; c < t.components.size(); ++c) {
        if (t.components[c].kind != kind || t.components[c].rail >= 0) continue;
        t.components[c].rail = static_cast<int>(r);
        rail.components.push_back(static_cast<int>(c));
      }
    }
  }
}

// Share of a component within its kind on one rail: CPUs by core count, GPUs evenly.
double share_within_kind(const PowerTopology& t, const RailModel& rail, const Component& c) {
  double total = 0;
  for (int i : rail.components) {
    const Component& other = t.components[static_cast<std::size_t>(i)];
    if (other.kind == c.kind) total += c.kind == ComponentKind::kCpu ? static_cast<double>(other.cpus.size()) : 1.0;
  }
  const double own = c.kind == ComponentKind::kCpu ? static_cast<double>(c.cpus.size()) : 1.0;
  return total > 0 ? own / total : 0.0;
}

std::vector<ComponentKind> kinds_on(const PowerTopology& t, const RailModel& rail) {
  std::vector<ComponentKind> kinds;
  for (int i : rail.components) {
    const ComponentKind k = t.components[static_cast<std::size_t>(i)].kind;
    if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) kinds.push_back(k);
  }
  return kinds;
}

bool gpu_gated_at_idle(const PowerTopology& t, const RailModel& rail) {
  for (int i : rail.components) {
    const Component& c = t.components[static_cast<std::size_t>(i)];
    if (c.kind == ComponentKind::kGpu && !c.gated_at_idle) return false;
  }
  return true;
}

// Splits the rail's idle power among its components by idle_weight(). A GPU
// rail-gated at idle draws nothing then: its nominal share is what it draws
// ungated, and the other components take the rail's idle power.
void split_idle(PowerTopology& t, RailModel& rail) {
  const std::vector<ComponentKind> kinds = kinds_on(t, rail);
  double weights = 0;
  double idle_weights = 0;
  const bool gpu_gated = gpu_gated_at_idle(t, rail);
  for (ComponentKind k : kinds) {
    weights += idle_weight(k);
    if (!(k == ComponentKind::kGpu && gpu_gated)) idle_weights += idle_weight(k);
  }
  double given = 0;
  for (int i : rail.components) {
    Component& c = t.components[static_cast<std::size_t>(i)];
    const double within = share_within_kind(t, rail, c);
    const double nominal = rail.idle_mw * idle_weight(c.kind) / weights * within;
    const bool gated = c.kind == ComponentKind::kGpu && gpu_gated;
    c.idle_mw = gated || idle_weights <= 0 ? 0.0 : rail.idle_mw * idle_weight(c.kind) / idle_weights * within;
    c.static_mw = gated ? nominal : c.idle_mw;
    given += c.idle_mw;
  }
  rail.remainder_mw = std::max(0.0, rail.idle_mw - given);
}

int rail_index(const PowerTopology& t, const std::string& label) {
  for (std::size_t r = 0; r < t.rails.size(); ++r) {
    if (t.rails[r].label == label || t.rails[r].id == label) return static_cast<int>(r);
  }
  return -1;
}

// When the board's total is a sum of rails, a component rail outside the sum
// is fed from the sum's system 5 V rail (AGX Orin: VDDQ_VDD2_1V8AO).
void connect_feeds(PowerTopology& t) {
  if (t.total_rails.size() < 2) return;
  int system = -1;
  for (int r : t.total_rails) {
    if (t.rails[static_cast<std::size_t>(r)].role == RailRole::kSystem5v) system = r;
  }
  if (system < 0) return;
  for (std::size_t r = 0; r < t.rails.size(); ++r) {
    const bool in_total =
        std::find(t.total_rails.begin(), t.total_rails.end(), static_cast<int>(r)) != t.total_rails.end();
    if (!in_total && t.rails[r].role == RailRole::kComponents) t.rails[r].fed_from = system;
  }
}

// ---- levels --------------------------------------------------------------

struct Activity {
  double cpu = 0;  // sum over policies of online share x load x f / f_max
  double gpu = 0;  // max over GPUs of load x f / f_max (0 while gated)
};

std::size_t online_count(const Component& c, const BoardState& s) {
  std::size_t n = 0;
  for (int cpu : c.cpus) {
    const auto it = s.cpu_online.find(cpu);
    if (it != s.cpu_online.end() && it->second) ++n;
  }
  return n;
}

double policy_khz(const Component& c, const BoardState& s) {
  const auto it = s.policies.find(c.policy);
  return it == s.policies.end() ? 0.0 : it->second.cur_khz;
}

const GpuState* gpu_state(const Component& c, const BoardState& s) {
  const auto it = s.gpus.find(c.gpu);
  return it == s.gpus.end() ? nullptr : &it->second;
}

Activity activity(const PowerTopology& t, const BoardState& s, double cpu_load) {
  Activity a;
  for (const Component& c : t.components) {
    if (c.kind == ComponentKind::kCpu && c.f_max > 0) {
      const double online = static_cast<double>(online_count(c, s)) / static_cast<double>(t.cpu_count);
      a.cpu += online * cpu_load * policy_khz(c, s) / c.f_max;
    }
    const GpuState* g = c.kind == ComponentKind::kGpu ? gpu_state(c, s) : nullptr;
    if (g != nullptr && c.f_max > 0) {
      a.gpu = std::max(a.gpu, g->load_permille / kPermille * static_cast<double>(g->cur_hz) / c.f_max);
    }
  }
  return a;
}

double cpu_power(const Component& c, const BoardState& s, double cpu_load) {
  const double on = static_cast<double>(online_count(c, s)) / static_cast<double>(c.cpus.size());
  return on * (c.static_mw + c.dyn_max_mw * dvfs_factor(policy_khz(c, s), c.f_min, c.f_max) * cpu_load);
}

double gpu_power(const Component& c, const BoardState& s) {
  const GpuState* g = gpu_state(c, s);
  if (g == nullptr || g->cur_hz == 0) return 0.0;
  const double f = static_cast<double>(g->cur_hz);
  return c.static_mw +
         c.dyn_max_mw * dvfs_factor(f, c.f_min, c.f_max, kGpuVoltageFloorPosition) * g->load_permille / kPermille;
}

// The DDR dynamic power's share at the EMC rate (1 at the top, and where the
// EMC is not modelled): the memory runs as much faster as it is clocked (A48).
double ddr_share(const Component& c, const BoardState& s) {
  if (c.f_max <= 0 || s.emc.rate_hz == 0) return 1.0;
  return dvfs_factor(static_cast<double>(s.emc.rate_hz), c.f_min, c.f_max);
}

double component_power(const Component& c, const BoardState& s, double cpu_load, const Activity& a) {
  switch (c.kind) {
    case ComponentKind::kCpu: return cpu_power(c, s, cpu_load);
    case ComponentKind::kGpu: return gpu_power(c, s);
    case ComponentKind::kCv: return c.idle_mw;
    case ComponentKind::kSoc: return c.idle_mw + c.dyn_max_mw * (a.cpu + a.gpu) / 2;
    case ComponentKind::kDdr: return c.idle_mw + c.dyn_max_mw * std::max(a.cpu, a.gpu) * ddr_share(c, s);
  }
  return 0.0;
}

double component_rail_power(const RailModel& rail, const std::vector<double>& powers) {
  double sum = rail.remainder_mw;
  for (int i : rail.components) sum += powers[static_cast<std::size_t>(i)];
  return sum;
}

// Input bus voltage with droop relative to the idle point: V = V0 - R (I - I0).
double drooped_mv(const RailModel& rail, double power_mw, double droop_mohm) {
  if (droop_mohm <= 0 || rail.idle_mv <= 0) return rail.idle_mv;
  const double idle_a = rail.idle_mw / rail.idle_mv;
  const double a = rail.idle_mv + droop_mohm * idle_a;
  const double disc = a * a - 4 * droop_mohm * power_mw;
  return disc > 0 ? (a + std::sqrt(disc)) / 2 : a / 2;
}

class LevelComputer {
 public:
  LevelComputer(const PowerTopology& t, const BoardState& s, double cpu_load, const DynamicState* dyn) : t_(t) {
    const Activity a = activity(t, s, cpu_load);
    mem_activity_ = std::max(a.cpu, a.gpu);
    for (const Component& c : t.components) powers_.push_back(component_power(c, s, cpu_load, a));
    if (dyn == nullptr) return;
    for (std::size_t i = 0; i < powers_.size(); ++i) powers_[i] += component_leakage_mw(t.components[i], s, *dyn);
  }

  std::vector<double> rail_powers() const {
    std::vector<double> p(t_.rails.size(), 0.0);
    for (RailRole pass : {RailRole::kConstant, RailRole::kComponents, RailRole::kSystem5v, RailRole::kInput}) {
      for (std::size_t r = 0; r < t_.rails.size(); ++r) {
        if (t_.rails[r].role == pass) p[r] = std::max(0.0, rail_power(r, p));
      }
    }
    return p;
  }

 private:
  double rail_power(std::size_t r, const std::vector<double>& done) const {
    const RailModel& rail = t_.rails[r];
    switch (rail.role) {
      case RailRole::kConstant: return rail.idle_mw;
      case RailRole::kComponents: return component_rail_power(rail, powers_);
      case RailRole::kSystem5v: return system_power(r, done);
      case RailRole::kInput: return input_power(rail, done);
    }
    return rail.idle_mw;
  }

  double system_power(std::size_t r, const std::vector<double>& done) const {
    double p = t_.rails[r].idle_mw + t_.calibration.sys5v_dyn_max_mw * mem_activity_;
    for (std::size_t f = 0; f < t_.rails.size(); ++f) {
      if (t_.rails[f].fed_from == static_cast<int>(r)) p += (done[f] - t_.rails[f].idle_mw) / kFeedEfficiency;
    }
    return p;
  }

  double input_power(const RailModel& rail, const std::vector<double>& done) const {
    double change = 0;
    for (std::size_t c = 0; c < t_.components.size(); ++c) {
      const int on = t_.components[c].rail;
      if (on < 0 || t_.rails[static_cast<std::size_t>(on)].fed_from < 0)
        change += powers_[c] - t_.components[c].idle_mw;
    }
    for (std::size_t s = 0; s < t_.rails.size(); ++s) {
      if (t_.rails[s].role == RailRole::kSystem5v) change += done[s] - t_.rails[s].idle_mw;
    }
    return rail.idle_mw + change / t_.calibration.efficiency;
  }

  const PowerTopology& t_;
  std::vector<double> powers_;
  double mem_activity_ = 0;
};

RailLevel override_level(const RailState& value) {
  return RailLevel{static_cast<double>(value.bus_mv) * value.current_ma / 1000.0, static_cast<double>(value.bus_mv),
                   false};
}

}  // namespace

double dvfs_factor(double f, double f_min, double f_max, double floor_position) {
  if (f_max <= 0 || f <= 0) return 0.0;
  const double span = f_max - f_min;
  const double position = span > 0 ? std::clamp(std::max((f - f_min) / span, floor_position), 0.0, 1.0) : 1.0;
  const double v = kVoltageMinRatio + (1 - kVoltageMinRatio) * position;
  return f / f_max * v * v;
}

PowerTopology build_topology(const BoardSpec& spec) {
  PowerTopology t;
  t.cpu_count = std::max<std::size_t>(1, spec.cpu.all_cpus().size());
  t.calibration = calibration_for(spec.id, t.cpu_count);
  for (const PowerMonitorSpec& m : spec.monitors) {
    for (const ChannelSpec& c : m.channels) t.rails.push_back(rail_model(m, c));
  }
  t.components = all_components(spec, t.calibration, t.cpu_count);
  assign_components(t);
  for (RailModel& rail : t.rails) {
    if (rail.role == RailRole::kComponents) split_idle(t, rail);
  }
  for (const std::string& label : spec.total_rails) {
    const int r = rail_index(t, label);
    if (r >= 0) t.total_rails.push_back(r);
  }
  connect_feeds(t);
  return t;
}

std::vector<RailLevel> rail_levels(const PowerTopology& topology, const BoardSpec& spec, const ModelControls& controls,
                                   const DynamicState* dyn) {
  const BoardState governed = governed_state(spec, controls, dyn);
  const double cpu_load = std::min(controls.cpu_load_permille, 1000u) / kPermille;
  const std::vector<double> powers = LevelComputer(topology, governed, cpu_load, dyn).rail_powers();
  std::vector<RailLevel> levels;
  for (std::size_t r = 0; r < topology.rails.size(); ++r) {
    const RailModel& rail = topology.rails[r];
    const double droop = rail.role == RailRole::kInput ? topology.calibration.input_droop_mohm : 0.0;
    levels.push_back(RailLevel{powers[r], drooped_mv(rail, powers[r], droop), !rail.disabled});
    const auto it = controls.overrides.find(rail.id);
    if (it != controls.overrides.end()) levels.back() = override_level(it->second);
  }
  return levels;
}

}  // namespace energy::sim
