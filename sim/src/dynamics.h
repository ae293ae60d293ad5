// The board's own dynamics, advanced by PowerModel on a model-time grid:
// the load-following governors' picks (CPU schedutil-like, GPU
// nvhost_podgov-like), zone temperatures, the leakage they imply, passive
// trip caps and the fan. Every decision is a pure function of the model's
// state at a grid instant, so runs are repeatable and each change is a model
// event (ground truth stays piecewise constant, see model.h).
//
// Units: degC for temperatures, kHz (CPU), Hz (GPU), mW.
// Thread-safety: plain data and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "energysim/board_spec.h"
#include "energysim/board_state.h"

namespace energy::sim {

// Grid periods (assumptions A40-A42 in sim/ASSUMPTIONS.md).
inline constexpr std::int64_t kCpuSampleNs = 20LL * 1000000;      // schedutil-like sampling
inline constexpr std::int64_t kGpuSampleNs = 50LL * 1000000;      // podgov-like sampling
inline constexpr std::int64_t kThermalStepNs = 1000LL * 1000000;  // thermal, trip and fan step
// On the live board a governor sample runs up to this late (seeded,
// uniform) and the next is due a period after it, so the CPU and GPU grids
// drift (A40) and never stay in phase with a reader's own period (energyd's
// 100 ms would alias them). Model-time studies keep exact grids (ModelOptions).
inline constexpr std::int64_t kGovernorLateNs = 1LL * 1000000;

struct DynamicState {
  std::map<int, std::uint32_t> cpu_khz;             // governor pick per policy; absent until the first sample
  std::map<std::string, std::uint64_t> gpu_hz;      // governor pick per GPU; absent until the first sample
  std::map<int, std::uint32_t> cpu_cap_khz;         // passive-trip cap per policy; absent: none
  std::map<std::string, std::uint64_t> gpu_cap_hz;  // passive-trip cap per GPU; absent: none
  std::vector<double> zone_c;                       // parallel to BoardSpec::thermal_zones
  double ambient_offset_c = 0;                      // ambient above the reference's idle (0: as published)
  double cpu_rise_c = 0;                            // hottest CPU zone above its idle: drives CPU leakage
  double gpu_rise_c = 0;                            // hottest GPU zone above its idle: drives GPU leakage
  double full_module_mw = 0;                        // the module's, CPUs' and GPUs' power above idle at full
  double full_cpu_mw = 0;                           // load with every clock at the top: the scale of the
  double full_gpu_mw = 0;                           // thermal resistances (thermal.h)
  std::uint32_t fan_pwm = 0;                        // 0..255
  bool fan_manual = false;                          // a pwm write holds; else the fan curve drives it
};

}  // namespace energy::sim
