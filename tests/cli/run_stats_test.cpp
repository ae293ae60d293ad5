#include "run_stats.h"

#include <gtest/gtest.h>

#include <cmath>

namespace energy::cli {
namespace {

TEST(StudentT95, MatchesTheTablesForSmallSamples) {
  EXPECT_DOUBLE_EQ(student_t95(1), 12.706);
  EXPECT_DOUBLE_EQ(student_t95(2), 4.303);
  EXPECT_DOUBLE_EQ(student_t95(4), 2.776);
  EXPECT_DOUBLE_EQ(student_t95(9), 2.262);
  EXPECT_DOUBLE_EQ(student_t95(30), 2.042);
}

TEST(StudentT95, InterpolatesBeyondTheTableTowardsTheNormalQuantile) {
  EXPECT_NEAR(student_t95(50), 2.009, 0.001);
  EXPECT_NEAR(student_t95(100), 1.984, 0.001);
  EXPECT_NEAR(student_t95(1000000), 1.960, 0.001);
  EXPECT_GT(student_t95(31), student_t95(32));
  EXPECT_LT(student_t95(31), student_t95(30));
}

TEST(Summarize, GivesMeanSampleStddevAndStudentInterval) {
  // mean 5, squared deviations 9+1+1+9 = 20, s = sqrt(20/3)
  auto s = summarize({2.0, 4.0, 6.0, 8.0});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->n, 4u);
  EXPECT_DOUBLE_EQ(s->mean, 5.0);
  ASSERT_TRUE(s->stddev.has_value());
  EXPECT_DOUBLE_EQ(*s->stddev, std::sqrt(20.0 / 3.0));
  double half = 3.182 * std::sqrt(20.0 / 3.0) / 2.0;
  EXPECT_DOUBLE_EQ(s->ci95_low(), 5.0 - half);
  EXPECT_DOUBLE_EQ(s->ci95_high(), 5.0 + half);
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

TEST(Summarize, EmptyOrNonFiniteInputIsAnError) {
  EXPECT_FALSE(summarize({}).ok());
  auto nan = summarize({1.0, std::nan("")});
  ASSERT_FALSE(nan.ok());
  EXPECT_NE(nan.error().message.find("non-finite"), std::string::npos);
}

}  // namespace
}  // namespace energy::cli
