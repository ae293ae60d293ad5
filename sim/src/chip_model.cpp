#include "energysim/chip_model.h"

#include <algorithm>
#include <cstdlib>

namespace energy::sim {
namespace {

// Register steps -> value, clamped to the 13-bit signed register range.
std::int64_t quantise(std::int64_t value, std::int32_t lsb) {
  const std::int64_t steps =
      std::clamp<std::int64_t>(div_round_closest(value, lsb), kIna3221RegisterMin, kIna3221RegisterMax);
  return steps * lsb;
}

constexpr int kSampleCounts[] = {1, 4, 16, 64, 128, 256, 512, 1024};
constexpr std::int32_t kConversionTimesUs[] = {140, 204, 332, 588, 1100, 2116, 4156, 8244};

// The table entry closest to `value`; ties go to the smaller one (find_closest()).
template <typename T, std::size_t N>
T closest(const T (&table)[N], std::int64_t value) {
  T best = table[0];
  for (T entry : table) {
    if (std::abs(value - entry) < std::abs(value - best)) best = entry;
  }
  return best;
}

constexpr std::int64_t kFullScaleShuntUv = std::int64_t{kIna3221RegisterMax} * kIna3221ShuntLsbUv;  // 163800

}  // namespace

std::int64_t div_round_closest(std::int64_t n, std::int64_t d) { return n >= 0 ? (n + d / 2) / d : (n - d / 2) / d; }

std::int32_t ina3221_bus_mv(std::int32_t true_mv) {
  return static_cast<std::int32_t>(quantise(true_mv, kIna3221BusLsbMv));
}

std::int32_t ina3221_shunt_uv(std::int32_t true_ma, std::int64_t shunt_uohm) {
  const std::int64_t true_nv = std::int64_t{true_ma} * shunt_uohm;  // mA x uOhm = nV
  return static_cast<std::int32_t>(quantise(div_round_closest(true_nv, 1000), kIna3221ShuntLsbUv));
}

std::int32_t ina3221_current_ma(std::int64_t shunt_uv, std::int64_t shunt_uohm) {
  return static_cast<std::int32_t>(div_round_closest(shunt_uv * 1000, shunt_uohm));
}

std::int32_t ina3221_update_interval_ms(int enabled_channels, int samples) {
  const std::int64_t us = std::int64_t{enabled_channels} * samples * kIna3221ProbeConversionUs;
  return static_cast<std::int32_t>(div_round_closest(us, 1000));
}

std::int32_t ina3221_update_interval_ms(int enabled_channels, int samples, std::int32_t conversion_us) {
  const std::int64_t us = std::int64_t{enabled_channels} * samples * 2 * conversion_us;
  return static_cast<std::int32_t>(div_round_closest(us, 1000));
}

int ina3221_closest_samples(std::int64_t requested) { return closest(kSampleCounts, requested); }

std::int32_t ina3221_conversion_us_for_interval(std::int64_t interval_ms, int enabled_channels, int samples) {
  const std::int64_t divisor = std::max<std::int64_t>(1, std::int64_t{enabled_channels} * samples);
  return closest(kConversionTimesUs, div_round_closest(interval_ms * 1000 / 2, divisor));
}

std::int32_t ina3221_bus_mv_from_uv(std::int64_t bus_uv) {
  return static_cast<std::int32_t>(quantise(div_round_closest(bus_uv, 1000), kIna3221BusLsbMv));
}

std::int32_t ina3221_shunt_uv_from_na(std::int64_t current_na, std::int64_t shunt_uohm) {
  const std::int64_t true_uv = div_round_closest(current_na * shunt_uohm, 1000000000);  // nA x uOhm = fV
  return static_cast<std::int32_t>(quantise(true_uv, kIna3221ShuntLsbUv));
}

std::int32_t ina3221_full_scale_ma(std::int64_t shunt_uohm) {
  return ina3221_current_ma(kFullScaleShuntUv, shunt_uohm);
}

std::int64_t ina3221x_power_mw(std::int32_t bus_mv, std::int32_t current_ma) {
  return std::int64_t{bus_mv} * current_ma / 1000;  // C++ division truncates toward zero, like the driver
}

std::int64_t ina238_power_uw(std::int32_t bus_mv, std::int32_t current_ma) { return std::int64_t{bus_mv} * current_ma; }

std::int64_t ina238_shunt_mv(std::int32_t current_ma, std::int64_t shunt_uohm) {
  return div_round_closest(std::int64_t{current_ma} * shunt_uohm, 1000000);
}

}  // namespace energy::sim
