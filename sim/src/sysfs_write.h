// What user space writes to a sysfs attribute, parsed as the kernel parses
// it: numbers as kstrtol()/kstrtoul() do (one optional leading sign, digits,
// one optional trailing newline, nothing else), words as the cpufreq and
// devfreq governor stores do (sscanf "%s": the first whitespace-separated
// token). Every error is kInvalid with sys_errno EINVAL, which is what
// write(2) then fails with.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "energy/result.h"

namespace energy::sim {

Result<std::int64_t> parse_written_integer(std::string_view text);
Result<std::uint64_t> parse_written_unsigned(std::string_view text);
// "performance\n" -> "performance"; "" when nothing but whitespace was written.
std::string written_word(std::string_view text);
// The EINVAL error a store function returns, naming why.
Error rejected_write(std::string why);

}  // namespace energy::sim
