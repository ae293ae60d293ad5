// Running a sweep (`energyctl sweep ... -- CMD`, `energyctl sweep --resume
// ID`): the loop over the plan's runs, each a measured run (measured_run.h)
// with the point's clocks in mark.start's `pin` (DVFS points pin nothing),
// the point's parameters substituted into CMD and exported, then
// sweep.add_run. Ctrl-C (SIGINT, SIGTERM, SIGHUP, SIGQUIT): the command
// gets the signal, its run is closed (and kept as a run, but not added to
// the sweep: that (point, repeat) is measured again on resume), the sweep is
// set "interrupted", and energyctl exits 128+N (130 for Ctrl-C).
//
// Thread-safety: for single-threaded programs (signal mask, run_child.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "energy/sweep_results.h"
#include "sweep_args.h"
#include "sweep_cooldown.h"

namespace energy::cli {

// Commands failing in a row that stop a sweep (as interrupted): a command
// that always fails should not burn the whole grid.
constexpr int kMaxConsecutiveFailures = 3;

// What a sweep has stored so far (sweep.show), for resuming.
struct SweepProgressStore {
  FinishedRuns finished;                             // (point, repeat) of role "measure"
  std::map<size_t, std::vector<double>> samples;     // per point: energy per item of good measured runs
  std::optional<int64_t> baseline_run;               // the newest role "baseline" run
  std::map<std::pair<size_t, int>, RunSample> runs;  // --search: (point, repeat) of good measured runs
};

// sweep.show's reply read into the finished pairs and the samples.
SweepProgressStore progress_from_show(const nlohmann::json& sweep);

// NOLINTNEXTLINE(bugprone-exception-escape): strings and vectors; their moves do not throw
struct Sweep {
  int64_t id = 0;
  std::string name;
  SweepSpec spec;
  std::vector<SweepPoint> points;
  SweepProgressStore store;
  IdleReference idle;
  bool json = false;           // the results at the end as JSON
  bool progress_json = false;  // --progress json (sweep_progress.h)
};

// Runs what is left of the sweep (its spec's schedule without store.finished),
// sets its state and prints its results (sweep_view.h); returns energyctl's exit code: 0 complete, 128+N
// interrupted by signal N, 1 stopped by failures or a refused request, 3
// energyd unreachable.
int run_sweep(const Context& ctx, Sweep& sweep);

// `energyctl sweep` (not show/export): new or --resume (sweep_command.cpp).
int cmd_sweep_run(const Context& ctx, const Args& args);

}  // namespace energy::cli
