// Durations in nanoseconds for the tests' timestamps, defined once: the
// unity build (docs/HACKING.md) compiles several test sources as one
// translation unit, where a constant each source defines for itself
// would be defined twice.
#pragma once

#include <cstdint>

namespace energy {

inline constexpr int64_t kUs = 1'000;
inline constexpr int64_t kMs = 1'000'000;
inline constexpr int64_t kSec = 1'000'000'000;
inline constexpr int64_t kMinuteNs = 60 * kSec;
inline constexpr int64_t kHour = 60 * kMinuteNs;

}  // namespace energy
