// The load-following governors as DVFS runs them (sim/README.md
// "Governors"), one sample at a time. PowerModel calls them on their grids
// (kCpuSampleNs, kGpuSampleNs) with the busy share of the window just ended
// and keeps the pick in DynamicState; governed_state() (model_power.h) then
// clamps it to the written limits and the trip caps. performance,
// powersave and userspace are not sampled: they hold as written.
//
// CPU (schedutil-like): next = lowest table frequency >= 1.25 x util x max.
// GPU (nvhost_podgov-like), util = the window's busy share x max / cur
//   (capped at 1: a load is the demand at the top clock, so a slower clock
//   is busier and a constant load settles where util meets the target):
//   util >= 0.9 -> up; util below the target load
//   (0.75; Orin 0.9) -> down to the lowest frequency >= cur x util / target;
//   in between: hold.
// "Up" is straight to the pick, except on Orin (tegra234), whose
// conservative profile climbs at most a share of the table's span per
// sample (at least one step), which keeps it off the top clock longer after
// each gap, as Orin NX's power capping does (A42).
//
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "dynamics.h"
#include "model_power.h"

namespace energy::sim {

// The lowest listed frequency >= target within [min, max]; max if none
// (every load-following pick: CPU, GPU and the memory clock).
template <typename Freq>
Freq lowest_at_least(const std::vector<Freq>& table, Freq min, Freq max, double target) {
  for (Freq f : table) {
    if (f >= min && f <= max && static_cast<double>(f) >= target - 1e-6) return f;
  }
  return max;
}

struct GovernorProfile {
  double cpu_climb = 1.0;  // largest rise per sample, share of the table's span (1: unlimited)
  double gpu_climb = 1.0;
  double gpu_target_load = 0.75;  // podgov: below it, down to cur x util / it
};

GovernorProfile governor_profile(const BoardSpec& spec);

// `governed`: the clocks running now (governed_state with the current dynamics).
void cpu_governor_step(const BoardSpec& spec, const BoardState& governed, double util, DynamicState& dyn);
// `util`: per GPU devfreq name, the busy share of the window, 0..1.
void gpu_governor_step(const BoardSpec& spec, const BoardState& governed, const std::map<std::string, double>& util,
                       DynamicState& dyn);

}  // namespace energy::sim
