// Effective frequencies as the governors pick them (model_power.h) and the
// sampled governors' steps (governor.h).
#include <algorithm>

#include "emc.h"
#include "governor.h"
#include "model_power.h"

namespace energy::sim {
namespace {

constexpr double kSchedutilHeadroom = 1.25;
constexpr double kPodgovUpLoad = 0.9;  // the target load is GovernorProfile's
// Orin's conservative profile (fitted, A42): climb per sample as a share of
// the table's span, and a podgov target load that drops further after a gap.
constexpr double kOrinCpuClimb = 0.2;
constexpr double kOrinGpuClimb = 0.34;
constexpr double kOrinPodgovTargetLoad = 0.9;

// The lowest listed frequency >= min + load x (max - min), within [min, max].
template <typename Freq>
Freq load_following(const std::vector<Freq>& table, Freq min, Freq max, double load) {
  const double target = static_cast<double>(min) + load * (static_cast<double>(max) - static_cast<double>(min));
  return lowest_at_least(table, min, max, target);
}

// A rise from cur towards next limited to `fraction` of the table's span:
// the highest listed frequency within it, at least one step up.
template <typename Freq>
Freq climb(const std::vector<Freq>& table, Freq cur, Freq next, double fraction) {
  if (next <= cur || fraction >= 1.0) return next;
  const double limit = static_cast<double>(cur) + fraction * static_cast<double>(table.back() - table.front());
  Freq out = cur;
  for (Freq f : table) {
    if (f > cur && f <= next && (out == cur || static_cast<double>(f) <= limit)) out = f;
  }
  return out;
}

// Limits after a trip cap: the cap lowers max, and min with it.
template <typename Freq, typename Key>
void capped(const std::map<Key, Freq>* caps, const Key& key, Freq& min, Freq& max) {
  if (caps == nullptr) return;
  const auto it = caps->find(key);
  if (it == caps->end()) return;
  max = std::min(max, it->second);
  min = std::min(min, max);
}

template <typename Freq, typename Key>
Freq governed(const std::vector<Freq>& table, Freq min, Freq max, const std::string& governor, double load,
              Freq setspeed, const std::map<Key, Freq>* picks, const Key& key) {
  if (governor == "performance") return max;
  if (governor == "powersave") return min;
  if (governor == "userspace") return setspeed == 0 ? max : std::clamp(setspeed, min, max);
  if (picks != nullptr) {
    const auto it = picks->find(key);
    if (it != picks->end()) return std::clamp(it->second, min, max);
  }
  return load_following(table, min, max, load);
}

bool gated(const GpuSpec& spec, const GpuState& state) {
  return spec.idle_gated && state.railgate_enabled && state.load_permille == 0;
}

bool sampled(const std::string& governor) {
  return governor != "performance" && governor != "powersave" && governor != "userspace";
}

}  // namespace

BoardState governed_state(const BoardSpec& spec, const ModelControls& controls, const DynamicState* dyn) {
  BoardState state = controls.board;
  const double cpu_load = std::min(controls.cpu_load_permille, 1000u) / kPermille;
  for (auto& [policy, p] : state.policies) {
    std::uint32_t min = p.min_khz;
    std::uint32_t max = p.max_khz;
    capped<std::uint32_t, int>(dyn ? &dyn->cpu_cap_khz : nullptr, policy, min, max);
    p.cur_khz = governed<std::uint32_t, int>(spec.cpu.available_khz, min, max, p.governor, cpu_load, p.setspeed_khz,
                                             dyn ? &dyn->cpu_khz : nullptr, policy);
  }
  for (const GpuSpec& g : spec.gpus) {
    const auto it = state.gpus.find(g.devfreq_name);
    if (it == state.gpus.end()) continue;
    GpuState& s = it->second;
    std::uint64_t min = s.min_hz;
    std::uint64_t max = s.max_hz;
    capped<std::uint64_t, std::string>(dyn ? &dyn->gpu_cap_hz : nullptr, g.devfreq_name, min, max);
    const double load = std::min(s.load_permille, 1000u) / kPermille;
    s.cur_hz = gated(g, s) ? 0
                           : governed<std::uint64_t, std::string>(g.available_hz, min, max, s.governor, load, 0,
                                                                  dyn ? &dyn->gpu_hz : nullptr, g.devfreq_name);
  }
  if (dyn != nullptr && dyn->zone_c.size() == spec.thermal_zones.size()) state.fan_pwm = dyn->fan_pwm;
  state.emc.rate_hz = emc_governed_hz(spec.emc, state.emc, emc_demand(controls));
  return state;
}

GovernorProfile governor_profile(const BoardSpec& spec) {
  if (spec.soc == "tegra234") return GovernorProfile{kOrinCpuClimb, kOrinGpuClimb, kOrinPodgovTargetLoad};
  return GovernorProfile{};
}

void cpu_governor_step(const BoardSpec& spec, const BoardState& governed, double util, DynamicState& dyn) {
  const GovernorProfile profile = governor_profile(spec);
  const std::vector<std::uint32_t>& table = spec.cpu.available_khz;
  for (const auto& [policy, p] : governed.policies) {
    if (!sampled(p.governor) || table.empty()) continue;
    const double target = kSchedutilHeadroom * util * static_cast<double>(table.back());
    std::uint32_t next = lowest_at_least(table, table.front(), table.back(), target);
    next = climb(table, p.cur_khz, next, profile.cpu_climb);
    dyn.cpu_khz[policy] = next;
  }
}

void gpu_governor_step(const BoardSpec& spec, const BoardState& governed, const std::map<std::string, double>& util,
                       DynamicState& dyn) {
  const GovernorProfile profile = governor_profile(spec);
  for (const GpuSpec& g : spec.gpus) {
    const auto state = governed.gpus.find(g.devfreq_name);
    const auto busy = util.find(g.devfreq_name);
    if (state == governed.gpus.end() || busy == util.end() || g.available_hz.empty()) continue;
    if (!sampled(state->second.governor)) continue;
    const std::uint64_t top = g.available_hz.back();
    const std::uint64_t cur = state->second.cur_hz == 0 ? g.available_hz.front() : state->second.cur_hz;
    // The load is the demand at the top clock: at a lower clock the same work keeps the GPU busier.
    const double load = std::min(1.0, busy->second * static_cast<double>(top) / static_cast<double>(cur));
    std::uint64_t next = cur;
    if (load >= kPodgovUpLoad) {
      next = climb(g.available_hz, cur, top, profile.gpu_climb);
    } else if (load < profile.gpu_target_load) {
      const double target = static_cast<double>(cur) * load / profile.gpu_target_load;
      next = lowest_at_least(g.available_hz, g.available_hz.front(), top, target);
    }
    dyn.gpu_hz[g.devfreq_name] = next;
  }
}

}  // namespace energy::sim
