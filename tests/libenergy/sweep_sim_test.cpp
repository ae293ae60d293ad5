// `--search` against the simulator's ground truth (issue 15's acceptance:
// within 2% of the grid minimum with at most 35% of the grid's runs, on
// Jetson Nano and Orin Nano, three workload mixes). Each run is the
// simulator's exact energy per item (evaluate_study, sim/src/study.h) times
// seeded Gaussian noise of 1.5% (a real run's spread on a warm board), so the
// search sees what a sweep of real runs would see. The figures are printed
// ("[ search ] ...") and recorded in docs/SWEEPS.md "How --search works".
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <ostream>
#include <random>

#include "../sim/sim_test_util.h"
#include "energy/sweep_search.h"
#include "energysim/catalog.h"
#include "study.h"

namespace energy {
namespace {

constexpr double kNoise = 0.015;
constexpr std::int64_t kBatch = 8;
constexpr int kSeeds = 5;
constexpr double kPi = 3.14159265358979323846;

const sim::Catalog& catalog() { return sim::test::reference_catalog(); }

// The model's energy per item (J) and time per item (s) at table positions (cpu, gpu).
struct Truth {
  sim::BoardSpec spec;
  sim::WorkloadMix mix;
  Result<sim::StudyResult> at(const GridIndex& p) const {
    sim::StudyClocks clocks{spec.cpu.available_khz[p[0]], spec.gpus.front().available_hz[p[1]]};
    return sim::evaluate_study(spec, mix, kBatch, sim::fixed_clocks(clocks));
  }
  double energy_j(const GridIndex& p) const { return at(p)->total_mj_per_item / 1000.0; }
};

// A standard normal draw from the generator's raw output (Box-Muller), so
// the noise does not depend on the library's distributions.
double normal(std::mt19937_64& rng) {
  auto uniform = [&rng] { return (static_cast<double>(rng() >> 11) + 0.5) / 9007199254740992.0; };
  return std::sqrt(-2.0 * std::log(uniform())) * std::cos(2.0 * kPi * uniform());
}

MeasureFn noisy_runs(const Truth& truth, std::mt19937_64& rng) {
  return [&truth, &rng](const GridIndex& p) -> Result<RunSample> {
    auto r = truth.at(p);
    if (!r) return r.take_error();
    return make_run_sample(r->total_mj_per_item / 1000.0 * (1.0 + kNoise * normal(rng)), std::nullopt,
                           r->time_per_item_ms / 1000.0, 1);
  };
}

struct Case {
  const char* board;
  int l4t;
  const char* label;  // the test name's suffix
};

// How gtest and ctest show a case (instead of its bytes).
// NOLINTNEXTLINE(readability-identifier-naming): gtest finds PrintTo by this name
void PrintTo(const Case& c, std::ostream* os) { *os << c.board << " L4T " << c.l4t; }

std::string case_label(const ::testing::TestParamInfo<Case>& c) { return c.param.label; }

class SearchOnSimulator : public ::testing::TestWithParam<Case> {};

TEST_P(SearchOnSimulator, LandsWithinTwoPercentOfTheGridMinimumWithAtMost35PercentOfItsRuns) {
  auto spec = catalog().find(GetParam().board, GetParam().l4t);
  ASSERT_TRUE(spec) << spec.error().describe();
  for (const std::string& name : sim::preset_names()) {
    const Truth truth{*spec, *sim::preset_mix(name)};
    auto minimum = sim::grid_minimum(*spec, truth.mix, kBatch);
    ASSERT_TRUE(minimum) << minimum.error().describe();
    const double min_j = minimum->study.total_mj_per_item / 1000.0;
    SearchOptions options;
    options.axis_sizes = {spec->cpu.available_khz.size(), spec->gpus.front().available_hz.size()};
    for (int seed = 1; seed <= kSeeds; ++seed) {
      std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
      auto r = search_minimum(options, noisy_runs(truth, rng));
      ASSERT_TRUE(r) << r.error().message;
      const double gap = truth.energy_j(r->best) / min_j - 1.0;
      const double share = static_cast<double>(r->runs) / static_cast<double>(r->grid_runs);
      std::printf(
          "[ search ] %s L4T %d %-12s seed %d: %3zu runs of %3zu (%4.1f%%), %2zu points, %d fallbacks, gap %.2f%%\n",
          GetParam().board, GetParam().l4t, name.c_str(), seed, r->runs, r->grid_runs, 100 * share, r->points,
          r->fallbacks, 100 * gap);
      EXPECT_LE(gap, 0.02) << name << " seed " << seed;
      EXPECT_LE(share, 0.35) << name << " seed " << seed;
      EXPECT_FALSE(r->budget_exhausted);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Boards, SearchOnSimulator,
                         ::testing::Values(Case{"jetson-nano-4gb", 32, "Nano"},
                                           Case{"jetson-orin-nano", 36, "OrinNano"}),
                         case_label);

}  // namespace
}  // namespace energy
