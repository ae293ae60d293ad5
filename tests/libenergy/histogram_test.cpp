#include "energy/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace energy {
namespace {

TEST(LatencyHistogram, EmptyHistogramReportsZero) {
  LatencyHistogram h;
  EXPECT_EQ(h.count(), 0);
  EXPECT_EQ(h.quantile(0.5), 0);
  EXPECT_EQ(h.max(), 0);
}

TEST(LatencyHistogram, SmallValuesAreExact) {
  LatencyHistogram h;
  for (int v = 0; v < 16; ++v) h.record(v);
  EXPECT_EQ(h.quantile(0.5), 7);
  EXPECT_EQ(h.quantile(1.0), 15);
  EXPECT_EQ(h.quantile(0.0), 0);
}

TEST(LatencyHistogram, NegativeValuesCountAsZero) {
  LatencyHistogram h;
  h.record(-5);
  EXPECT_EQ(h.count(), 1);
  EXPECT_EQ(h.quantile(1.0), 0);
}

// Every quantile is at or above the exact one and at most 1/16 above it.
TEST(LatencyHistogram, QuantilesAreNeverBelowAndAtMostASixteenthAboveTheExactValue) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(11.0, 2.0);  // ~60 us median, long tail
  std::vector<int64_t> values;
  LatencyHistogram h;
  for (int i = 0; i < 20000; ++i) {
    auto v = static_cast<int64_t>(dist(rng));
    values.push_back(v);
    h.record(v);
  }
  std::sort(values.begin(), values.end());
  for (double q : {0.01, 0.5, 0.9, 0.99, 0.999, 1.0}) {
    auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size()))) - 1;
    int64_t exact = values[rank];
    int64_t got = h.quantile(q);
    EXPECT_GE(got, exact) << "q=" << q;
    EXPECT_LE(static_cast<double>(got), static_cast<double>(exact) * (1.0 + 1.0 / 16) + 1) << "q=" << q;
  }
  EXPECT_EQ(h.max(), values.back());
}

TEST(LatencyHistogram, HugeValuesStayInRange) {
  LatencyHistogram h;
  h.record(INT64_MAX);
  h.record(INT64_MAX / 3);
  EXPECT_EQ(h.count(), 2);
  EXPECT_EQ(h.quantile(1.0), INT64_MAX);
  EXPECT_GE(h.quantile(0.5), INT64_MAX / 3);
}

TEST(LatencyHistogram, ClearForgetsEverything) {
  LatencyHistogram h;
  h.record(1000);
  h.clear();
  EXPECT_EQ(h.count(), 0);
  EXPECT_EQ(h.quantile(0.99), 0);
}

}  // namespace
}  // namespace energy
