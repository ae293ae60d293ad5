#include "period_check.h"

#include <gtest/gtest.h>

namespace energy::daemon {
namespace {

// Continuous-mode reads do not wait for a conversion: nothing is refused.
TEST(PeriodCheck, UpdateIntervalNeverRefusesAPeriod) {
  EXPECT_EQ(update_interval_notice(100, 106, SensorAveraging::kPeriod), "");  // period's normal case
  EXPECT_EQ(update_interval_notice(5, 7, SensorAveraging::kKeep), "");
  EXPECT_EQ(update_interval_notice(1, 430, SensorAveraging::kKeep), "");
  EXPECT_EQ(update_interval_notice(100, 0, SensorAveraging::kKeep), "");  // L4T 32: no update_interval
}

TEST(PeriodCheck, KeepWithAMuchShorterUpdateIntervalGivesASnapshotNotice) {
  std::string n = update_interval_notice(100, 7, SensorAveraging::kKeep);
  EXPECT_NE(n.find("snapshot"), std::string::npos) << n;
  EXPECT_NE(n.find("7 ms"), std::string::npos) << n;
  EXPECT_NE(n.find("sensor_averaging: period"), std::string::npos) << n;
  EXPECT_EQ(n.find('\n'), std::string::npos) << "one line";
  EXPECT_EQ(update_interval_notice(100, 7, SensorAveraging::kPeriod), "") << "period: the daemon set the chips";
  EXPECT_EQ(update_interval_notice(20, 7, SensorAveraging::kKeep), "") << "7 ms covers a third of 20 ms";
  EXPECT_NE(update_interval_notice(28, 7, SensorAveraging::kKeep), "");
}

TEST(PeriodCheck, SweepMustFitInHalfThePeriod) {
  EXPECT_TRUE(check_period_against_sweep(1, 500'000, 5, 3));
  auto st = check_period_against_sweep(1, 600'000, 5, 3);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("0.600 ms (median of 5 sweeps)"), std::string::npos) << st.error().message;
  EXPECT_NE(st.error().message.find("use at least 2 ms"), std::string::npos) << st.error().message;
}

// A board whose chip `device` (driver `driver`) measures one rail and averages over `window_ms`.
SensorInventory board_with(MonitorDriver driver, int64_t window_ms, const std::string& device = "6-0040") {
  SensorInventory inv;
  MonitorChip chip;
  chip.device = device;
  chip.driver = driver;
  chip.update_interval_ms = window_ms;
  chip.averaging = "0x7607 (Jetson Nano device tree)";
  inv.chips.push_back(chip);
  RailInfo rail;
  rail.label = "POM_5V_IN";
  rail.device = device;
  rail.driver = driver;
  inv.rails.push_back(rail);
  return inv;
}

TEST(PeriodAdvice, TheNanoOnL4T32AveragesOver54MsSo50MsIsTheDefault) {
  PeriodAdvice a = advise_period(board_with(MonitorDriver::kIna3221xIio, 54), SensorAveraging::kPeriod);
  EXPECT_EQ(a.window_ms, 54);
  EXPECT_EQ(a.recommended_ms, 50);
  EXPECT_NE(a.reason.find("6-0040"), std::string::npos) << a.reason;
  EXPECT_NE(a.reason.find("0x7607"), std::string::npos) << a.reason;
}

TEST(PeriodAdvice, WindowsEnergydSetsOrThatAreLongOrSnapshotsKeep100Ms) {
  // TX2 / AGX Xavier on L4T 32: 430 ms, longer than the default.
  EXPECT_EQ(advise_period(board_with(MonitorDriver::kIna3221xIio, 430), SensorAveraging::kPeriod).recommended_ms, 100);
  // hwmon under `period`: energyd sets the averaging itself.
  PeriodAdvice set = advise_period(board_with(MonitorDriver::kIna3221Hwmon, 54), SensorAveraging::kPeriod);
  EXPECT_EQ(set.window_ms, 0);
  EXPECT_EQ(set.recommended_ms, 100);
  // hwmon under `keep` with the driver's 7 ms snapshots: not a window to follow.
  EXPECT_EQ(advise_period(board_with(MonitorDriver::kIna3221Hwmon, 7), SensorAveraging::kKeep).recommended_ms, 100);
  // ... but a kept 30 ms window is.
  EXPECT_EQ(advise_period(board_with(MonitorDriver::kIna3221Hwmon, 30), SensorAveraging::kKeep).recommended_ms, 30);
}

TEST(PeriodAdvice, AChipWithoutRailsDoesNotCountAndTheShortestWindowWins) {
  SensorInventory inv = board_with(MonitorDriver::kIna3221xIio, 430, "1-0040");
  MonitorChip idle;
  idle.device = "1-0041";
  idle.driver = MonitorDriver::kIna3221xIio;
  idle.update_interval_ms = 20;
  inv.chips.push_back(idle);  // measures no rail
  EXPECT_EQ(advise_period(inv, SensorAveraging::kPeriod).recommended_ms, 100);
  inv.rails.push_back(inv.rails.front());
  inv.rails.back().device = "1-0041";
  EXPECT_EQ(advise_period(inv, SensorAveraging::kPeriod).recommended_ms, 20);
}

TEST(PeriodAdvice, APeriodLongerThanTheWindowIsWarnedAbout) {
  PeriodAdvice a = advise_period(board_with(MonitorDriver::kIna3221xIio, 54), SensorAveraging::kPeriod);
  std::string w = period_warning(100, a);
  EXPECT_NE(w.find("sample_period_ms 100"), std::string::npos) << w;
  EXPECT_NE(w.find("54 ms"), std::string::npos) << w;
  EXPECT_NE(w.find("use at most 50 ms"), std::string::npos) << w;
  EXPECT_EQ(period_warning(50, a), "");
  EXPECT_EQ(period_warning(54, a), "");
  EXPECT_EQ(period_warning(1000, PeriodAdvice{}), "") << "no fixed window, nothing to warn about";
}

}  // namespace
}  // namespace energy::daemon
