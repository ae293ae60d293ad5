#include "log_limit.h"

namespace energy::daemon {

LogLimiter::Verdict LogLimiter::allow(const std::string& cause) {
  int64_t now = clock_.mono_ns();
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, first] = causes_.try_emplace(cause);
  Cause& c = it->second;
  if (first || now - c.window_start_ns >= static_cast<int64_t>(interval_.count()) * kNsPerMs) {
    c.window_start_ns = now;
    c.logged_in_window = 0;
  }
  if (c.logged_in_window >= burst_) {
    c.suppressed += 1;
    return {};
  }
  c.logged_in_window += 1;
  Verdict v{true, c.suppressed};
  c.suppressed = 0;
  return v;
}

std::string LogLimiter::suffix(const Verdict& v) {
  if (v.suppressed == 0) return "";
  return " (" + std::to_string(v.suppressed) + " similar message" + (v.suppressed == 1 ? "" : "s") + " suppressed)";
}

}  // namespace energy::daemon
