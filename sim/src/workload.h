// The synthetic "inference" workload: a fixed amount of work in units, each
// needing gpu_megacycles_per_unit x 1e6 GPU cycles (time cycles / f_gpu)
// plus a fixed memory-bound part that does not speed up with the clock.
// While a unit runs, the GPU load is 1000 per-mille. So the runtime plateaus
// at high f_gpu, power grows ~ f V(f)^2, and energy per unit has its minimum
// at a moderate frequency, as measured on Jetsons.
//
// Patterns: constant - every unit back to back; step - idle, one busy block,
// idle (kStepIdleNs each side); bursty - bursts of kBurstUnits units with
// kBurstGapNs idle gaps.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "energy/result.h"

namespace energy::sim {

enum class WorkloadPattern { kConstant, kStep, kBursty };

Result<WorkloadPattern> parse_pattern(std::string_view name);

struct WorkloadParams {
  std::int64_t units = 0;
  WorkloadPattern pattern = WorkloadPattern::kConstant;
  double gpu_megacycles_per_unit = 4.0;    // 6.4 ms at 624.75 MHz (Orin Nano's top)
  std::int64_t memory_us_per_unit = 4000;  // memory-bound part, independent of f_gpu
  std::string gpu;                         // devfreq name; empty: the board's first GPU
};

inline constexpr std::int64_t kStepIdleNs = 300'000'000;
inline constexpr std::int64_t kBurstUnits = 4;
inline constexpr std::int64_t kBurstGapNs = 50'000'000;
inline constexpr std::uint32_t kBusyPermille = 1000;

// cycles / f + the memory part, in ns; kInvalid when f is 0 (GPU off).
Result<std::int64_t> unit_duration_ns(const WorkloadParams& params, std::uint64_t gpu_hz);

// One step of the plan: `units` busy units, or (units == 0) an idle pause.
struct WorkloadStep {
  std::int64_t units = 0;
  std::int64_t idle_ns = 0;
};
std::vector<WorkloadStep> workload_steps(const WorkloadParams& params);

}  // namespace energy::sim
