#include "energy/uncertainty.h"

#include <cmath>

namespace energy {
namespace {

// INA3221: gain error 0.25 % max, shunt offset +-80 uV max (TI INA3221
// datasheet, Electrical Characteristics; /work/shared/reference/jetson-sysfs.md
// section 1.6).
constexpr double kIna3221GainError = 0.0025;
constexpr double kIna3221OffsetUv = 80.0;
// INA238: gain error +-0.1 % max, shunt offset +-5 uV max at ADCRANGE 0
// (+-163.84 mV, the kernel driver's default) (TI INA238 datasheet SLYS025B,
// Features and Electrical Characteristics).
constexpr double kIna238GainError = 0.001;
constexpr double kIna238OffsetUv = 5.0;
// Assumptions, not board data: the reference boards' data
// (jetson-boards.yaml) gives shunt values but no tolerance. 1 % is the
// common grade of current-sense resistors; 5 mOhm is the shunt of 16 of its
// 18 listed channels (one has 1 mOhm, which would make the offset part 5x).
constexpr double kShuntTolerance = 0.01;
constexpr double kAssumedShuntUohm = 5000.0;

}  // namespace

MonitorCalibration calibration_for_driver(const std::string& driver) {
  if (driver == "ina238") return {kIna238GainError, kIna238OffsetUv, kAssumedShuntUohm, kShuntTolerance};
  return {kIna3221GainError, kIna3221OffsetUv, kAssumedShuntUohm, kShuntTolerance};
}

double mean_bus_mv(const std::vector<PowerPoint>& points, EnergyWindow w) {
  double sum = 0;
  int64_t n = 0;
  for (const auto& p : points) {
    if (!p.valid || p.voltage_mv <= 0 || p.t_ns < w.begin_ns || p.t_ns > w.end_ns) continue;
    sum += static_cast<double>(p.voltage_mv);
    ++n;
  }
  return n > 0 ? sum / static_cast<double>(n) : kAssumedBusMv;
}

double calibration_bound_uj(const MonitorCalibration& c, double energy_uj, double bus_mv, double integrated_ns) {
  double scale_uj = (c.gain_error + c.shunt_tolerance) * std::abs(energy_uj);
  double offset_uj = c.offset_current_ma() * bus_mv * integrated_ns / 1e9;  // mA x mV = uW
  return scale_uj + offset_uj;
}

}  // namespace energy
