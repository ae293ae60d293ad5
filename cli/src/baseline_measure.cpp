#include "baseline_measure.h"

#include <signal.h>
#include <time.h>

#include <cerrno>
#include <chrono>
#include <cstdio>

#include "report_sections.h"
#include "table.h"

namespace energy::cli {
namespace {

constexpr int kEndingSignals[] = {SIGINT, SIGTERM, SIGHUP};

sigset_t ending_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kEndingSignals) sigaddset(&set, s);
  return set;
}

// Holds the ending signals for its lifetime, so none kills energyctl while
// the baseline run is open; pending ones are taken with wait().
class HeldSignals {
 public:
  HeldSignals() : set_(ending_set()) { sigprocmask(SIG_BLOCK, &set_, &previous_); }
  ~HeldSignals() { sigprocmask(SIG_SETMASK, &previous_, nullptr); }
  HeldSignals(const HeldSignals&) = delete;
  HeldSignals& operator=(const HeldSignals&) = delete;

  // Waits up to `ms` for an ending signal; returns it, or 0 when the time is up.
  int wait(int64_t ms) const {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() < 0) left = std::chrono::nanoseconds(0);
      timespec ts{static_cast<time_t>(left.count() / 1'000'000'000), static_cast<long>(left.count() % 1'000'000'000)};
      int sig = sigtimedwait(&set_, nullptr, &ts);
      if (sig > 0) return sig;
      if (errno == EAGAIN) return 0;  // EINTR: another signal (e.g. SIGWINCH) woke us; keep waiting
    }
  }

 private:
  sigset_t set_;
  sigset_t previous_;
};

}  // namespace

BaselineOutcome measure_baseline(const Context& ctx, const BaselineRequest& request) {
  HeldSignals held;
  BaselineOutcome out;
  // energyd tags the run energyd.kind=baseline (a reserved tag clients cannot set).
  auto start = call_daemon(ctx, "mark.start", {{"name", request.name}, {"baseline_run", true}});
  if (start.exit_code != kExitOk) return {start.exit_code, 0, {}};
  std::string id = std::to_string(start.result.value("id", int64_t{0}));
  std::fprintf(stderr, "energyctl: measuring the idle baseline (run %s) for %s; leave the board idle\n", id.c_str(),
               duration_text(static_cast<double>(request.duration_ms) / 1000.0).c_str());
  out.signal = held.wait(request.duration_ms);
  nlohmann::json args = {{"run", id}};
  if (out.signal != 0) args["baseline_interrupted"] = true;  // energyd.kind=baseline-interrupted
  auto stop = call_daemon(ctx, "mark.stop", args);
  if (out.signal == 0) out.signal = held.wait(0);
  out.report = stop.result;
  out.exit_code = stop.exit_code != kExitOk ? stop.exit_code : out.signal != 0 ? 128 + out.signal : kExitOk;
  return out;
}

std::string render_baseline(const nlohmann::json& rep) {
  const auto& run = member(rep, "run");
  std::string out = "idle baseline: run " + std::to_string(run.value("id", int64_t{0})) + " (" +
                    safe_text(run, "name") + "), " + duration_text(rep.value("duration_s", 0.0)) + "\n";
  Table t({{"RAIL"}, {"IDLE W", Align::kRight}, {"SAMPLES", Align::kRight}, {"COVERAGE", Align::kRight}});
  for (const auto& r : member(rep, "rails")) {
    t.add_row({r.value("label", "") + (r.value("in_total", false) ? " *" : ""), fixed(r.value("avg_power_w", 0.0), 3),
               std::to_string(r.value("samples", 0)), percent(r.value("coverage", 0.0))});
  }
  const auto& total = member(rep, "total");
  t.add_row({"TOTAL", fixed(total.value("avg_power_w", 0.0), 3), std::to_string(total.value("samples", 0)),
             percent(total.value("coverage", 0.0))});
  return out + t.render() + notes_text(rep);
}

}  // namespace energy::cli
