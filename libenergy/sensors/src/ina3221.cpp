#include "energy/ina3221.h"

#include "energy/time_source.h"

namespace energy {

Ina3221Timing decode_ina3221_config(uint16_t config) {
  Ina3221Timing t;
  t.channels = ((config >> 14) & 1) + ((config >> 13) & 1) + ((config >> 12) & 1);
  t.samples = kIna3221SampleCounts[(config >> 9) & 7];
  t.bus_us = kIna3221ConversionTimesUs[(config >> 6) & 7];
  t.shunt_us = kIna3221ConversionTimesUs[(config >> 3) & 7];
  return t;
}

int64_t ina3221_filter_ns(int64_t samples, int64_t update_interval_ms) {
  if (samples <= 1 || update_interval_ms <= 0) return 0;
  return (samples - 1) * update_interval_ms * kNsPerMs / samples;
}

int64_t ina3221_filter_ns(int64_t samples, int64_t channels, int64_t conversion_us) {
  if (samples <= 1 || channels <= 0 || conversion_us <= 0) return 0;
  return (samples - 1) * channels * 2 * conversion_us * 1000;
}

int64_t ina3221_update_interval_ms(int64_t samples, int64_t channels, int64_t conversion_us) {
  if (channels <= 0 || conversion_us <= 0) return 0;
  return (channels * samples * 2 * conversion_us + 500) / 1000;
}

Ina3221Setting ina3221_setting_for_period(int64_t channels, int64_t period_ms) {
  const int64_t want_us = kFilterPeriods * period_ms * 1000;
  Ina3221Setting best;
  for (int64_t ct : kIna3221ConversionTimesUs) {
    for (int64_t n : kIna3221SampleCounts) {
      best = Ina3221Setting{n, ct, ina3221_update_interval_ms(n, channels, ct)};
      if (channels * n * 2 * ct >= want_us) return best;
    }
  }
  return best;
}

int64_t ina3221_samples_for_period(int64_t samples, int64_t update_interval_ms, int64_t period_ms) {
  if (samples <= 0 || update_interval_ms <= 0) return samples;
  const int64_t cycle_ns = update_interval_ms * kNsPerMs / samples;
  int64_t best = 0;
  for (int64_t n : kIna3221SampleCounts) {
    best = n;
    if (n * cycle_ns >= kFilterPeriods * period_ms * kNsPerMs) break;
  }
  return best;
}

}  // namespace energy
