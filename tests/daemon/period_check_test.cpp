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

}  // namespace
}  // namespace energy::daemon
