// The table `energyctl runs` prints: one row per run of a runs.list reply
// (id, name, state, start in local time, duration, module energy J, average
// W, energy per item when the run has items, its tags). Unknown figures
// show as "-", never as 0. Tags are compact (k=v,k=v; energyd's own
// energyd.* tags left out) and cut to kMaxTagsChars with "..." (the
// full tags are in --json).
//
// Thread-safety: pure function.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "command.h"
#include "energy/client.h"
#include "energy/result.h"

namespace energy::cli {

constexpr size_t kMaxTagsChars = 48;

// "batch=8,model=resnet", cut to kMaxTagsChars; "-" without user tags.
std::string compact_tags(const nlohmann::json& tags);
std::string render_run_list(const nlohmann::json& runs);

// Runs fetched from energyd, newest first; `more`: runs remain beyond them.
struct RunPage {
  nlohmann::json runs = nlohmann::json::array();
  bool more = false;
};
// Connects to energyd and pages runs.list with `filter` (its arguments
// without limit and before_id) until `limit` runs or the end.
Result<RunPage> fetch_runs(const Context& ctx, const nlohmann::json& filter, int64_t limit);

}  // namespace energy::cli
