// Chip models: how each simulated power monitor turns the true bus voltage
// and current into the integers its Linux driver prints. Pure functions.
//
// INA3221 (TI SBOS576; mainline drivers/hwmon/ina3221.c): 13-bit signed
// registers, bus LSB 8 mV, shunt LSB 40 uV, both rounded to the nearest step
// and clamped to full scale; current = DIV_ROUND_CLOSEST(shunt_nV, shunt_uOhm)
// in mA. So 5000 mV and 1000 mA through a 5 mOhm shunt (5000 uV = 125 LSB)
// are reported exactly; 1003 mA is reported as 1000 mA.
//
// INA3221x (L4T 32 staging IIO driver): the simulator reports the state's mV
// and mA unchanged (assumption A9) and power as trunc(mV * mA / 1000) mW.
//
// INA238 (mainline ina238): reported unquantised (assumption A10): bus mV,
// current mA, power uW = mV * mA, shunt mV = round(mA * uOhm / 1e6).
#pragma once

#include <cstdint>

namespace energy::sim {

inline constexpr std::int32_t kIna3221BusLsbMv = 8;
inline constexpr std::int32_t kIna3221ShuntLsbUv = 40;
inline constexpr std::int32_t kIna3221RegisterMax = 4095;  // 13-bit signed, after >> 3
inline constexpr std::int32_t kIna3221RegisterMin = -4096;
// Probe configuration of the mainline driver (0x7127): 1 sample, 1100 us bus
// + 1100 us shunt conversion per channel.
inline constexpr int kIna3221ProbeSamples = 1;
inline constexpr std::int32_t kIna3221ProbeConversionUs = 1100 + 1100;

// Rounds n / d to the nearest integer, halves away from zero (the kernel's
// DIV_ROUND_CLOSEST). Precondition: d > 0.
std::int64_t div_round_closest(std::int64_t n, std::int64_t d);

// Bus voltage as in<c>_input reports it: the 8 mV register step.
std::int32_t ina3221_bus_mv(std::int32_t true_mv);
// Shunt voltage as in<c+3>_input reports it: current x shunt on the 40 uV step.
std::int32_t ina3221_shunt_uv(std::int32_t true_ma, std::int64_t shunt_uohm);
// Current as curr<c>_input reports it, from a (quantised) shunt voltage.
std::int32_t ina3221_current_ma(std::int64_t shunt_uv, std::int64_t shunt_uohm);
// update_interval in ms: round(channels x samples x conversion time).
std::int32_t ina3221_update_interval_ms(int enabled_channels, int samples);
// The same for a conversion time per bus and per shunt conversion.
std::int32_t ina3221_update_interval_ms(int enabled_channels, int samples, std::int32_t conversion_us);
// What a write of `samples` selects: the closest averaging count the chip has
// (1, 4, 16, 64, 128, 256, 512, 1024), as the mainline driver's find_closest().
int ina3221_closest_samples(std::int64_t requested);
// What a write of `update_interval` selects: the chip's conversion time
// (140 ... 8244 us) closest to interval / (2 x channels x samples).
std::int32_t ina3221_conversion_us_for_interval(std::int64_t interval_ms, int enabled_channels, int samples);

// Live readings come from window averages in finer units (uV, nA); these
// quantise them as the register does. Equal to the functions above for
// whole mV / mA (x1000 / x1000000).
std::int32_t ina3221_bus_mv_from_uv(std::int64_t bus_uv);
std::int32_t ina3221_shunt_uv_from_na(std::int64_t current_na, std::int64_t shunt_uohm);
// Full-scale current for the alert-limit registers' reset value (163800 uV).
std::int32_t ina3221_full_scale_ma(std::int64_t shunt_uohm);

// in_power<c>_input of the L4T 32 IIO driver: trunc(mV * mA / 1000).
std::int64_t ina3221x_power_mw(std::int32_t bus_mv, std::int32_t current_ma);

// power1_input of ina238: uW.
std::int64_t ina238_power_uw(std::int32_t bus_mv, std::int32_t current_ma);
// in0_input of ina238: shunt voltage in mV, rounded.
std::int64_t ina238_shunt_mv(std::int32_t current_ma, std::int64_t shunt_uohm);

}  // namespace energy::sim
