// `energyctl compare --by TAG`: stopped runs (runs.list rows) grouped by the
// value of one tag. Per group: n, and the mean of energy (J), energy per
// item (J, runs with items only), duration (s) and average power (W) with
// their 95% confidence intervals (Student t); per group after the first
// (the reference) the difference of each mean from the reference's with
// its 95% interval (Welch) and in percent. Statistics: run_stats.h.
//
// Groups are ordered by tag value: numerically when every value is a
// number (batch=2 < batch=16), else as text. Runs without the tag, or
// without an energy figure, are listed in `skipped_runs`.
//
// JSON: {"by", "groups": [{"value", "n", "runs": [ids], "metrics": {KEY:
// {n, mean, stddev, ci95_low, ci95_high}}, "vs_reference": {KEY: {diff,
// diff_pct, ci95_low, ci95_high, df}}}], "skipped_runs": [ids]}; KEY is
// energy_j, energy_per_item_j, duration_s, avg_power_w. A figure that
// cannot be given (one run: no interval) is null, never 0.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace energy::cli {

nlohmann::json group_compare_json(const nlohmann::json& runs, const std::string& tag);
std::string render_group_compare(const nlohmann::json& comparison);

}  // namespace energy::cli
