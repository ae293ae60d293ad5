// `energyctl live`: a tegrastats-like view refreshed every interval, from
// the `status` reply (per-rail V/A/W, module total) and the `clocks` reply
// (current frequency and GPU load per clock domain, temperatures).
//
// Snapshot JSON (one per refresh; --json prints one per line):
//   {wall_ns, total_power_w (null while a total rail's read fails),
//    rails: [{label, in_total, voltage_v, current_a, power_w} | {label, in_total, error}],
//    clocks: [{name, kind, cur_hz, load_permille?}], thermal: [{type, temp_c}]}
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace energy::cli {

nlohmann::json live_snapshot(const nlohmann::json& status, const nlohmann::json& clocks, int64_t wall_ns);
// The block of text one refresh shows (no terminal control sequences).
std::string render_live(const nlohmann::json& snapshot);

}  // namespace energy::cli
