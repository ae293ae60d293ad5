// `energyctl compare`: run reports (runs.show replies) side by side. Per
// metric the value of each run and its difference to the first run in
// percent: duration, module energy, net energy (when a run has a baseline),
// average and peak power, energy and net energy per item (when a run has
// items stored), and energy per rail (every rail of any run).
//
// JSON: {"runs": [{id, name, state, quality}], "metrics": [{metric, rail?, unit,
// values: [...], diff_pct: [...]}]}; a value a run lacks is null, and so is
// its difference (and every difference when the first run's value is 0 or
// missing). diff_pct of the first run is null: it is the reference.
//
// Energy rows (the module total and each rail) also say whether each run's
// difference to the first is more than the two figures' precision can
// explain: precision_j (each run's, null if its report has none: an energyd
// older than precision_j gives error_bound_j, which is used instead),
// combined_precision_j (root-sum-square of the first run's and this run's:
// their precisions count as independent), and exceeds_precision (|value -
// first| > combined_precision_j; null for the first run or when a figure is
// missing). The precision leaves out the monitors' calibration, which is the
// same for runs on one board: across boards, compare accuracy_j instead.
// The table marks such a difference with '*', one within the precision
// with '~'. Each run's quality verdict (docs/PROTOCOL.md "Quality") is
// `quality` in JSON (null from an energyd without it) and the table's
// first row.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace energy::cli {

// (value - first) / first x 100; nullopt when either is missing or first is 0.
std::optional<double> percent_difference(std::optional<double> first, std::optional<double> value);
// Whether |value - first| exceeds the root-sum-square of the two precisions;
// nullopt when any of the four is missing.
std::optional<bool> exceeds_precision(std::optional<double> first, std::optional<double> first_precision,
                                      std::optional<double> value, std::optional<double> precision);
nlohmann::json compare_json(const std::vector<nlohmann::json>& reports);
std::string render_compare(const nlohmann::json& comparison);

}  // namespace energy::cli
