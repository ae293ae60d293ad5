// Sweep statistics (libenergy/sweep: sweep_stats.h, sweep_results.h): exact
// Student t quantiles, CIs, Welch differences, and what a sweep reports.
#include "energy/sweep_stats.h"

#include <gtest/gtest.h>

#include <cmath>

#include "energy/sweep_results.h"

namespace energy {
namespace {

constexpr double kPi = 3.14159265358979323846;

TEST(StudentT, ClosedFormsForOneAndTwoDegreesOfFreedom) {
  // df = 1 is the Cauchy distribution: t_p = tan(pi (p - 1/2)).
  EXPECT_NEAR(student_t_quantile(0.975, 1), std::tan(kPi * 0.475), 1e-8);
  // df = 2: t_p = (2p - 1) / sqrt(2 p (1 - p)).
  EXPECT_NEAR(student_t_quantile(0.975, 2), 0.95 / std::sqrt(2 * 0.975 * 0.025), 1e-9);
  EXPECT_NEAR(student_t_quantile(0.9, 2), 0.8 / std::sqrt(2 * 0.9 * 0.1), 1e-9);
}

TEST(StudentT, TableValuesAndTheNormalLimit) {
  EXPECT_NEAR(student_t_quantile(0.975, 3), 3.182446, 1e-5);
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.776445, 1e-5);
  EXPECT_NEAR(student_t_quantile(0.975, 9), 2.262157, 1e-5);
  EXPECT_NEAR(student_t_quantile(0.975, 29), 2.045230, 1e-5);
  EXPECT_NEAR(student_t_quantile(0.995, 5), 4.032143, 1e-5);
  EXPECT_NEAR(student_t_quantile(0.975, 1e7), 1.959964, 1e-5);
}

TEST(StudentT, FractionalDegreesOfFreedomLieBetweenTheirNeighbours) {
  const double t = student_t_quantile(0.975, 2.5);
  EXPECT_LT(t, student_t_quantile(0.975, 2));
  EXPECT_GT(t, student_t_quantile(0.975, 3));
  EXPECT_NEAR(student_t_cdf(t, 2.5), 0.975, 1e-10);
  EXPECT_NEAR(student_t_cdf(-t, 2.5), 0.025, 1e-10);
  EXPECT_NEAR(student_t_cdf(0, 7), 0.5, 1e-12);
}

TEST(SampleSummary, MeanSpreadAndTheTIntervalAtThreeRuns) {
  auto s = summarize_sample({10.0, 11.0, 12.0});
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->mean, 11.0);
  EXPECT_DOUBLE_EQ(*s->stddev, 1.0);
  EXPECT_NEAR(*s->ci95_half, 4.302653 / std::sqrt(3.0), 1e-5);  // not 1.96 / sqrt 3
  auto one = summarize_sample({5.0});
  ASSERT_TRUE(one);
  EXPECT_FALSE(one->ci95_half);
  EXPECT_FALSE(summarize_sample({}));
  EXPECT_FALSE(summarize_sample({1.0, NAN}));
}

TEST(Welch, DifferenceIntervalUsesSatterthwaiteDegreesOfFreedom) {
  auto a = *summarize_sample({20.0, 22.0, 24.0});        // var 4, n 3
  auto b = *summarize_sample({10.0, 11.0, 12.0, 13.0});  // var 5/3, n 4
  Difference d = welch_difference(a, b);
  EXPECT_DOUBLE_EQ(d.mean, 22.0 - 11.5);
  const double va = 4.0 / 3, vb = (5.0 / 3) / 4;
  const double df = (va + vb) * (va + vb) / (va * va / 2 + vb * vb / 3);
  EXPECT_NEAR(*d.df, df, 1e-12);
  EXPECT_NEAR(*d.ci95_half, student_t_quantile(0.975, df) * std::sqrt(va + vb), 1e-9);
  EXPECT_TRUE(significant(d));
  EXPECT_FALSE(significant(welch_difference(a, *summarize_sample({21.0, 23.0, 25.0}))));
  EXPECT_FALSE(welch_difference(a, *summarize_sample({1.0})).ci95_half);
}

