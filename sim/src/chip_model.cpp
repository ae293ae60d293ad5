#include "energysim/chip_model.h"

#include <algorithm>

namespace energy::sim {
namespace {

// Register steps -> value, clamped to the 13-bit signed register range.
std::int64_t quantise(std::int64_t value, std::int32_t lsb) {
  const std::int64_t steps =
      std::clamp<std::int64_t>(div_round_closest(value, lsb), kIna3221RegisterMin, kIna3221RegisterMax);
  return steps * lsb;
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
