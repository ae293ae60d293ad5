// The sampling period against what the sensors can deliver.
//
//  - hwmon's update_interval (ms) is not a limit: in continuous mode (every
//    Jetson's) the mainline INA3221 driver returns the latest averaged result
//    without waiting for a new conversion (Linux "hwmon: (ina3221) Fix read
//    timeout issue", since about 5.4; L4T 34+ runs 5.10 and later). A period
//    shorter than update_interval only reads some results twice; with
//    `sensor_averaging: period` update_interval above the period (430 ms
//    for 100) is the normal case. What matters is the other way
//    round: an update_interval much shorter than the period makes every
//    reading a short snapshot, worth a notice when the chips are kept so.
//  - the time one sweep of every rail takes: a sweep must fit in half the
//    period, so lateness and marks' extra sweeps still fit. Refused at start
//    with a message naming the key and the smallest period that would work.
//  - the averaging a chip does that energyd does not set (an L4T 32
//    ina3221x chip averages as its device tree configures it; a hwmon chip
//    under `keep` as it was found): each reading is then the mean over a
//    fixed window, and a period longer than that window leaves part of
//    every period unseen (the simulated Nano on L4T 32, whose chips average
//    over 53.8 ms: run-to-run spread 1.37% at 100 ms, 0.15% at 50 ms).
//    energyd's default period is the longest multiple of 10 ms within the
//    shortest such window, at most 100 ms; a configured period longer than
//    the window is warned about at start and in `status`. Windows under
//    10 ms are snapshots (the notice above), not a reason to sample faster.
// Pure functions; the daemon calls them and logs.
#pragma once

#include <cstdint>
#include <string>

#include "energy/config.h"
#include "energy/rails.h"
#include "energy/result.h"

namespace energy::daemon {

// A sweep may use at most this share of the period.
constexpr int64_t kPeriodPerSweep = 2;
// Readings are "snapshots" when the chips average over at most this share of the period.
constexpr int64_t kSnapshotShare = 4;

// A duration in ns as milliseconds with three decimals ("0.430"), for the log.
std::string ms_text(int64_t ns);

// One line for the log when readings are snapshots of update_interval_ms
// inside a much longer period with `keep`; empty otherwise (also for 0: no
// hwmon update_interval, as on L4T 32).
std::string update_interval_notice(int64_t period_ms, int64_t update_interval_ms, SensorAveraging mode);
constexpr int64_t kDefaultPeriodMs = 100;
// Fixed averaging windows shorter than this are snapshots, not a period to follow.
constexpr int64_t kMinAveragingWindowMs = 10;

// The period the monitors' averaging asks for.
struct PeriodAdvice {
  int64_t window_ms = 0;  // the shortest fixed averaging window of a chip measuring a rail; 0: none
  std::string window_chip;
  int64_t recommended_ms = kDefaultPeriodMs;
  std::string reason;  // why recommended_ms, one sentence
};
PeriodAdvice advise_period(const SensorInventory& inv, SensorAveraging mode);
// The warning for a configured `period_ms` longer than the advice's window; empty when it is not.
std::string period_warning(int64_t period_ms, const PeriodAdvice& advice);

// median_sweep_ns over `sweeps` sweeps of `rails` rails.
Status check_period_against_sweep(int64_t period_ms, int64_t median_sweep_ns, int64_t sweeps, size_t rails);

}  // namespace energy::daemon
