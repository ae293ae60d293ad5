// INA3221 averaging arithmetic (TI SBOS576): the counts and conversion
// times the chip offers, the lag of its running mean, the update_interval
// the hwmon driver shows, and the setting energyd asks for under
// `sensor_averaging: period`. Pure functions of their arguments.
//
// Units: us, ms, ns as named. Thread-safety: pure functions.
#pragma once

#include <cstdint>

namespace energy {

// The averaging counts an INA3221 offers (TI SBOS576; hwmon `samples`).
inline constexpr int64_t kIna3221SampleCounts[] = {1, 4, 16, 64, 128, 256, 512, 1024};

// (N - 1) x T_c with T_c = update_interval / N: a running mean over N
// conversions. 0 for N <= 1 or an unknown (0) update_interval.
int64_t ina3221_filter_ns(int64_t samples, int64_t update_interval_ms);
// The same from the exact cycle, channels x 2 x conversion_us.
int64_t ina3221_filter_ns(int64_t samples, int64_t channels, int64_t conversion_us);
// update_interval as the hwmon driver shows it: channels x N x 2 x
// conversion_us, rounded to the millisecond; 0 when either is unknown (<= 0).
int64_t ina3221_update_interval_ms(int64_t samples, int64_t channels, int64_t conversion_us);

// The conversion times an INA3221 offers, per bus or shunt measurement (TI
// SBOS576); the hwmon driver sets both to one value through update_interval.
inline constexpr int64_t kIna3221ConversionTimesUs[] = {140, 204, 332, 588, 1100, 2116, 4156, 8244};

// The averaging a chip gets under `sensor_averaging: period`.
struct Ina3221Setting {
  int64_t samples = 0;             // averaging count N
  int64_t conversion_us = 0;       // one bus or shunt conversion
  int64_t update_interval_ms = 0;  // channels x N x 2 x conversion, rounded as the driver shows it
};

// For a chip with `channels` enabled channels: the shortest conversion time,
// and with it the smallest count, whose update_interval spans at least
// kFilterPeriods sampling periods (the longest setting if none does).
//
// Why four periods: between readings h apart, the trapezoid misses the
// curvature of the running mean, about h^2 / (8 x K) x each step of the
// load; with K >= 4 h that is under 1/30 of a step's h x dP, against
// h x dP / 2 for snapshot readings (docs/PERFORMANCE.md "Accuracy").
// Why the shortest conversion: the chip measures a channel's current during
// one shunt conversion of every cycle of channels x 2 conversions and is
// blind in between; a load that repeats in step with that cycle is measured
// at the same phases for seconds, and the mean misses the load's by up to
// the blind time over the load's period at each of its edges. At 140 us the
// blind time is 0.7 ms of a 0.84 ms cycle (3 channels) instead of 5.5 ms of
// 6.6 ms at the driver's 1.1 ms. 3 channels at 100 ms: 512 x 140 us, 430 ms.
constexpr int64_t kFilterPeriods = 4;
Ina3221Setting ina3221_setting_for_period(int64_t channels, int64_t period_ms);
// With the conversion time left as it is (the channel count unknown, or the
// chip refused a new update_interval): the smallest count whose
// update_interval spans kFilterPeriods periods, for a chip that now has
// `samples` and `update_interval_ms` (its cycle does not depend on N; the
// largest count if none does); `samples` when either is unknown.
int64_t ina3221_samples_for_period(int64_t samples, int64_t update_interval_ms, int64_t period_ms);

// One continuous-mode configuration register decoded (TI SBOS576: bits
// 14-12 enable channels 1-3, 11-9 the averaging count, 8-6 the bus and 5-3
// the shunt conversion time).
struct Ina3221Timing {
  int64_t channels = 0;
  int64_t samples = 1;
  int64_t bus_us = 0;
  int64_t shunt_us = 0;
};
Ina3221Timing decode_ina3221_config(uint16_t config);

}  // namespace energy
