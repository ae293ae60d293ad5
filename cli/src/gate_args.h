// The quality gate options that `mark start`, `run` and `sweep` share
// (docs/PROTOCOL.md "Quality"): what a run must show for its figures to
// count. energyd stores the gate with the run and judges the run by it.
//
//   --min-coverage PCT  the share of the run covered by readings, 0 < PCT <= 100 (default 98)
//   --max-gap K         no stretch without a reading longer than K sampling periods, 1-1000 (default 2)
//   --exclusive         (mark start, run) refused while another run is open; any overlap fails the run
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "command.h"
#include "command_table.h"
#include "energy/result.h"

namespace energy::cli {

std::vector<OptionSpec> gate_options(bool with_exclusive);

// Whether `flag` is one of the gate options (with_exclusive: --exclusive too).
bool is_gate_option(const std::string& flag, bool with_exclusive);

// Checks one gate option's value and adds it to mark.start's arguments
// (min_coverage as a fraction, max_gap_periods, exclusive). Errors name the
// option and what it takes.
Status apply_gate_option(const std::string& flag, const std::string& value, nlohmann::json& start_args);

}  // namespace energy::cli
