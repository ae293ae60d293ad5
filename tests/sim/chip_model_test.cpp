#include "energysim/chip_model.h"

#include <gtest/gtest.h>

namespace energy::sim {
namespace {

TEST(ChipModel, DivRoundClosestRoundsHalvesAwayFromZero) {
  EXPECT_EQ(div_round_closest(5, 2), 3);
  EXPECT_EQ(div_round_closest(-5, 2), -3);
  EXPECT_EQ(div_round_closest(4, 3), 1);
  EXPECT_EQ(div_round_closest(-4, 3), -1);
}

TEST(ChipModel, BusVoltageSitsOnEightMillivoltSteps) {
  EXPECT_EQ(ina3221_bus_mv(5000), 5000);
  EXPECT_EQ(ina3221_bus_mv(4968), 4968);
  EXPECT_EQ(ina3221_bus_mv(5003), 5000);
  EXPECT_EQ(ina3221_bus_mv(5004), 5008);
  EXPECT_EQ(ina3221_bus_mv(40000), 32760) << "13-bit register full scale";
}

TEST(ChipModel, ShuntVoltageSitsOnFortyMicrovoltSteps) {
  EXPECT_EQ(ina3221_shunt_uv(1000, 5000), 5000);
  EXPECT_EQ(ina3221_shunt_uv(1003, 5000), 5000);
  EXPECT_EQ(ina3221_shunt_uv(140, 2000), 280);
  EXPECT_EQ(ina3221_shunt_uv(-100, 5000), -520) << "-500 uV is -12.5 steps: rounds away from zero";
  EXPECT_EQ(ina3221_shunt_uv(100000, 5000), 163800) << "full scale";
}

TEST(ChipModel, CurrentIsShuntVoltageOverResistanceRounded) {
  EXPECT_EQ(ina3221_current_ma(5000, 5000), 1000);
  EXPECT_EQ(ina3221_current_ma(2040, 10000), 204);
  EXPECT_EQ(ina3221_current_ma(40, 3000), 13);
  EXPECT_EQ(ina3221_full_scale_ma(5000), 32760);
}

TEST(ChipModel, FiveVoltsAndOneAmpThroughFiveMilliohmsAreExact) {
  EXPECT_EQ(ina3221_bus_mv(5000), 5000);
  EXPECT_EQ(ina3221_current_ma(ina3221_shunt_uv(1000, 5000), 5000), 1000);
}

TEST(ChipModel, UpdateIntervalFollowsTheEnabledChannels) {
  EXPECT_EQ(ina3221_update_interval_ms(3, 1), 7);
  EXPECT_EQ(ina3221_update_interval_ms(2, 1), 4);
  EXPECT_EQ(ina3221_update_interval_ms(1, 1), 2);
  EXPECT_EQ(ina3221_update_interval_ms(3, 4), 26);
}

TEST(ChipModel, IioPowerTruncatesTowardZero) {
  EXPECT_EQ(ina3221x_power_mw(4984, 641), 3194);
  EXPECT_EQ(ina3221x_power_mw(5000, 1), 5);
  EXPECT_EQ(ina3221x_power_mw(999, 1), 0);
  EXPECT_EQ(ina3221x_power_mw(19000, -21), -399);
}

TEST(ChipModel, Ina238ReportsMicrowattsAndShuntMillivolts) {
  EXPECT_EQ(ina238_power_uw(20000, 1150), 23000000);
  EXPECT_EQ(ina238_shunt_mv(1150, 10000), 12);
  EXPECT_EQ(ina238_shunt_mv(1000, 2000), 2);
}

}  // namespace
}  // namespace energy::sim
