// Number arguments of energyctl (runs --limit, live --count, run --repeat,
// run --items). Only plain decimal text is accepted: no sign, no spaces, no
// hex, no trailing characters, nothing out of range. An error names the
// option, the value given and what is expected.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "energy/result.h"

namespace energy::cli {

// A whole number in [min, max] ("--limit must be a whole number from 1 to
// 10000, got '12x'").
Result<int64_t> parse_whole_option(const std::string& option, const std::string& text, int64_t min, int64_t max);
// A finite number > 0, digits with an optional fraction and exponent
// ("1500", "2.5", "1e6").
Result<double> parse_positive_option(const std::string& option, const std::string& text);

}  // namespace energy::cli
