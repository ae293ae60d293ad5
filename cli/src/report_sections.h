// Text of the parts of a run report (mark.stop, runs.show) beyond energy per
// rail: the idle baseline with idle and net energy per rail and in total,
// and the report's notes (open or interrupted run, gaps, doubtful baseline).
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace energy::cli {

// "idle baseline: ..." and its table; for a run without a baseline, one line
// saying so; for a baseline run, one line saying what it is for.
std::string baseline_text(const nlohmann::json& report);
// One "note: ..." line per entry of the report's notes.
std::string notes_text(const nlohmann::json& report);
// The report's quality verdict (docs/PROTOCOL.md "Quality"): the verdict with
// its gate, every check that did not pass, and the runs that overlapped it.
std::string quality_text(const nlohmann::json& report);
// The run's share of the CPU rails' energy (docs/PROTOCOL.md "Attribution"), or why there is none.
std::string attribution_text(const nlohmann::json& report);
// "PASS", "WARN", "FAIL" for a verdict; "-" for none.
std::string verdict_word(const std::string& verdict);
// "items: 64; energy per item 0.123456 J, net 0.1 J" when the run has items; "" otherwise.
std::string per_item_text(const nlohmann::json& report);
// An item count as given (64, 0.5), without padding.
std::string items_text(double items);
// True when the run's tags say it is a baseline (energyd.kind=baseline).
bool is_baseline_report(const nlohmann::json& report);

}  // namespace energy::cli
