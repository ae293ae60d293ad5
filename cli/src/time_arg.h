// Time arguments of energyctl (--since, --until): "now", a relative time
// ("-90s", "-15m", "-2h", "-1d"), seconds since the epoch ("@1795312345"),
// or a date and time: "2026-11-22", "2026-11-22T03:00", "2026-11-22 03:00:00",
// "2026-11-22T03:00:00.250Z", with an optional zone "Z" (UTC, the default),
// "+HH:MM", "-HH:MM", "+HHMM" or "+HH". Every field is checked: month 1-12,
// a day the month has (leap years counted), hour 0-23, minute 0-59, second
// 0-60 (60: a leap second, read as the next minute's 0), offset up to 23:59,
// year 1970-2261 (the results fit in int64 nanoseconds). Results are
// wall-clock nanoseconds; a time before 1970 is refused.
#pragma once

#include <cstdint>
#include <string>

#include "energy/result.h"

namespace energy::cli {

// The error names the text, what is wrong and the expected forms.
Result<int64_t> parse_time_arg(const std::string& text, int64_t now_wall_ns);
// parse_time_arg with the option named first in the error ("--since: ...").
Result<int64_t> parse_time_option(const std::string& option, const std::string& text, int64_t now_wall_ns);
// "2026-11-22T03:00:00.123Z"
std::string format_wall_ns(int64_t wall_ns);
// "2026-11-22 04:00:00" in the local time zone (tables for people).
std::string format_local_ns(int64_t wall_ns);
// The wall clock now, ns.
int64_t wall_now_ns();

}  // namespace energy::cli
