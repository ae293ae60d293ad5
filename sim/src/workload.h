// The synthetic "inference" workload: a number of items (inferences), each
// costing the parts of a WorkloadMix (study.h: GPU cycles, memory time, CPU
// cycles on a number of threads), run in batches that add a fixed cost each.
// The default mix - 4 GPU megacycles and 4000 us of memory-bound time per
// item, batch 1, no CPU part - is the original GPU-only workload: the GPU
// load is 1000 per-mille while an item runs and the CPU load is left alone.
//
// Patterns: constant - every item back to back; step - idle, one busy block,
// idle (kStepIdleNs each side); bursty - bursts of kBurstUnits items with
// kBurstGapNs idle gaps.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "energy/result.h"
#include "study.h"

namespace energy::sim {

enum class WorkloadPattern { kConstant, kStep, kBursty };

Result<WorkloadPattern> parse_pattern(std::string_view name);

struct WorkloadParams {
  std::int64_t units = 0;  // items (inferences)
  WorkloadPattern pattern = WorkloadPattern::kConstant;
  WorkloadMix mix;         // per item; default: 4 GPU megacycles + 4000 us memory
  std::int64_t batch = 1;  // items per batch, >= 1
  std::string gpu;         // devfreq name; empty: the board's first GPU
};

inline constexpr std::int64_t kStepIdleNs = 300'000'000;
inline constexpr std::int64_t kBurstUnits = 4;
inline constexpr std::int64_t kBurstGapNs = 50'000'000;
inline constexpr std::uint32_t kBusyPermille = kGpuBusyPermille;

// One item's GPU part: cycles / f + the memory part, in ns (batch 1, Nano
// units); kInvalid when f is 0 (GPU off).
Result<std::int64_t> unit_duration_ns(const WorkloadParams& params, std::uint64_t gpu_hz);

// One step of the plan: `units` busy items, or (units == 0) an idle pause.
struct WorkloadStep {
  std::int64_t units = 0;
  std::int64_t idle_ns = 0;
};
std::vector<WorkloadStep> workload_steps(const WorkloadParams& params);

// The batch sizes a busy step of `units` items runs as: full batches, then the rest.
std::vector<std::int64_t> batch_sizes(std::int64_t units, std::int64_t batch);

}  // namespace energy::sim
