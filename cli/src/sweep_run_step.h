// One run of a sweep, shared by the grid loop (sweep_run.cpp) and the
// search (sweep_search_run.h): the cooldown, the measured run with the
// point's clocks pinned in mark.start and its parameters substituted,
// sweep.add_run, the run's sample in the store; and how a sweep stops as
// interrupted (the state set, the resume command printed).
//
// Thread-safety: for single-threaded programs (signal mask, run_child.h).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "run_child.h"
#include "run_report.h"
#include "sweep_progress.h"
#include "sweep_run.h"

namespace energy::cli {

using SteadyClock = std::chrono::steady_clock;

// One invocation's tally: runs made and planned, failures, its own time.
struct SweepLoop {
  size_t done = 0;
  size_t total = 0;              // planned; while a search runs, its estimate (sweep_search_run.h)
  bool total_estimated = false;  // `total` is an estimate
  int failures_in_row = 0;
  size_t failed = 0;
  size_t rejected = 0;  // runs that failed their quality gate and were run again
  SteadyClock::time_point started = SteadyClock::now();
  SteadyClock::time_point last_baseline = SteadyClock::now();
  double machinery_s = 0.0;  // per run: the loop's own time, without the command and the cooldown
  size_t machinery_runs = 0;
  std::string last;
};

double seconds_since(SteadyClock::time_point t);

// "cpu 806.4MHz, gpu 510MHz, batch=8", or "dvfs" first for a DVFS point.
std::string point_label(const SweepSpec& spec, const SweepPoint& p);

// Energy per item (per run without items) from a report or a runs.list row.
std::optional<double> energy_per_item(const nlohmann::json& energy_j, const nlohmann::json& items);
// A run's RunSample (for --search) from its energy, duration and items.
std::optional<RunSample> run_sample(const nlohmann::json& energy_j, const nlohmann::json& duration_s,
                                    const nlohmann::json& items);

// One request on a fresh connection, its reply dropped.
Status call_status(const Context& ctx, const std::string& verb, const nlohmann::json& args);
Status set_state(const Context& ctx, int64_t id, const std::string& state);

// The progress line after `run`; a search's total is its estimate, marked so.
ProgressState progress_state(const Sweep& s, const ScheduledRun& run, const SweepLoop& loop);

// Sets the sweep interrupted, prints why and how to resume; returns `code`.
int interrupted(const Context& ctx, const Sweep& s, int code, const std::string& why, Progress& progress);

// One scheduled run: cooldown, the measured run, sweep.add_run, the sample
// in s.store. Returns kExitOk to go on, or the exit code to stop with (the
// sweep then is interrupted). `warmup_index` numbers warm-up runs.
int one_run(const Context& ctx, Sweep& s, const ScheduledRun& run, int warmup_index, const SignalBlock& block,
            SweepLoop& loop, Progress& progress, Repeat& r);
// One attempt of it; kExitRetry when its run failed its quality gate and
// `may_retry` (the run is then added to the sweep as "rejected").
constexpr int kExitRetry = -1;
int one_attempt(const Context& ctx, Sweep& s, const ScheduledRun& run, int warmup_index, const SignalBlock& block,
                SweepLoop& loop, Progress& progress, Repeat& r, bool may_retry);

}  // namespace energy::cli
