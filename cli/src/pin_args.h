// The clock options shared by `energyctl pin` and `energyctl run`:
//   --cpu F  --gpu F  --emc F  --domain NAME=F  --governor G  --allow-offline-cpus
// F is min, max, a frequency with a unit (1.2GHz, 624.75MHz) or LO:HI; the
// daemon parses F (docs/CLOCKS.md). They fill the clocks.pin arguments
// "domains", "governor" and "allow_offline_cpus" (docs/PROTOCOL.md).
// Also the MHz text that pin replies and run reports share.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "energy/result.h"

namespace energy::cli {

// clocks.pin arguments with an empty "domains" object.
nlohmann::json empty_pin_args();
// True for the clock options that take a value (--cpu, --gpu, --emc, --domain, --governor).
bool is_pin_option(const std::string& flag);
// True for the clock flags without a value (--allow-offline-cpus).
bool is_pin_flag(const std::string& flag);
// Applies one option (flags ignore `value`) to `args`; an error names the option.
Status apply_pin_option(const std::string& flag, const std::string& value, nlohmann::json& args);
// True once at least one domain was given.
bool pins_anything(const nlohmann::json& args);

// Hz as MHz, exact (every digit a whole number of Hz needs) and without
// trailing zeros: 624750000 -> "624.75", 1234567 -> "1.234567". With the
// unit appended ("624.75MHz") it is a frequency `pin` takes for that Hz.
std::string exact_mhz(int64_t hz);
// exact_mhz of a JSON integer; "-" when `hz` is not an integer.
std::string mhz_text(const nlohmann::json& hz);
// "LO..HI" in MHz, or one value when both are equal.
std::string range_text(const nlohmann::json& lo, const nlohmann::json& hi);

}  // namespace energy::cli
