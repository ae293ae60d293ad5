// `energyctl sweep`'s progress on stderr: run i of N, the point, the repeat,
// elapsed time, the estimated finish and the last result. Three styles: on a
// terminal one line redrawn in place; otherwise (a log, a pipe) one line per
// run; with `--progress json` one JSON object per line (progress_json), for
// programs that drive energyctl (the Python client's run_sweep).
//
// Thread-safety: one Progress per thread.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace energy::cli {

enum class ProgressStyle { kRedraw, kLines, kJson };

struct ProgressState {
  size_t done = 0;               // runs finished in this invocation
  size_t total = 0;              // runs planned in this invocation
  bool total_estimated = false;  // --search: `total` is the search's estimate, revised as it goes
  size_t point = 0;              // 0-based index in the sweep's points
  size_t points = 0;             // 0: not shown (a search visits points in no fixed count)
  int repeat = 0;                // 1-based; 0 for a warm-up
  int repeats = 0;               // 0: not shown (a search decides per point)
  std::string label;             // the point: "gpu 612MHz, batch=8" or "dvfs"
  double elapsed_s = 0.0;        // since this invocation started
  std::optional<double> eta_s;   // seconds left; absent before the first run
  std::string last;              // the last run's result, e.g. "1.234 J/item in 2.1 s"
};

// One line, without a newline.
std::string progress_text(const ProgressState& s);

// The same as a JSON object: {"event": "run", "run", "runs",
// "runs_estimated", "point" (0-based), "points"?, "repeat" (0: warm-up),
// "repeats"?, "label", "elapsed_s", "eta_s"?, "last"?}.
nlohmann::json progress_json(const ProgressState& s);

class Progress {
 public:
  explicit Progress(ProgressStyle style) : style_(style) {}
  void show(const ProgressState& s);
  // A message on its own line (the progress line is redrawn after it); with
  // kJson {"event": "note", "message"}.
  void note(const std::string& message);
  // kJson only: `event` as one line (e.g. {"event": "sweep", ...}).
  void event(const nlohmann::json& event);
  // Ends the redrawn line.
  void finish();

 private:
  ProgressStyle style_;
  bool drawn_ = false;
};

}  // namespace energy::cli
