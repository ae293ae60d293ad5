#include "period_check.h"

#include <algorithm>
#include <cstdio>

#include "energy/time_source.h"

namespace energy::daemon {
namespace {

std::string chip_averaging_source(const SensorInventory& inv, const std::string& device) {
  for (const auto& c : inv.chips) {
    if (c.device == device && !c.averaging.empty()) return c.averaging;
  }
  return "as found";
}

}  // namespace

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

PeriodAdvice advise_period(const SensorInventory& inv, SensorAveraging mode) {
  PeriodAdvice a;
  for (const auto& chip : inv.chips) {
    bool fixed = chip.driver == MonitorDriver::kIna3221xIio ||
                 (chip.driver == MonitorDriver::kIna3221Hwmon && mode == SensorAveraging::kKeep);
    if (!fixed || chip.update_interval_ms < kMinAveragingWindowMs) continue;
    bool measures = false;
    for (const auto& r : inv.rails) measures |= r.device == chip.device;
    if (!measures || (a.window_ms != 0 && chip.update_interval_ms >= a.window_ms)) continue;
    a.window_ms = chip.update_interval_ms;
    a.window_chip = chip.device;
  }
  if (a.window_ms == 0) {
    a.reason = "no monitor averages over a fixed window energyd cannot set";
    return a;
  }
  a.recommended_ms = std::min<int64_t>(kDefaultPeriodMs, a.window_ms / 10 * 10);
  a.reason = "the monitor " + a.window_chip + " averages each reading over " + std::to_string(a.window_ms) + " ms (" +
             chip_averaging_source(inv, a.window_chip) + ")";
  return a;
}

std::string period_warning(int64_t period_ms, const PeriodAdvice& advice) {
  if (advice.window_ms == 0 || period_ms <= advice.window_ms) return {};
  return "sample_period_ms " + std::to_string(period_ms) + " is longer than the " + std::to_string(advice.window_ms) +
         " ms the monitor " + advice.window_chip +
         " averages each reading over: part of every period is never seen, and runs spread more; use at most " +
         std::to_string(advice.recommended_ms) + " ms (or leave sample_period_ms unset)";
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
