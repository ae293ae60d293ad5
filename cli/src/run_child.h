// Running the measured command of `energyctl run`: the child inherits
// energyctl's stdin, stdout and stderr; SIGINT, SIGTERM, SIGHUP and SIGQUIT
// sent to energyctl are forwarded to it, and energyctl itself never dies of
// them while a run is open (so it can always close the run).
//
// Exit status follows the shell: the command's code, 128+N when it died of
// signal N, 127 when it was not found, 126 when it could not be executed.
//
// Thread-safety: for single-threaded programs (the signal mask is the
// process's); energyctl is one.
#pragma once

#include <signal.h>

#include <string>
#include <vector>

#include "energy/result.h"

namespace energy::cli {

constexpr int kExitNotFound = 127;
constexpr int kExitNotExecutable = 126;

// Blocks the forwarded signals and SIGCHLD for its lifetime (and makes
// SIGCHLD's action the default); on destruction discards those still pending
// (energyctl has already acted on them) and restores the previous mask and
// SIGCHLD action.
class SignalBlock {
 public:
  SignalBlock();
  ~SignalBlock();
  SignalBlock(const SignalBlock&) = delete;
  SignalBlock& operator=(const SignalBlock&) = delete;

  const sigset_t& previous_mask() const { return previous_; }
  // A forwarded-kind signal received while no command was running
  // (e.g. during a mark), or 0; consumes it.
  int take_pending() const;

 private:
  sigset_t blocked_;
  sigset_t previous_;
  struct sigaction previous_sigchld_ {};
};

struct ChildOutcome {
  int exit_status = 0;      // shell convention, see above
  int died_of_signal = 0;   // the command was killed by this signal (0: it exited)
  int received_signal = 0;  // last signal energyctl received while the command ran (0: none)
  std::string exec_error;   // why the command could not be started (empty when it ran)
  // CLOCK_BOOTTIME right before the spawn and right after the wait that saw
  // the command end (0 when it could not be started): the command's span,
  // which its run becomes (mark.stop's command_start_ns/_end_ns).
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// Starts argv (PATH searched as by a shell) with the mask energyctl had
// before `block` and energyctl's environment plus `environment` (NAME=VALUE
// entries, replacing a variable of the same name), and waits for it,
// forwarding signals. Never fails: a command that cannot be started is
// reported in the outcome.
ChildOutcome run_child(const std::vector<std::string>& argv, const SignalBlock& block,
                       const std::vector<std::string>& environment = {});

}  // namespace energy::cli
