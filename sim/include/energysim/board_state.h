// BoardState: the values a simulated board reports right now - rail
// voltages and currents, CPU and GPU frequencies, temperatures. File
// contents in a Tree are functions of a BoardState, so a FUSE server can
// change the state and every later read sees it.
//
// Units: mV and mA as the monitor "truly" measures them (the tree applies
// each chip's quantisation when it formats a file), kHz for CPUs, Hz for
// GPUs, milli-degC for thermal zones, per-mille for GPU load, us for
// conversion times.
//
// The live simulator keeps the writable part (limits, governors, online
// CPUs, settings) here too: a write to a tree file changes a BoardState, and
// the power model derives the effective frequencies and rail values from it.
//
// Thread-safety: a plain value; readers and a writer must synchronise.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "energy/result.h"
#include "energysim/board_spec.h"

namespace energy::sim {

struct RailState {
  std::int32_t bus_mv = 0;
  std::int32_t current_ma = 0;
};

// A clock domain's residency counters since boot (cpufreq stats, devfreq
// trans_stat): time per listed frequency, parallel to the domain's table
// (BoardSpec), and the transitions between them. Filled by the live board
// up to each read's instant; empty in a static tree (the files then show
// zero time, see add_cpufreq()).
struct ClockStats {
  std::vector<std::uint64_t> time_ns;      // per table entry
  std::vector<std::uint64_t> transitions;  // row-major: [from * size + to]
  std::uint64_t total_transitions = 0;
  std::size_t last = 0;  // table index of the last frequency set
};

struct CpuPolicyState {
  std::uint32_t min_khz = 0;
  std::uint32_t max_khz = 0;
  std::uint32_t cur_khz = 0;
  std::string governor;
  std::uint32_t setspeed_khz = 0;  // userspace governor's target; 0 = none written
  ClockStats stats;
};

struct GpuState {
  std::uint64_t min_hz = 0;
  std::uint64_t max_hz = 0;
  std::uint64_t cur_hz = 0;
  std::string governor;
  std::uint32_t load_permille = 0;  // 0..1000
  bool railgate_enabled = true;     // nvgpu railgate_enable
  ClockStats stats;
};

// The memory clock (EMC), Hz. `rate_hz` is the effective rate (the EMC
// governor's pick, sim/src/emc.h); a pin holds `pinned_hz` while `locked`
// (bpmp mrq_rate_locked = 1, T210 override clk_state = 1). Thor's devfreq
// `bwmgr` pins through min_hz / max_hz / governor as a GPU devfreq does.
struct EmcState {
  std::uint64_t min_hz = 0;
  std::uint64_t max_hz = 0;
  std::uint64_t rate_hz = 0;
  std::uint64_t pinned_hz = 0;  // last rate written (bpmp `rate`, T210 clk_update_rate); 0 = none
  bool locked = false;
  std::string governor;  // Thor devfreq only
};

// Conversion settings of a mainline INA3221 (hwmon `samples`, and the
// conversion time behind `update_interval`); probe values by default.
struct MonitorConfig {
  int samples = 1;
  std::int32_t conversion_us = 1100;  // per bus and per shunt conversion
};

struct BoardState {
  std::map<std::string, RailState> rails;               // key: rail_id(), e.g. "1-0040:1"
  std::map<int, CpuPolicyState> policies;               // key: policy number (first CPU)
  std::map<int, bool> cpu_online;                       // key: CPU number
  std::map<std::string, GpuState> gpus;                 // key: devfreq name
  std::vector<std::int32_t> thermal_mc;                 // parallel to BoardSpec::thermal_zones
  std::uint32_t fan_pwm = 0;                            // 0..255
  EmcState emc;                                         // all zero when the board's EMC is not modelled
  std::map<std::string, MonitorConfig> monitor_config;  // key: device name "1-0040" (INA3221 hwmon only)
  std::map<std::string, std::string> settings;          // plain settings written since boot, key chosen by the tree
};

// The board at rest (assumption A23): rails at their idle values, CPUs online
// at their floor frequency, GPUs at their lowest frequency (0 when rail-gated),
// idle temperatures, the EMC at its lowest rate, unlocked.
BoardState idle_state(const BoardSpec& spec);

// The rail id of a rail named by its label ("VDD_IN") or its rail id
// ("1-0041:2"). kNotFound when nothing matches (the message lists the
// rails); kInvalid when a label names several channels (e.g. AGX Orin L4T 35
// "NC") or a disabled one.
Result<std::string> resolve_rail(const BoardSpec& spec, std::string_view name);

// Sets one rail named as resolve_rail() takes it.
Status set_rail(BoardState& state, const BoardSpec& spec, std::string_view name, RailState value);

}  // namespace energy::sim
