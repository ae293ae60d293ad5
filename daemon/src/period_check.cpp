#include "period_check.h"

#include <cstdio>

#include "energy/clock.h"

namespace energy::daemon {
namespace {

std::string ms_text(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1e6);
  return buf;
}

}  // namespace

Status check_period_against_update_interval(int64_t period_ms, int64_t update_interval_ms) {
  if (update_interval_ms <= period_ms) return ok_status();
  return make_error(ErrorCode::kInvalid,
                    "sample_period_ms " + std::to_string(period_ms) +
                        " is shorter than the sensors can deliver: their update_interval is " +
                        std::to_string(update_interval_ms) +
                        " ms (each read would wait for a new conversion); use at least " +
                        std::to_string(update_interval_ms) + " ms or lower the sensors' update_interval");
}

Status check_period_against_sweep(int64_t period_ms, int64_t median_sweep_ns, int64_t sweeps, size_t rails) {
  if (median_sweep_ns * kPeriodPerSweep <= period_ms * kNsPerMs) return ok_status();
  int64_t minimum_ms = (median_sweep_ns * kPeriodPerSweep + kNsPerMs - 1) / kNsPerMs;
  return make_error(ErrorCode::kInvalid,
                    "sample_period_ms " + std::to_string(period_ms) +
                        " is shorter than the sensors can deliver: one sweep of " + std::to_string(rails) +
                        " rails takes " + ms_text(median_sweep_ns) + " ms (median of " + std::to_string(sweeps) +
                        " sweeps) and must fit in half the period; use at least " + std::to_string(minimum_ms) +
                        " ms");
}

}  // namespace energy::daemon
