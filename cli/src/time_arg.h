// Time arguments of energyctl (--since, --until): "now", a relative time
// ("-90s", "-15m", "-2h", "-1d"), seconds since the epoch ("@1795312345"),
// or a UTC date and time ("2026-11-22T03:00:00Z", "2026-11-22 03:00:00",
// "2026-11-22"). Results are wall-clock nanoseconds.
#pragma once

#include <cstdint>
#include <string>

#include "energy/result.h"

namespace energy::cli {

Result<int64_t> parse_time_arg(const std::string& text, int64_t now_wall_ns);
// "2026-11-22T03:00:00.123Z"
std::string format_wall_ns(int64_t wall_ns);
// "2026-11-22 04:00:00" in the local time zone (tables for people).
std::string format_local_ns(int64_t wall_ns);
// The wall clock now, ns.
int64_t wall_now_ns();

}  // namespace energy::cli
