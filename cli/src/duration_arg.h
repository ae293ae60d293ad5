// Duration arguments of energyctl (pin --for, baseline --duration, run
// --baseline, live --interval): a whole number with a unit, "500ms", "90s",
// "15m", "2h", "1d". Errors name the text and say what is expected.
#pragma once

#include <cstdint>
#include <string>

#include "energy/result.h"

namespace energy::cli {

// Milliseconds; the number must be positive.
Result<int64_t> parse_duration_ms(const std::string& text);

}  // namespace energy::cli
