#include "period_check.h"

#include <gtest/gtest.h>

namespace energy::daemon {
namespace {

TEST(PeriodCheck, PeriodAtOrAboveUpdateIntervalIsAccepted) {
  EXPECT_TRUE(check_period_against_update_interval(100, 7));
  EXPECT_TRUE(check_period_against_update_interval(7, 7));
  EXPECT_TRUE(check_period_against_update_interval(1, 0));  // IIO: no update_interval
}

TEST(PeriodCheck, PeriodBelowUpdateIntervalIsRefusedNamingTheKeyAndTheMinimum) {
  auto st = check_period_against_update_interval(5, 7);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("sample_period_ms 5"), std::string::npos) << st.error().message;
  EXPECT_NE(st.error().message.find("use at least 7 ms"), std::string::npos) << st.error().message;
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
