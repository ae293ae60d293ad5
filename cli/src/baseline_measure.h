// Measuring an idle baseline (energyctl baseline, energyctl run --baseline):
// a run tagged energyd.kind=baseline (mark.start's "baseline_run": true; it
// needs the clock privilege) that lasts the requested time while the board
// is left alone; later runs report idle and net energy against it
// (docs/PROTOCOL.md, "Idle baselines").
//
// SIGINT, SIGTERM and SIGHUP are held while the baseline is measured: one
// arriving ends it early, and the run is stopped with the tag
// energyd.kind=baseline-interrupted (mark.stop's "baseline_interrupted":
// true), so no report uses a cut-short baseline.
//
// Thread-safety: for single-threaded programs (it changes the signal mask).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "command.h"

namespace energy::cli {

constexpr int64_t kDefaultBaselineMs = 10000;
constexpr int64_t kMaxBaselineMs = 3'600'000;  // --baseline's bound: an hour of idling is plenty

struct BaselineRequest {
  int64_t duration_ms = kDefaultBaselineMs;
  std::string name = "baseline";
};

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json member; its moves do not throw
struct BaselineOutcome {
  int exit_code = kExitOk;  // kExitOk, or energyctl's code (printed already) / 128+N for a signal
  int signal = 0;           // the signal that cut the baseline short, or 0
  nlohmann::json report;    // mark.stop's report of the baseline run (when it was stopped)
};

BaselineOutcome measure_baseline(const Context& ctx, const BaselineRequest& request);

// The text `energyctl baseline` prints: idle power per rail and in total.
std::string render_baseline(const nlohmann::json& report);

}  // namespace energy::cli
