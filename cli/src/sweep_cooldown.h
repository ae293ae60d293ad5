// `energyctl sweep --cooldown`: before each run, wait until the board is
// back near idle. `auto` polls energyd (`status`: the module total's power;
// `clocks`: the hottest thermal zone, when the board reports one) until the
// power is at most 10% + 0.1 W above the idle reference and the temperature
// at most 2 C above it, or until the timeout (then the run goes ahead and
// the message says so). A fixed DURATION waits that long; `off` not at all.
// The wait is recorded with the run (sweep.add_run's cooldown_ms).
//
// The idle reference is the sweep's idle baseline (--baseline) when there is
// one, else the board as read when the sweep (or its resume) started.
//
// Thread-safety: for single-threaded programs (it polls the SignalBlock).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "command.h"
#include "run_child.h"
#include "sweep_args.h"

namespace energy::cli {

struct IdleReference {
  double power_w = 0.0;
  std::optional<double> temp_c;
};

constexpr double kCooldownPowerShare = 0.10;
constexpr double kCooldownPowerSlackW = 0.1;
constexpr double kCooldownTempSlackC = 2.0;

// The board as read now. Errors: energyd unreachable, or no total power
// (a cooldown never compares against a reading it did not get).
Result<IdleReference> read_board(const Context& ctx);

// True once `now` is within the margins of `idle`.
bool near_idle(const IdleReference& now, const IdleReference& idle);

struct CooldownOutcome {
  int64_t waited_ms = 0;
  bool timed_out = false;
  int signal = 0;          // a forwarded-kind signal arrived: stop
  std::string read_error;  // the board could not be read: the wait ended without knowing (auto)
};

CooldownOutcome cool_down(const Context& ctx, const Cooldown& rule, const IdleReference& idle,
                          const SignalBlock& block);

}  // namespace energy::cli
