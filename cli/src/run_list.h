// The table `energyctl runs` prints: one row per run of a runs.list reply
// (id, name, state, start in local time, duration, module energy J, average
// W). Unknown figures show as "-", never as 0.
//
// Thread-safety: pure function.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace energy::cli {

std::string render_run_list(const nlohmann::json& runs);

}  // namespace energy::cli
