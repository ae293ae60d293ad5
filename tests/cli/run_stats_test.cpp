#include "run_stats.h"

#include <gtest/gtest.h>

#include <cmath>

namespace energy::cli {
namespace {

TEST(Summarize, GivesMeanSampleStddevAndStudentInterval) {
  // mean 5, squared deviations 9+1+1+9 = 20, s = sqrt(20/3)
  auto s = summarize({2.0, 4.0, 6.0, 8.0});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->n, 4u);
  EXPECT_DOUBLE_EQ(s->mean, 5.0);
  ASSERT_TRUE(s->stddev.has_value());
  EXPECT_DOUBLE_EQ(*s->stddev, std::sqrt(20.0 / 3.0));
  double half = 3.182446 * std::sqrt(20.0 / 3.0) / 2.0;  // t(0.975, 3) = 3.182446 (exact to 6 places)
  EXPECT_NEAR(s->ci95_low(), 5.0 - half, 1e-5);
  EXPECT_NEAR(s->ci95_high(), 5.0 + half, 1e-5);
  EXPECT_DOUBLE_EQ(s->min, 2.0);
  EXPECT_DOUBLE_EQ(s->max, 8.0);
}

TEST(Summarize, IdenticalValuesHaveZeroSpread) {
  auto s = summarize({1.5, 1.5, 1.5});
  ASSERT_TRUE(s.ok());
  EXPECT_DOUBLE_EQ(*s->stddev, 0.0);
  EXPECT_DOUBLE_EQ(*s->ci95_half, 0.0);
}

TEST(Summarize, SingleValueHasNoSpreadOrInterval) {
  auto s = summarize({3.25});
  ASSERT_TRUE(s.ok());
  EXPECT_DOUBLE_EQ(s->mean, 3.25);
  EXPECT_FALSE(s->stddev.has_value());
  EXPECT_FALSE(s->ci95_half.has_value());
}

// Worked by hand: {10, 12, 14} (s^2/n = 4/3) against {20, 24, 28, 32}
// (s^2/n = 20/3): se^2 = 8, Welch df = 64 / (16/9/2 + 400/9/3) = 4.0755;
// t(0.975, 4.0755) = 2.75628 (the t density integrated numerically,
// independently of libenergy's incomplete beta), half-width 7.7960. The
// statistics are libenergy's (sweep_stats.h), shared with sweeps.
TEST(WelchDifference, GivesTheDifferenceOfMeansAndItsWelchInterval) {
  auto ref = summarize({10, 12, 14});
  auto other = summarize({20, 24, 28, 32});
  ASSERT_TRUE(ref.ok() && other.ok());
  Difference d = welch_difference(*ref, *other);
  EXPECT_DOUBLE_EQ(d.diff, 14.0);
  ASSERT_TRUE(d.df && d.ci95_half);
  EXPECT_NEAR(*d.df, 4.0755, 1e-4);
  EXPECT_NEAR(*d.ci95_half, 7.7960, 2e-4);
}

TEST(WelchDifference, NoIntervalWithASingleValueAndZeroWithoutSpread) {
  Difference one = welch_difference(*summarize({5}), *summarize({7, 9}));
  EXPECT_DOUBLE_EQ(one.diff, 3.0);
  EXPECT_FALSE(one.ci95_half.has_value());
  Difference flat = welch_difference(*summarize({5, 5}), *summarize({6, 6, 6}));
  EXPECT_DOUBLE_EQ(flat.diff, 1.0);
  EXPECT_EQ(flat.ci95_half, 0.0);
}

TEST(Summarize, EmptyOrNonFiniteInputIsAnError) {
  EXPECT_FALSE(summarize({}).ok());
  auto nan = summarize({1.0, std::nan("")});
  ASSERT_FALSE(nan.ok());
  EXPECT_NE(nan.error().message.find("not finite"), std::string::npos) << nan.error().message;
}

}  // namespace
}  // namespace energy::cli
