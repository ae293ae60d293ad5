// The power model's static part: a board's rails and the module components
// behind them (PowerTopology, built once from the BoardSpec), the effective
// frequencies the governors pick, and the rail levels - true power and bus
// voltage - a control state implies. Time, ripple and integrals belong to
// PowerModel (model.h); everything here is a pure function of its arguments.
//
// Components: one per CPU policy, one per GPU, CV, SOC and DDR.
//   CPU policy: P = idle_share x on/n + C f V(f)^2 load on, with C chosen so
//               that every core at f_max, load 1 gives cpu_dyn_max_mw;
//   GPU:        0 while rail-gated, else static + C f V(f)^2 load;
//   CV:         constant;
//   SOC:        idle + soc_dyn_max x (cpu_activity + gpu_activity) / 2;
//   DDR:        idle + ddr_dyn_max x max(cpu_activity, gpu_activity) x
//               dvfs_factor(EMC rate) over the EMC table (1 at its top, and
//               where the board's EMC is not modelled; emc.h);
// with V(f) linear from kVoltageMinRatio x V_max at the table's minimum to
// V_max at its maximum (a GPU's held at its floor below
// kGpuVoltageFloorPosition of the span), and activity = load x f / f_max (CPU: weighted by
// the share of online cores). Rails, by role (model_calibration.h):
//   components: the sum of the components their label names (the rail's
//               idle power is split among them by idle_weight());
//   constant:   the idle value;
//   system 5 V: idle + sys5v_dyn_max x max activity + the change of the rails
//               it feeds / kFeedEfficiency;
//   input:      idle + (the change of every module component and system
//               rail) / efficiency, i.e. sum / efficiency + a carrier base.
// So the idle state reproduces every rail's reference idle value exactly.
//
// Units: mW, mV, mA; kHz (CPU), Hz (GPU); load in per-mille.
// Thread-safety: pure functions; a built PowerTopology is immutable.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "energysim/board_spec.h"
#include "energysim/board_state.h"
#include "model_calibration.h"

namespace energy::sim {

// A load in permille (BoardState's load_permille) as a fraction: load / kPermille.
inline constexpr double kPermille = 1000.0;
inline constexpr double kNsPerMs = 1e6;
inline constexpr double kNsPerS = 1e9;

struct DynamicState;  // dynamics.h: sampled governor picks, trip caps, temperatures

// What drives the model: the board's settings as written through its files,
// the CPU load (fed from the host or pinned) and constant rail overrides.
struct ModelControls {
  BoardState board;                            // limits, governors, online CPUs, GPU loads; rails unused
  std::uint32_t cpu_load_permille = 0;         // busy share of every online CPU, 0..1000
  std::map<std::string, RailState> overrides;  // rail id -> constant value (no ripple)
  // Busy share of the busiest online CPU, 0..1000, which a sampled CPU
  // governor follows (schedutil takes the highest utilisation among a
  // policy's CPUs, A41): one busy thread on a 4-CPU board is load 250 and
  // peak 1000. A peak below cpu_load_permille counts as cpu_load_permille.
  // Power follows cpu_load_permille only.
  std::uint32_t cpu_peak_permille = 0;
};

// `controls.board` with cur_khz / cur_hz and the EMC rate (emc.h) set by the governors:
// performance -> max; powersave -> min; userspace -> setspeed (cpufreq; a GPU
// has no set_freq file and holds max); any other -> the lowest listed
// frequency >= min + load x (max - min), clamped to [min, max]. A GPU that is
// rail-gated at idle (spec.idle_gated) with railgate_enable 1 and load 0 is
// at 0 Hz.
// With `dyn` (PowerModel's dynamics), a sampled governor's pick replaces the
// load rule, trip caps lower max (and min), and fan_pwm is the dynamics'.
BoardState governed_state(const BoardSpec& spec, const ModelControls& controls, const DynamicState* dyn = nullptr);

struct Component {
  ComponentKind kind = ComponentKind::kSoc;
  int policy = -1;        // kCpu: cpufreq policy (its first CPU)
  std::vector<int> cpus;  // kCpu: the policy's CPUs
  std::string gpu;        // kGpu: devfreq name
  bool gated_at_idle = false;
  double f_min = 0;  // kCpu kHz / kGpu Hz: the table's ends
  double f_max = 0;
  double idle_mw = 0;    // in the idle state
  double static_mw = 0;  // kCpu: leakage with every CPU online; kGpu: ungated at load 0
  double dyn_max_mw = 0;
  int rail = -1;  // index into PowerTopology::rails; -1: no rail measures it
};

struct RailModel {
  std::string id;     // "1-0040:1"
  std::string label;  // may be empty
  RailRole role = RailRole::kConstant;
  bool disabled = false;
  double idle_mw = 0;
  double idle_mv = 0;
  double remainder_mw = 0;  // kComponents: idle power not given to a component
  int fed_from = -1;        // index of the system 5 V rail feeding it; -1: none
  std::vector<int> components;
};

struct PowerTopology {
  std::vector<RailModel> rails;  // every channel of every monitor, in spec order
  std::vector<Component> components;
  std::vector<int> total_rails;  // indices of spec.total_rails
  BoardCalibration calibration;
  std::size_t cpu_count = 0;
};

PowerTopology build_topology(const BoardSpec& spec);

// One rail's level while the controls hold: constant apart from the ripple.
struct RailLevel {
  double power_mw = 0;
  double bus_mv = 0;
  bool ripple = true;  // false for overrides and disabled channels
};

// Per rail, parallel to topology.rails. With `dyn`, clocks as governed_state()
// gives them and each CPU/GPU component's leakage at its temperature (thermal.h).
std::vector<RailLevel> rail_levels(const PowerTopology& topology, const BoardSpec& spec, const ModelControls& controls,
                                   const DynamicState* dyn = nullptr);

// (f / f_max) x (V(f) / V_max)^2: the dynamic power's share at frequency f,
// V linear in f over the table, not below its value at `floor_position`
// (a share of the span, 0: no floor).
double dvfs_factor(double f, double f_min, double f_max, double floor_position = 0.0);

}  // namespace energy::sim
