#include "energy/integrate.h"

#include <gtest/gtest.h>

namespace energy {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kGap = 250 * kMs;

std::vector<PowerPoint> constant(int64_t from_ms, int64_t to_ms, int64_t step_ms, int64_t uw) {
  std::vector<PowerPoint> pts;
  for (int64_t t = from_ms; t <= to_ms; t += step_ms) pts.push_back(PowerPoint{t * kMs, uw, true});
  return pts;
}

TEST(Integrator, ConstantPowerGivesPowerTimesDuration) {
  auto s = integrate_power(constant(0, 10'000, 100, 5'000'000), {0, 10'000 * kMs}, kGap);
  EXPECT_NEAR(s.energy_uj, 50e6, 1e-3);  // 5 W for 10 s = 50 J
  EXPECT_EQ(s.samples, 101);
  EXPECT_DOUBLE_EQ(s.coverage(), 1.0);
  EXPECT_NEAR(s.average_power_uw(), 5e6, 1e-6);
}

TEST(Integrator, InterpolatesPartialIntervalAtBothEdges) {
  // Power ramps 0 -> 1 W over 0..1 s; window 0.25..0.75 s holds the mean 0.5 W.
  std::vector<PowerPoint> pts = {{0, 0, true}, {1000 * kMs, 1'000'000, true}};
  auto s = integrate_power(pts, {250 * kMs, 750 * kMs}, 2000 * kMs);  // readings 1 s apart are no gap here
  EXPECT_NEAR(s.energy_uj, 0.5 * 0.5e6, 1e-6);
  EXPECT_EQ(s.covered_ns, 500 * kMs);
  EXPECT_EQ(s.peak_power_uw, 750'000);
  EXPECT_EQ(s.min_power_uw, 250'000);
  EXPECT_EQ(s.samples, 0);  // no reading inside, both edges interpolated
}

TEST(Integrator, TrapezoidIsExactForLinearRamp) {
  std::vector<PowerPoint> pts;
  for (int64_t t = 0; t <= 1000; t += 100) pts.push_back({t * kMs, t * 1000, true});
  auto s = integrate_power(pts, {0, 1000 * kMs}, kGap);
  EXPECT_NEAR(s.energy_uj, 0.5e6, 1e-6);  // mean 0.5 W for 1 s = 0.5 J
}

TEST(Integrator, FailedReadingsAreGapsNotZeros) {
  auto pts = constant(0, 1000, 100, 2'000'000);
  pts[3].valid = false;
  pts[4].valid = false;
  pts[3].power_uw = 0;
  pts[4].power_uw = 0;
  auto s = integrate_power(pts, {0, 1000 * kMs}, kGap);
  EXPECT_NEAR(s.energy_uj, 2e6, 1e-3);  // bridged, not dragged towards zero
  EXPECT_EQ(s.failed_samples, 2);
  EXPECT_EQ(s.largest_gap_ns, 300 * kMs);
  EXPECT_EQ(s.gap_ns, 300 * kMs);
  EXPECT_EQ(s.covered_ns, 700 * kMs);  // the bridged gap is integrated but is not coverage
  EXPECT_NEAR(s.average_power_uw(), 2e6, 1e-6);
  EXPECT_EQ(s.min_power_uw, 2'000'000);
}

TEST(Integrator, StretchLongerThanTheGapThresholdIsIntegratedButNotCoverage) {
  std::vector<PowerPoint> pts = {{0, 1'000'000, true}, {100 * kMs, 1'000'000, true}, {1100 * kMs, 1'000'000, true}};
  auto s = integrate_power(pts, {0, 1100 * kMs}, kGap);
  EXPECT_NEAR(s.energy_uj, 1.1e6, 1e-3);
  EXPECT_EQ(s.covered_ns, 100 * kMs);
  EXPECT_EQ(s.gap_ns, 1000 * kMs);
  EXPECT_EQ(s.largest_gap_ns, 1000 * kMs);
}

TEST(Integrator, WindowBeyondDataReducesCoverage) {
  auto s = integrate_power(constant(0, 500, 100, 1'000'000), {0, 1000 * kMs}, kGap);
  EXPECT_NEAR(s.energy_uj, 0.5e6, 1e-3);
  EXPECT_DOUBLE_EQ(s.coverage(), 0.5);
  EXPECT_EQ(s.largest_gap_ns, 500 * kMs);
}

TEST(Integrator, NoReadingsMeansNoData) {
  auto s = integrate_power({}, {0, 1000 * kMs}, kGap);
  EXPECT_FALSE(s.has_data);
  EXPECT_EQ(s.covered_ns, 0);
  EXPECT_DOUBLE_EQ(s.coverage(), 0.0);
}

TEST(SumSeries, InvalidWhereAnyRailFailed) {
  std::vector<PowerPoint> a = {{0, 1, true}, {10, 2, true}};
  std::vector<PowerPoint> b = {{0, 10, true}, {10, 20, false}};
  auto sum = sum_series({a, b});
  ASSERT_EQ(sum.size(), 2u);
  EXPECT_EQ(sum[0].power_uw, 11);
  EXPECT_TRUE(sum[0].valid);
  EXPECT_FALSE(sum[1].valid);
}

}  // namespace
}  // namespace energy
