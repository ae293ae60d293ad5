// Text form of a run report's board context: per clock domain its
// residency (the top frequencies with their share of the run, then what is
// left and what is unknown), governors and frequency changes; per thermal
// zone its temperature range. From the report's `clocks` and `thermal`
// (docs/PROTOCOL.md, mark.stop); empty when the report has neither.
//
// Thread-safety: pure functions on values.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace energy::cli {

std::string render_run_context(const nlohmann::json& report);

// "1300.5 MHz", "624.75 MHz", "0 MHz" (exact: at most 6 decimals, none trailing).
std::string mhz_text(int64_t hz);
// A share of the run as a whole percentage; "<1%" for a share that rounds to 0.
std::string share_text(double share);

}  // namespace energy::cli
