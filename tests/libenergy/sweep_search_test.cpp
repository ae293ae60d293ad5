// The --search core (libenergy/sweep: sweep_search.h) on synthetic energy
// surfaces: exact ones (no noise: any difference is significant) and a noisy
// bowl. The simulator's ground truth is in sweep_sim_test.cpp.
#include "energy/sweep_search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace energy {
namespace {

using Surface = std::function<double(const GridIndex&)>;

struct Counted {
  Surface f;
  size_t calls = 0;
  MeasureFn measure() {
    return [this](const GridIndex& p) -> Result<RunSample> {
      ++calls;
      return make_run_sample(f(p), std::nullopt, 1.0, 1);
    };
  }
};

double sq(double x) { return x * x; }

SearchOptions options(std::vector<size_t> sizes) {
  SearchOptions o;
  o.axis_sizes = std::move(sizes);
  return o;
}

TEST(SweepSearch, FindsTheMinimumOfASeparableBowlWithAThirdOfTheGrid) {
  Counted c{[](const GridIndex& p) {
    return 10 + sq(static_cast<double>(p[0]) - 11) + 2 * sq(static_cast<double>(p[1]) - 3);
  }};
  auto r = search_minimum(options({15, 12}), c.measure());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->best, (GridIndex{11, 3}));
  EXPECT_EQ(r->runs, c.calls);
  EXPECT_EQ(r->grid_runs, 15u * 12u * 3u);
  EXPECT_LE(r->runs, r->grid_runs * 35 / 100);
  EXPECT_EQ(r->fallbacks, 0);
  EXPECT_DOUBLE_EQ(r->best_stats.energy.mean, 10.0);
}

TEST(SweepSearch, FourAxesOneOfThemASingleValue) {
  Counted c{[](const GridIndex& p) {
    return 5 + sq(static_cast<double>(p[0]) - 2) + sq(static_cast<double>(p[1]) - 7) +
           sq(static_cast<double>(p[3]) - 0);
  }};
  auto r = search_minimum(options({6, 9, 1, 4}), c.measure());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->best, (GridIndex{2, 7, 0, 0}));
}

TEST(SweepSearch, ADiagonalValleyContradictsCoordinateSearchAndFallsBackToNeighbours) {
  // Along each axis alone the valley is unimodal, but with one coordinate
  // cycle the search stops on the valley's wall; the neighbour check sees the
  // diagonal step downhill and restarts from there.
  Counted c{[](const GridIndex& p) {
    const double x = static_cast<double>(p[0]), y = static_cast<double>(p[1]);
    return 100 + 20 * sq(x - y) + sq(x + y - 18);
  }};
  SearchOptions o = options({12, 12});
  o.max_cycles = 1;
  o.max_fallbacks = 20;
  auto r = search_minimum(o, c.measure());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_GE(r->fallbacks, 1);
  EXPECT_EQ(r->best, (GridIndex{9, 9}));
}

TEST(SweepSearch, NoisyBowlLandsNearTheMinimum) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(0.0, 0.015);
  auto truth = [](const GridIndex& p) {
    return 10 + 0.2 * sq(static_cast<double>(p[0]) - 4) + 0.1 * sq(static_cast<double>(p[1]) - 9);
  };
  Counted c{[&](const GridIndex& p) { return truth(p) * (1 + noise(rng)); }};
  auto r = search_minimum(options({15, 12}), c.measure());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_LE(truth(r->best), 10 * 1.02);
  EXPECT_LE(r->runs, r->grid_runs * 35 / 100);
}

TEST(SweepSearch, TheRunLimitStopsTheSearchWithTheBestSoFar) {
  Counted c{[](const GridIndex& p) { return 1 + static_cast<double>(p[0]); }};
  SearchOptions o = options({30});
  o.max_runs = 7;
  auto r = search_minimum(o, c.measure());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->budget_exhausted);
  EXPECT_EQ(c.calls, 7u);
  EXPECT_EQ(r->runs, 7u);
  // The lowest measured point: 7 runs cover the first probes (11, 18) and 7.
  EXPECT_EQ(r->best, GridIndex{7});
  EXPECT_EQ(r->best_stats.energy.n, 1u);
}

TEST(SweepSearch, AMeasurementErrorStopsTheSearchAndIsReturned) {
  size_t calls = 0;
  MeasureFn failing = [&calls](const GridIndex&) -> Result<RunSample> {
    if (++calls == 5) return make_error(ErrorCode::kIo, "run 5 failed");
    return make_run_sample(1.0, std::nullopt, 1.0, 1);
  };
  auto r = search_minimum(options({10, 10}), failing);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "run 5 failed");
  EXPECT_EQ(calls, 5u);
}

TEST(SweepSearch, NetEnergyWithoutABaselineIsAnErrorNotTheTotal) {
  Counted c{[](const GridIndex& p) { return 1 + static_cast<double>(p[0]); }};
  SearchOptions o = options({5});
  o.kind = EnergyKind::kNet;
  auto r = search_minimum(o, c.measure());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("idle baseline"), std::string::npos);
  EXPECT_EQ(c.calls, 1u);
}

TEST(SweepSearch, NetEnergyIsSearchedWhenGiven) {
  MeasureFn measure = [](const GridIndex& p) {
    const double x = static_cast<double>(p[0]);
    return make_run_sample(10.0, 10.0 - 8.0 + 0.5 * (x - 6) * (x - 6), 1.0, 1);  // total flat, net has a minimum
  };
  SearchOptions o = options({10});
  o.kind = EnergyKind::kNet;
  auto r = search_minimum(o, measure);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->best, GridIndex{6});
  EXPECT_LE(r->points, 10u);
}

TEST(SweepSearch, BadOptionsAreErrors) {
  Counted c{[](const GridIndex&) { return 1.0; }};
  EXPECT_FALSE(search_minimum(options({}), c.measure()));
  EXPECT_FALSE(search_minimum(options({4, 0}), c.measure()));
  SearchOptions o = options({4});
  o.repeats = 1;
  EXPECT_FALSE(search_minimum(o, c.measure()));
  o.repeats = 3;
  o.max_repeats = 2;
  EXPECT_FALSE(search_minimum(o, c.measure()));
  EXPECT_EQ(c.calls, 0u);
}

}  // namespace
}  // namespace energy
