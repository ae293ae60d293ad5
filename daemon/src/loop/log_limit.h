// LogLimiter: repeated failures rate-limited per cause (STYLE.md rule 4).
//
// The first line of a cause is always logged and opens a window of one
// interval; within a window at most `burst` lines of that cause are logged
// (burst 1: at most one line per interval). A line that follows suppressed
// ones says how many were held back, so the journal shows that a failure went
// on without being flooded by it.
// Causes are short fixed strings ("storage.checkpoint", "watchdog") or
// include an identifier (a rail label), never free-form error text.
//
// Thread-safety: allow() from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "energy/time_source.h"

namespace energy::daemon {

class LogLimiter {
 public:
  LogLimiter(const Clock& clock, std::chrono::milliseconds interval, int burst = 1)
      : clock_(clock), interval_(interval), burst_(burst < 1 ? 1 : burst) {}

  struct Verdict {
    bool log = false;
    int64_t suppressed = 0;  // lines of this cause held back since the last one logged
  };
  Verdict allow(const std::string& cause);
  // " (N similar messages suppressed)" or "" - to append to the logged line.
  static std::string suffix(const Verdict& v);

 private:
  struct Cause {
    int64_t window_start_ns = 0;
    int logged_in_window = 0;
    int64_t suppressed = 0;
  };
  const Clock& clock_;
  std::chrono::milliseconds interval_;
  int burst_;
  std::mutex mu_;
  std::map<std::string, Cause> causes_;
};

}  // namespace energy::daemon
