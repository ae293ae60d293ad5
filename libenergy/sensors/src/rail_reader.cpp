#include "energy/rail_reader.h"

#include <cerrno>

#include "energy/tick_path.h"

namespace energy {

RailReader::RailReader(const SysRoot& root, const RailInfo& rail) : root_(root), info_(rail) { open_files(); }

void RailReader::open_files() {
  voltage_ = AttrFile(root_, info_.voltage_file);
  current_ = AttrFile(root_, info_.current_file);
  power_ = info_.power_file.empty() ? AttrFile() : AttrFile(root_, info_.power_file);
}

ENERGY_TICK_PATH RailValue RailReader::read() {
  if (lost_) return read_lost();
  RailValue v = read_files();
  if (v.err == ENOENT || v.err == ENODEV || v.err == ENXIO || v.err == ESTALE) {
    lost_ = true;
    lost_errno_ = v.err;
    reads_while_lost_ = 0;
  }
  return v;
}

RailValue RailReader::read_lost() {
  if (++reads_while_lost_ % kRediscoverEvery != 0) return RailValue{0, 0, 0, lost_errno_};
  auto found = find_rail(root_, info_.device, info_.label);
  if (!found) return RailValue{0, 0, 0, lost_errno_};
  // The device tree's averaging does not change, and find_rail cannot know it.
  if (found->driver == MonitorDriver::kIna3221xIio) found->filter_ns = info_.filter_ns;
  info_ = *found;
  open_files();
  lost_ = false;
  ++rediscoveries_;
  return read();
}

ENERGY_TICK_PATH RailValue RailReader::read_files() {
  switch (info_.driver) {
    case MonitorDriver::kIna3221xIio: return read_with_power_file(1000);  // in_power<c>_input is mW
    case MonitorDriver::kIna3221Hwmon: return read_hwmon();
    case MonitorDriver::kIna238Hwmon: return read_with_power_file(1);  // power1_input is uW
  }
  return RailValue{0, 0, 0, EINVAL};
}

ENERGY_TICK_PATH RailLimits rail_limits(MonitorDriver driver) {
  constexpr int64_t kShuntFullScaleUv = 163'840;  // INA3221 and INA238 (ADCRANGE 0)
  constexpr int64_t kSmallestShuntMicroOhm = 1000;
  constexpr int64_t kMaxMa = kShuntFullScaleUv * 1000 / kSmallestShuntMicroOhm;
  constexpr int64_t kIna3221MaxMv = 26'000;
  constexpr int64_t kIna238MaxMv = 85'000;
  static_assert(kIna238MaxMv * kMaxMa < INT64_MAX / 1000, "mV x mA fits in int64 with room");
  switch (driver) {
    case MonitorDriver::kIna3221xIio:
      return RailLimits{kIna3221MaxMv, kMaxMa, -kIna3221MaxMv * kMaxMa / 1000, kIna3221MaxMv * kMaxMa / 1000, "mW"};
    case MonitorDriver::kIna3221Hwmon: return RailLimits{kIna3221MaxMv, kMaxMa, 0, 0, ""};
    case MonitorDriver::kIna238Hwmon: return RailLimits{kIna238MaxMv, kMaxMa, 0, kIna238MaxMv * kMaxMa, "uW"};
  }
  return RailLimits{};
}

[[gnu::cold]] RailValue RailReader::failed() {
  last_error_ = error_.describe();
  return RailValue{0, 0, 0, error_.sys_errno != 0 ? error_.sys_errno : EINVAL};
}

ENERGY_TICK_PATH bool RailReader::read_checked(AttrFile& file, int64_t min, int64_t max, const char* unit,
                                               int64_t& value) {
  if (!file.read_int(value, &error_)) return false;
  if (value >= min && value <= max) return true;
  error_ = check_range(value, file.label(), min, max, unit).error();
  return false;
}

// Drivers with a power file (IIO mW, INA238 uW): the power comes from one
// conversion, so it is the power; V and I are kept for display and may come
// from a neighbouring conversion.
ENERGY_TICK_PATH RailValue RailReader::read_with_power_file(int64_t unit_uw) {
  const RailLimits lim = rail_limits(info_.driver);
  int64_t p = 0, v = 0, i = 0;
  if (!read_checked(power_, lim.min_power, lim.max_power, lim.power_unit, p)) return failed();
  if (!read_checked(voltage_, 0, lim.max_mv, "mV", v)) return failed();
  if (!read_checked(current_, -lim.max_abs_ma, lim.max_abs_ma, "mA", i)) return failed();
  if (!last_error_.empty()) last_error_.clear();
  return RailValue{p * unit_uw, static_cast<int32_t>(v), static_cast<int32_t>(i), 0};
}

// mV x mA = uW exactly; both read back to back, each within rail_limits, so
// the product fits.
ENERGY_TICK_PATH RailValue RailReader::read_hwmon() {
  const RailLimits lim = rail_limits(info_.driver);
  int64_t v = 0, i = 0;
  if (!read_checked(voltage_, 0, lim.max_mv, "mV", v)) return failed();
  if (!read_checked(current_, -lim.max_abs_ma, lim.max_abs_ma, "mA", i)) return failed();
  if (!last_error_.empty()) last_error_.clear();
  return RailValue{v * i, static_cast<int32_t>(v), static_cast<int32_t>(i), 0};
}

}  // namespace energy
