// Clock (time_source.h): the seam through which all of libenergy and energyd learn "now".
//
// Units: nanoseconds as int64. boot_ns is CLOCK_BOOTTIME (monotonic, counts
// suspend): every energy integral uses it. mono_ns is CLOCK_MONOTONIC (does
// not count suspend): sampling deadlines use it. wall_ns is CLOCK_REALTIME,
// for display only: wall-clock steps never change a measured figure.
//
// Thread-safety: SystemClock is stateless and safe from any thread. Test
// clocks document their own rules.
#pragma once

#include <cstdint>
#include <string>

namespace energy {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t boot_ns() const = 0;
  virtual int64_t mono_ns() const = 0;
  virtual int64_t wall_ns() const = 0;
};

class SystemClock final : public Clock {
 public:
  int64_t boot_ns() const override;
  int64_t mono_ns() const override;
  int64_t wall_ns() const override;
};

// The kernel's id of the current boot (/proc/sys/kernel/random/boot_id), or
// "unknown-boot" when it cannot be read. Samples carry it so that boot-time
// stamps of different boots are never compared.
std::string current_boot_id();

constexpr int64_t kNsPerMs = 1'000'000;
constexpr int64_t kNsPerSec = 1'000'000'000;

}  // namespace energy