TEST(CiTarget, MetOnlyWithSpreadKnownAndNarrowEnough) {
  EXPECT_FALSE(ci_target_met(*summarize_sample({10.0}), 0.5));
  EXPECT_FALSE(ci_target_met(*summarize_sample({10.0, 11.0, 12.0}), 0.2));  // half 2.48 > 2.2
  EXPECT_TRUE(ci_target_met(*summarize_sample({10.0, 11.0, 12.0}), 0.23));
}

RunSample sample(double e, double t) { return *make_run_sample(e, std::nullopt, t, 1); }

PointStats stats(const std::vector<double>& energies, double time) {
  std::vector<RunSample> runs;
  runs.reserve(energies.size());
  for (double e : energies) runs.push_back(sample(e, time));
  return *point_stats(runs);
}

TEST(RunSamples, PerItemFiguresAndBadRunsAreErrors) {
  auto s = make_run_sample(20.0, 5.0, 4.0, 8);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->energy_per_item_j, 2.5);
  EXPECT_DOUBLE_EQ(*s->net_energy_per_item_j, 0.625);
  EXPECT_DOUBLE_EQ(s->time_per_item_s, 0.5);
  EXPECT_DOUBLE_EQ(s->power_w, 5.0);
  EXPECT_FALSE(make_run_sample(20.0, std::nullopt, 4.0, 0));
  EXPECT_FALSE(make_run_sample(0.0, std::nullopt, 4.0, 1));  // never a silent zero
  EXPECT_FALSE(make_run_sample(20.0, std::nullopt, 0.0, 1));
  EXPECT_FALSE(make_run_sample(20.0, INFINITY, 1.0, 1));
}

TEST(SweepResults, NetEnergyIsAbsentUnlessEveryRunHasIt) {
  auto p = point_stats({*make_run_sample(2, 1.0, 1, 1), *make_run_sample(2, std::nullopt, 1, 1)});
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->net);
  EXPECT_FALSE(minimum_energy({*p}, EnergyKind::kNet));
  EXPECT_FALSE(point_stats({}));
}

TEST(SweepResults, MinimumWithThePointsWhoseIntervalsOverlapIt) {
  std::vector<PointStats> points{stats({10, 10.2, 9.8}, 1), stats({9.0, 9.1, 8.9}, 2), stats({9.3, 9.5, 9.1}, 3),
                                 stats({12, 12.1, 11.9}, 4)};
  auto m = minimum_energy(points, EnergyKind::kTotal);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->best, 1u);
  EXPECT_EQ(m->tied, (std::vector<size_t>{1, 2}));
  EXPECT_EQ(*fastest_point(points), 0u);
  EXPECT_FALSE(minimum_energy({}, EnergyKind::kTotal));
}

TEST(SweepResults, ParetoFrontFastestFirstAndTheEdpMinimum) {
  // (energy, time): A(10,1) B(9,2) C(9.5,3) dominated by B, D(8,4), E(8,5) dominated by D.
  std::vector<PointStats> points{stats({10}, 1), stats({9}, 2), stats({9.5}, 3), stats({8}, 4), stats({8}, 5)};
  EXPECT_EQ(pareto_front(points), (std::vector<size_t>{0, 1, 3}));
  EXPECT_EQ(*edp_minimum(points), 0u);  // 10 < 18 < 28.5 < 32 < 40
}

TEST(SweepResults, SavingAgainstDvfsWithTheDifferenceInterval) {
  PointStats dvfs = stats({10.0, 10.2, 9.8}, 1.0);
  PointStats point = stats({8.0, 8.1, 7.9}, 1.25);
  Saving s = saving_against(point, dvfs);
  EXPECT_DOUBLE_EQ(s.energy_j.mean, 2.0);
  EXPECT_DOUBLE_EQ(s.relative, 0.2);
  ASSERT_TRUE(s.energy_j.ci95_half);
  EXPECT_NEAR(*s.relative_ci95_half, *s.energy_j.ci95_half / 10.0, 1e-12);
  EXPECT_NEAR(
      *s.energy_j.df,
      4 * (0.04 / 3 + 0.01 / 3) * (0.04 / 3 + 0.01 / 3) / ((0.04 / 3) * (0.04 / 3) + (0.01 / 3) * (0.01 / 3)) / 2,
      1e-9);
  EXPECT_DOUBLE_EQ(s.time_s.mean, 0.25);
  EXPECT_DOUBLE_EQ(s.time_relative, 0.25);
}

}  // namespace
}  // namespace energy
