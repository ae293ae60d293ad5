// energyctl sweep --search's progress: the estimate of the runs a search
// makes (instead of the whole grid's runs, which put the finish far too
// late) and how the progress line shows it.
#include "sweep_search_run.h"

#include <gtest/gtest.h>

namespace energy::cli {
namespace {

TEST(SweepSearchRun, EstimateIsCloseToTheSearchesMeasuredInDocsSweeps) {
  // docs/SWEEPS.md: at 3 runs per point, the searches made 83-99 runs on
  // average per mix (offline) and 74-85 (live) on Jetson Nano's 15 x 12
  // grid of 540 runs; 61-75 and 55-75 on Orin Nano's 20 x 5 of 300.
  EXPECT_EQ(estimated_search_runs({15, 12}, 3, 0), 78u);  // (7 + 7) + 4 + 8 points
  EXPECT_EQ(estimated_search_runs({20, 5}, 3, 0), 75u);   // (8 + 5) + 4 + 8 points
}

TEST(SweepSearchRun, EstimateIsCappedByTheGridAndTheRunBudget) {
  EXPECT_EQ(estimated_search_runs({2, 3}, 2, 0), 12u) << "6 points at most, 2 runs each";
  EXPECT_EQ(estimated_search_runs({15, 12}, 3, 50), 50u) << "--max-runs 50";
  EXPECT_EQ(estimated_search_runs({1}, 3, 0), 3u) << "one point";
  EXPECT_EQ(estimated_search_runs({5}, 2, 0), 10u) << "a line search over 5 points needs all of them";
}

Sweep search_sweep() {
  Sweep s;
  s.spec.axes.clocks = {ClockAxis{"gpu", {306'000'000, 624'750'000}, {0, 1}}};
  s.spec.search = SearchSpec{};
  s.points = {SweepPoint{{0}, {}, false}, SweepPoint{{1}, {}, false}};
  return s;
}

TEST(SweepSearchRun, ProgressSaysTheTotalIsAnEstimateAndKeepsItAheadOfTheRunsMade) {
  Sweep s = search_sweep();
  SweepLoop loop;
  loop.total = 6;
  loop.total_estimated = true;
  loop.done = 9;  // the search needed more runs than estimated
  ProgressState st = progress_state(s, ScheduledRun{1, 4}, loop);
  EXPECT_EQ(st.total, 10u) << "at least one more while the search goes on";
  ASSERT_TRUE(st.eta_s);
  std::string line = progress_text(st);
  for (const char* part : {"run 9/~10 (estimate)", "point (gpu 624.75MHz)", "repeat 5,"})
    EXPECT_NE(line.find(part), std::string::npos) << part << " missing from " << line;
  EXPECT_EQ(progress_json(st)["runs_estimated"], true);
  loop.total_estimated = false;  // the search is over: the DVFS runs left are exact
  loop.total = 11;
  EXPECT_NE(progress_text(progress_state(s, ScheduledRun{1, 0}, loop)).find("run 9/11,"), std::string::npos);
}

}  // namespace
}  // namespace energy::cli
