// `energyctl sweep`'s progress on stderr: point i of N, the repeat, elapsed
// time, the estimated finish and the last result. On a terminal one line is
// redrawn in place; otherwise (a log, a pipe) one line per run.
//
// Thread-safety: one Progress per thread.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace energy::cli {

struct ProgressState {
  size_t done = 0;   // runs finished in this invocation
  size_t total = 0;  // runs planned in this invocation
  size_t point = 0;  // 1-based
  size_t points = 0;
  int repeat = 0;  // 1-based; 0 for a warm-up
  int repeats = 0;
  std::string label;            // the point: "gpu 612MHz, batch=8" or "dvfs"
  double elapsed_s = 0.0;       // since this invocation started
  std::optional<double> eta_s;  // seconds left; absent before the first run
  std::string last;             // the last run's result, e.g. "1.234 J/item in 2.1 s"
};

// One line, without a newline.
std::string progress_text(const ProgressState& s);

class Progress {
 public:
  explicit Progress(bool terminal) : terminal_(terminal) {}
  void show(const ProgressState& s);
  // A message on its own line (the progress line is redrawn after it).
  void note(const std::string& message);
  // Ends the redrawn line.
  void finish();

 private:
  bool terminal_;
  bool drawn_ = false;
};

}  // namespace energy::cli
