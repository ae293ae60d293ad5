#include "period_check.h"

#include <cstdio>

#include "energy/time_source.h"

namespace energy::daemon {

std::string ms_text(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1e6);
  return buf;
}

std::string update_interval_notice(int64_t period_ms, int64_t update_interval_ms, SensorAveraging mode) {
  if (mode != SensorAveraging::kKeep || update_interval_ms <= 0) return {};
  if (update_interval_ms * kSnapshotShare > period_ms) return {};
  return "sensor_averaging is keep: the INA3221 chips average over " + std::to_string(update_interval_ms) +
         " ms (update_interval), so every " + std::to_string(period_ms) + " ms reading is a snapshot of those last " +
         std::to_string(update_interval_ms) +
         " ms and bursty loads are integrated less exactly; sensor_averaging: period makes each reading a mean "
         "over about one period";
}

Status check_period_against_sweep(int64_t period_ms, int64_t median_sweep_ns, int64_t sweeps, size_t rails) {
  if (median_sweep_ns * kPeriodPerSweep <= period_ms * kNsPerMs) return ok_status();
  int64_t minimum_ms = (median_sweep_ns * kPeriodPerSweep + kNsPerMs - 1) / kNsPerMs;
  return make_error(ErrorCode::kInvalid,
                    "sample_period_ms " + std::to_string(period_ms) +
                        " is shorter than the sensors can deliver: one sweep of " + std::to_string(rails) +
                        " rails takes " + ms_text(median_sweep_ns) + " ms (median of " + std::to_string(sweeps) +
                        " sweeps) and must fit in half the period; use at least " + std::to_string(minimum_ms) + " ms");
}

}  // namespace energy::daemon
