// The result of `energyctl run`: one entry per repeat (the command's exit
// status and the daemon's run report) and a summary over the repeats, as
// JSON and as text. Energies J, durations s, powers W.
//
// Thread-safety: pure functions on values.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace energy::cli {

// One execution of the command inside one run.
struct Repeat {
  int index = 1;        // 1-based
  int64_t run_id = -1;  // the daemon's run id
  int exit_status = 0;  // shell convention (128+N, 127, 126)
  int died_of_signal = 0;
  std::string exec_error;        // the command could not be started
  int64_t command_start_ns = 0;  // the command's span on CLOCK_BOOTTIME (0: it did not run)
  int64_t command_end_ns = 0;
  std::optional<nlohmann::json> report;  // mark.stop's reply
  std::string stop_error;                // why there is no report
};

struct RunDocument {
  std::string name;
  std::vector<std::string> command;
  int repeat = 1;                       // requested
  std::optional<double> items;          // work items per run (e.g. inferences)
  int exit_status = 0;                  // what energyctl exits with
  std::string interrupted_by;           // "SIGINT" etc. when repeats were cut short
  std::vector<Repeat> repeats;          // as executed
  std::optional<int64_t> baseline_run;  // --baseline: the idle baseline measured before the runs
};

// Summary over repeats whose command exited 0 and that have a report:
// `runs` (how many), then per metric (energy_j, duration_s, avg_power_w and,
// with items, energy_per_item_j) mean, stddev, ci95_low, ci95_high, min, max
// (stddev and the interval null for a single run). Null when no run qualifies.
nlohmann::json summary_json(const std::vector<Repeat>& repeats, std::optional<double> items);
nlohmann::json run_document_json(const RunDocument& doc);
// "SIGINT", "SIGTERM", ... or "signal N".
std::string signal_name(int sig);
// The text energyctl prints: the full report for one run, a table of runs
// and of the summary for several.
std::string render_run_text(const RunDocument& doc);

}  // namespace energy::cli
