// Effective frequencies as the governors pick them (see model_power.h).
#include <algorithm>

#include "model_power.h"

namespace energy::sim {
namespace {

constexpr double kPermille = 1000.0;

// The lowest listed frequency >= min + load x (max - min), within [min, max].
template <typename Freq>
Freq load_following(const std::vector<Freq>& table, Freq min, Freq max, double load) {
  const double target = static_cast<double>(min) + load * (static_cast<double>(max) - static_cast<double>(min));
  for (Freq f : table) {
    if (f >= min && f <= max && static_cast<double>(f) >= target - 1e-6) return f;
  }
  return max;
}

template <typename Freq>
Freq governed(const std::vector<Freq>& table, Freq min, Freq max, const std::string& governor, double load,
              Freq setspeed) {
  if (governor == "performance") return max;
  if (governor == "powersave") return min;
  if (governor == "userspace") return setspeed == 0 ? max : std::clamp(setspeed, min, max);
  return load_following(table, min, max, load);
}

bool gated(const GpuSpec& spec, const GpuState& state) {
  return spec.idle_gated && state.railgate_enabled && state.load_permille == 0;
}

}  // namespace

BoardState governed_state(const BoardSpec& spec, const ModelControls& controls) {
  BoardState state = controls.board;
  const double cpu_load = std::min(controls.cpu_load_permille, 1000u) / kPermille;
  for (auto& [policy, p] : state.policies) {
    p.cur_khz =
        governed<std::uint32_t>(spec.cpu.available_khz, p.min_khz, p.max_khz, p.governor, cpu_load, p.setspeed_khz);
  }
  for (const GpuSpec& g : spec.gpus) {
    const auto it = state.gpus.find(g.devfreq_name);
    if (it == state.gpus.end()) continue;
    GpuState& s = it->second;
    const double load = std::min(s.load_permille, 1000u) / kPermille;
    s.cur_hz = gated(g, s) ? 0 : governed<std::uint64_t>(g.available_hz, s.min_hz, s.max_hz, s.governor, load, 0);
  }
  return state;
}

}  // namespace energy::sim
