#include "energy/time_source.h"

#include <time.h>

#include <fstream>

#include "energy/tick_path.h"

namespace energy {
namespace {

int64_t read_clock(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<int64_t>(ts.tv_sec) * kNsPerSec + ts.tv_nsec;
}

}  // namespace

ENERGY_TICK_PATH int64_t SystemClock::boot_ns() const { return read_clock(CLOCK_BOOTTIME); }
ENERGY_TICK_PATH int64_t SystemClock::mono_ns() const { return read_clock(CLOCK_MONOTONIC); }
ENERGY_TICK_PATH int64_t SystemClock::wall_ns() const { return read_clock(CLOCK_REALTIME); }

std::string current_boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  if (!(in >> id) || id.empty()) return "unknown-boot";
  return id;
}

}  // namespace energy
