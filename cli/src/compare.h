// `energyctl compare`: run reports (runs.show replies) side by side. Per
// metric the value of each run and its difference to the first run in
// percent: duration, module energy, net energy (when a run has a baseline),
// average and peak power, energy and net energy per item (when a run has
// items stored), and energy per rail (every rail of any run).
//
// JSON: {"runs": [{id, name, state}], "metrics": [{metric, rail?, unit,
// values: [...], diff_pct: [...]}]}; a value a run lacks is null, and so is
// its difference (and every difference when the first run's value is 0 or
// missing). diff_pct of the first run is null: it is the reference.
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
nlohmann::json compare_json(const std::vector<nlohmann::json>& reports);
std::string render_compare(const nlohmann::json& comparison);

}  // namespace energy::cli
