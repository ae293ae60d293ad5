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

namespace energy::cli {

constexpr size_t kMaxTagsChars = 48;

// "batch=8,model=resnet", cut to kMaxTagsChars; "-" without user tags.
std::string compact_tags(const nlohmann::json& tags);
std::string render_run_list(const nlohmann::json& runs);

}  // namespace energy::cli
