// BoardState: the values a simulated board reports right now - rail
// voltages and currents, CPU and GPU frequencies, temperatures. File
// contents in a Tree are functions of a BoardState, so a FUSE server can
// change the state and every later read sees it.
//
// Units: mV and mA as the monitor "truly" measures them (the tree applies
// each chip's quantisation when it formats a file), kHz for CPUs, Hz for
// GPUs, milli-degC for thermal zones, per-mille for GPU load.
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

struct CpuPolicyState {
  std::uint32_t min_khz = 0;
  std::uint32_t max_khz = 0;
  std::uint32_t cur_khz = 0;
  std::string governor;
};

struct GpuState {
  std::uint64_t min_hz = 0;
  std::uint64_t max_hz = 0;
  std::uint64_t cur_hz = 0;
  std::string governor;
  std::uint32_t load_permille = 0;  // 0..1000
};

struct BoardState {
  std::map<std::string, RailState> rails;  // key: rail_id(), e.g. "1-0040:1"
  std::map<int, CpuPolicyState> policies;  // key: policy number (first CPU)
  std::map<int, bool> cpu_online;          // key: CPU number
  std::map<std::string, GpuState> gpus;    // key: devfreq name
  std::vector<std::int32_t> thermal_mc;    // parallel to BoardSpec::thermal_zones
  std::uint32_t fan_pwm = 0;               // 0..255
};

// The board at rest (assumption A23): rails at their idle values, CPUs online
// at their floor frequency, GPUs at their lowest frequency (0 when rail-gated),
// idle temperatures.
BoardState idle_state(const BoardSpec& spec);

// Sets one rail, named by its label ("VDD_IN") or its rail id ("1-0041:2").
// kNotFound when nothing matches (the message lists the rails); kInvalid when
// a label names several channels (e.g. AGX Orin L4T 35 "NC") or a disabled one.
Status set_rail(BoardState& state, const BoardSpec& spec, std::string_view name, RailState value);

}  // namespace energy::sim
