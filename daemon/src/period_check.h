// The sampling period against what the sensors can deliver.
//
// Two limits, both refused at start with a message naming the key and the
// smallest period that would work:
//  - hwmon's update_interval (ms): the INA3221 driver waits for a fresh
//    conversion on every read, so a shorter period makes each read block
//    (jetson-sysfs.md section 1.6) and ticks are lost;
//  - the time one sweep of every rail takes: a sweep must fit in half the
//    period, so lateness and marks' extra sweeps still fit.
// Pure functions; the daemon calls them and logs.
#pragma once

#include <cstdint>
#include <string>

#include "energy/result.h"

namespace energy::daemon {

// A sweep may use at most this share of the period.
constexpr int64_t kPeriodPerSweep = 2;

Status check_period_against_update_interval(int64_t period_ms, int64_t update_interval_ms);
// median_sweep_ns over `sweeps` sweeps of `rails` rails.
Status check_period_against_sweep(int64_t period_ms, int64_t median_sweep_ns, int64_t sweeps, size_t rails);

}  // namespace energy::daemon
