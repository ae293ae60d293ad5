// A stored sweep's results, from sweep.show's reply (docs/PROTOCOL.md
// "Sweeps"): which runs count, each point's statistics (sweep_results.h)
// and the sweep-wide findings. The view (sweep_view.h) and the export
// (sweep_export.h) both read this; it does no I/O.
//
// Counted: runs of role "measure" that stopped (not interrupted), whose
// command did not fail (tag exit_status absent or "0") and whose energy and
// duration are known and above 0; every other measure run is listed with
// the reason it is left out. Per item when every counted run carries an
// item count, else per run (and a note says so). Net energy uses the
// sweep's own idle baselines (role "baseline"): the newest that started
// before the run, its average power times the run's duration; without one
// net figures are absent, never 0.
//
// Thread-safety: pure functions on values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "energy/result.h"
#include "energy/sweep_results.h"
#include "sweep_layout.h"

namespace energy::cli {

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json members; their moves do not throw
struct SweepRunRow {
  int64_t run_id = 0;
  int64_t point = 0;
  int64_t repeat = 0;
  std::string role;
  nlohmann::json cooldown_ms;       // integer or null
  nlohmann::json run;               // runs.list's object for the run
  std::optional<RunSample> sample;  // counted runs only
  std::optional<double> precision;  // the total's precision_j per item (tag energyd.precision_j), counted runs
  std::string left_out;             // measure runs not counted: why
};

struct PointResult {
  size_t point = 0;  // index in the sweep's layout
  PointStats stats;
  // The mean of its runs' precision per item, when every counted run has one:
  // what sampling and integration can leave in a run's figure (precision_j).
  std::optional<double> precision;
};

// Against the DVFS point of the same parameter values: the best clock point's saving.
struct DvfsComparison {
  size_t dvfs = 0;  // indices into SweepResults::points
  size_t best = 0;
  Saving saving;
  // Root-sum-square of the two points' precision (J per item); the saving
  // exceeds it or is within what the measurements themselves can leave.
  std::optional<double> combined_precision;
};

struct SweepResults {
  nlohmann::json sweep;               // the SWEEP header (id, name, state, times)
  std::optional<SweepLayout> layout;  // absent when the spec could not be read
  std::string unit = "item";          // "item" or "run"
  std::vector<SweepRunRow> runs;      // in the order they were added
  std::vector<PointResult> points;    // points with at least one counted run, ascending
  std::optional<MinimumSet> minimum;  // indices into points
  std::optional<MinimumSet> minimum_net;
  std::optional<size_t> fastest;
  std::vector<size_t> pareto;
  std::optional<size_t> edp;
  std::vector<DvfsComparison> dvfs;
  size_t planned_points = 0;  // in the layout (0 when unknown)
  bool search = false;        // a --search sweep: the points it did not need are not run, not missing
  std::vector<std::string> notes;
};

// Errors: a reply without a "sweep" object.
Result<SweepResults> sweep_results_from(const nlohmann::json& show_reply);

// The label of points[i] (point_label, or "point N" without a layout).
std::string result_label(const SweepResults& r, size_t i);

}  // namespace energy::cli
