#include "energy/uncertainty.h"

#include <gtest/gtest.h>

#include "../time_units.h"

namespace energy {
namespace {

TEST(Calibration, Ina3221AddsGainToleranceAndOffsetAtTheirMaxima) {
  MonitorCalibration c = calibration_for_driver("ina3221");
  EXPECT_DOUBLE_EQ(c.offset_current_ma(), 16.0);  // 80 uV over the assumed 5 mOhm
  // 10 J over 1 s at 5 V: 1.25 % of it, and 16 mA x 5 V x 1 s = 80 mJ.
  EXPECT_NEAR(calibration_bound_uj(c, 10e6, 5000, 1e9), 0.0125 * 10e6 + 80'000, 1e-6);
  EXPECT_NEAR(calibration_bound_uj(c, -10e6, 5000, 1e9), calibration_bound_uj(c, 10e6, 5000, 1e9), 1e-6);
  EXPECT_DOUBLE_EQ(calibration_for_driver("ina3221x").gain_error, c.gain_error);
}

TEST(Calibration, Ina238IsTighterThanTheIna3221) {
  MonitorCalibration c = calibration_for_driver("ina238");
  EXPECT_DOUBLE_EQ(c.offset_current_ma(), 1.0);  // 5 uV over 5 mOhm
  EXPECT_LT(calibration_bound_uj(c, 10e6, 5000, 1e9),
            calibration_bound_uj(calibration_for_driver("ina3221"), 10e6, 5000, 1e9));
}

TEST(Calibration, TheOffsetIsTakenAtTheMeanKnownBusVoltageInTheWindow) {
  std::vector<PowerPoint> pts = {{0, 1, true, 4000},
                                 {100 * kMs, 1, true, 6000},
                                 {200 * kMs, 1, false, 9000},
                                 {300 * kMs, 1, true, 0},
                                 {2000 * kMs, 1, true, 9000}};
  EXPECT_DOUBLE_EQ(mean_bus_mv(pts, {0, 1000 * kMs}), 5000.0);
  EXPECT_DOUBLE_EQ(mean_bus_mv({}, {0, 1000 * kMs}), kAssumedBusMv);
}

}  // namespace
}  // namespace energy
