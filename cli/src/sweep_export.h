// `energyctl sweep export ID --csv|--json`: a stored sweep's runs, one row
// per run with its point's clock values and parameters, and (JSON) the
// per-point results and findings of sweep_data.h.
//
// CSV columns: sweep_id, run_id, point, repeat, role, counted, left_out,
// dvfs, one <domain>_hz per clock axis, one param_<name> per parameter,
// cooldown_ms, state, exit_status, start_wall_ns, items, energy_j,
// duration_s, avg_power_w, energy_per_<unit>_j, net_energy_per_<unit>_j,
// time_per_<unit>_s (empty where a value is absent: never 0 for unknown).
// Text fields go through csv_field (terminal_text.h).
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sweep_data.h"

namespace energy::cli {

// The results: {"sweep", "unit", "points": [...], "minimum", "minimum_net",
// "fastest", "pareto", "edp", "dvfs": [...], "notes"}; points are named by
// their index in the sweep ("point").
nlohmann::json sweep_results_json(const SweepResults& results);
// {"sweep", "runs": [one object per run, the CSV's fields], "results"}.
nlohmann::json sweep_export_json(const SweepResults& results);
std::string sweep_export_csv(const SweepResults& results);

}  // namespace energy::cli
