// One measured run, made the same way by `energyctl run` and `energyctl
// sweep`: mark.start (with `pin`, the daemon pins the clocks and reads them
// back before the run opens; a refused pin opens no run and the command is
// not run), the command as run_child runs it (energyctl's stdin, stdout,
// stderr; forwarded signals), then mark.stop, always once the run is open,
// tagged with how the command ended: exit_status (shell convention) and,
// when a signal killed it, signal.
//
// Thread-safety: for single-threaded programs (run_child.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command.h"
#include "run_child.h"
#include "run_report.h"

namespace energy::cli {

// The run's "command" tag is its command line cut to this length, which keeps
// the mark.start frame far below 64 KiB.
constexpr size_t kMaxCommandTagChars = 1000;

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json member; its moves do not throw
struct MeasuredRunRequest {
  nlohmann::json start_args;         // mark.start's arguments: name, tags, items, baseline, pin, end_with_connection
  std::vector<std::string> command;  // argv; PATH searched
  std::vector<std::string> environment;  // extra NAME=VALUE entries for the command
};

struct MeasuredStep {
  int exit_code = kExitOk;  // energyctl's own failure (mark.start/stop); kExitOk when measured
  int signal = 0;           // a forwarded-kind signal arrived: the caller stops
  bool opened = false;      // a run was opened (then r.run_id is it, and it was stopped or reported)
  double command_s = 0.0;   // spawn to reap of the command on CLOCK_BOOTTIME (0 when it was not run)
};

// Fills `r` (run_id, exit status, report or stop_error); r.index is the caller's.
MeasuredStep measure_run(const Context& ctx, const MeasuredRunRequest& request, const SignalBlock& block, Repeat& r);

}  // namespace energy::cli
