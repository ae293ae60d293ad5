#include "log_limit.h"

#include <gtest/gtest.h>

namespace energy::daemon {
namespace {

class StepClock final : public Clock {
 public:
  int64_t boot_ns() const override { return now_ns; }
  int64_t mono_ns() const override { return now_ns; }
  int64_t wall_ns() const override { return now_ns; }
  int64_t now_ns = 1'000'000'000;
};

TEST(LogLimiter, FirstLineOfACauseIsAlwaysLogged) {
  StepClock clock;
  LogLimiter limiter(clock, std::chrono::seconds(60));
  EXPECT_TRUE(limiter.allow("storage.commit").log);
  EXPECT_TRUE(limiter.allow("watchdog").log);
}

TEST(LogLimiter, RepeatsWithinTheIntervalAreHeldBackAndCounted) {
  StepClock clock;
  LogLimiter limiter(clock, std::chrono::seconds(60));
  ASSERT_TRUE(limiter.allow("storage.commit").log);
  for (int i = 0; i < 5; ++i) {
    clock.now_ns += kNsPerSec;
    EXPECT_FALSE(limiter.allow("storage.commit").log);
  }
  clock.now_ns += 60 * kNsPerSec;
  auto v = limiter.allow("storage.commit");
  EXPECT_TRUE(v.log);
  EXPECT_EQ(v.suppressed, 5);
  EXPECT_EQ(LogLimiter::suffix(v), " (5 similar messages suppressed)");
}

TEST(LogLimiter, BurstAllowsThatManyLinesPerWindowThenCountsTheRest) {
  StepClock clock;
  LogLimiter limiter(clock, std::chrono::seconds(10), 20);
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(limiter.allow("denial").log) << i;
  for (int i = 0; i < 7; ++i) EXPECT_FALSE(limiter.allow("denial").log);
  clock.now_ns += 9 * kNsPerSec;
  EXPECT_FALSE(limiter.allow("denial").log);  // still the first window
  clock.now_ns += kNsPerSec;
  auto v = limiter.allow("denial");
  ASSERT_TRUE(v.log);
  EXPECT_EQ(v.suppressed, 8);
  v = limiter.allow("denial");
  ASSERT_TRUE(v.log);
  EXPECT_EQ(v.suppressed, 0);
}

TEST(LogLimiter, CausesAreLimitedIndependently) {
  StepClock clock;
  LogLimiter limiter(clock, std::chrono::seconds(60));
  ASSERT_TRUE(limiter.allow("a").log);
  EXPECT_FALSE(limiter.allow("a").log);
  EXPECT_TRUE(limiter.allow("b").log);
}

TEST(LogLimiter, SuffixIsEmptyWhenNothingWasSuppressed) {
  StepClock clock;
  LogLimiter limiter(clock, std::chrono::seconds(1));
  auto v = limiter.allow("x");
  EXPECT_EQ(LogLimiter::suffix(v), "");
  EXPECT_FALSE(limiter.allow("x").log);
  clock.now_ns += kNsPerSec;
  EXPECT_EQ(LogLimiter::suffix(limiter.allow("x")), " (1 similar message suppressed)");
}

}  // namespace
}  // namespace energy::daemon
