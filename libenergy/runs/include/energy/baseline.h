// Idle baselines: what the board draws doing nothing, so that a run's
// energy can be split into idle and net (the workload's own) energy.
//
// A baseline is a stopped run tagged energyd.kind=baseline (`energyctl
// baseline` measures one). A run uses the baseline named by its tag
// energyd.baseline=<id>, else the newest baseline that ended before it
// started (of its own boot first). Its report then gains:
//   baseline: {run, name, duration_s, age_s, same_boot, rails: [{label,
//              avg_power_w}], total: {avg_power_w}}
//   per rail and in total: idle_j = baseline average power x run duration,
//                          net_j = energy_j - idle_j
//   notes: why the baseline may not describe an idle board (other runs open
//          while it was measured, another boot, older than a day), or why
//          none could be applied.
// Without a baseline the report has no `baseline` section.
//
// Units: J and W in JSON as floating point, ns for times.
// Thread-safety: reentrant; the Store belongs to the calling thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "energy/report.h"
#include "energy/result.h"
#include "energy/store.h"

namespace energy {

constexpr const char* kRunKindTag = "energyd.kind";  // "baseline" for a baseline run
constexpr const char* kBaselineKind = "baseline";
constexpr const char* kRunBaselineTag = "energyd.baseline";  // the id of the baseline a run uses
// A baseline older than this (before the run started) gets a note.
constexpr int64_t kBaselineStaleNs = 86'400'000'000'000;

// The value of a run's tag, or nullopt.
std::optional<std::string> run_tag(const RunRecord& run, const std::string& key);
bool is_baseline_run(const RunRecord& run);

// What a baseline measured, and how it relates to the run it is applied to.
struct BaselineUse {
  RunRecord run;  // the baseline run
  double duration_s = 0;
  std::vector<std::pair<std::string, double>> rail_avg_w;  // label, average power
  double total_avg_w = 0;
  int64_t age_ns = 0;  // from the baseline's stop to the measured run's start
  bool same_boot = true;
  std::vector<int64_t> open_during;  // other runs open while the baseline was measured
};

// The figures of a baseline's own report (no age or overlap yet).
BaselineUse baseline_from_report(const RunReport& baseline);

// Adds `baseline`, idle_j and net_j (per rail present in both, and in total)
// and the baseline's notes to `report_json` (report_to_json of `report`).
void add_baseline_json(const RunReport& report, const BaselineUse& use, nlohmann::json& report_json);

// Finds the baseline of `report.run` and adds it as above; a baseline that
// cannot be used (missing, not a stopped baseline, no readings) becomes a
// note. Nothing for a baseline run itself or when no baseline exists.
Status apply_baseline(Store& store, const RunReport& report, int64_t gap_threshold_ns, nlohmann::json& report_json);

// Appends a note to report_json["notes"] (created when absent).
void add_report_note(nlohmann::json& report_json, const std::string& note);

}  // namespace energy
