#include "workload.h"

#include <algorithm>
#include <cmath>

namespace energy::sim {

Result<WorkloadPattern> parse_pattern(std::string_view name) {
  if (name == "constant") return WorkloadPattern::kConstant;
  if (name == "step") return WorkloadPattern::kStep;
  if (name == "bursty") return WorkloadPattern::kBursty;
  return make_error(ErrorCode::kInvalid, "pattern '" + std::string(name) + "' is not constant, step or bursty");
}

Result<std::int64_t> unit_duration_ns(const WorkloadParams& params, std::uint64_t gpu_hz) {
  if (gpu_hz == 0) return make_error(ErrorCode::kInvalid, "the GPU runs at 0 Hz (rail-gated?)");
  const double compute_ns = params.mix.gpu_megacycles * 1e6 / static_cast<double>(gpu_hz) * 1e9;
  return std::llround(compute_ns + params.mix.memory_us * 1000);
}

std::vector<WorkloadStep> workload_steps(const WorkloadParams& params) {
  std::vector<WorkloadStep> steps;
  if (params.units <= 0) return steps;
  switch (params.pattern) {
    case WorkloadPattern::kConstant: return {WorkloadStep{params.units, 0}};
    case WorkloadPattern::kStep: return {{0, kStepIdleNs}, {params.units, 0}, {0, kStepIdleNs}};
    case WorkloadPattern::kBursty: break;
  }
  for (std::int64_t done = 0; done < params.units; done += kBurstUnits) {
    if (done > 0) steps.push_back(WorkloadStep{0, kBurstGapNs});
    steps.push_back(WorkloadStep{std::min(kBurstUnits, params.units - done), 0});
  }
  return steps;
}

std::vector<std::int64_t> batch_sizes(std::int64_t units, std::int64_t batch) {
  std::vector<std::int64_t> out;
  const std::int64_t size = std::max<std::int64_t>(1, batch);
  for (std::int64_t done = 0; done < units; done += size) out.push_back(std::min(size, units - done));
  return out;
}

}  // namespace energy::sim
