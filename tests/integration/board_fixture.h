// A simulated board with energyd running on it, driven through energyctl.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness.h"

namespace energy::testing {

struct BoardSpec {
  std::string board = "jetson-orin-nano";
  std::string l4t = "36";
  std::vector<std::string> rails;  // "LABEL=MV:MA" overrides for energyd-sim
  int sample_period_ms = 100;
  std::vector<std::string> daemon_args;  // extra energyd arguments
  std::vector<std::string> daemon_env;   // extra NAME=VALUE entries in energyd's environment
  std::string extra_config;              // YAML lines appended to the daemon's config file
  // A live board (energyd-sim run: FUSE, the power model, its ground truth and
  // control socket) instead of a static tree; needs /dev/fuse.
  bool live = false;
  std::vector<std::string> sim_args;  // extra energyd-sim run arguments, e.g. --cpu-load 0
  // The socket in a directory of /dev/shm (a tmpfs, as /run/energyd is), so
  // energyd keeps its sweep ring there (sweep_ring.h).
  bool ring = false;
};

// Orin Nano (L4T 36, hwmon ina3221, 5 mOhm shunts): 5000 mV and 1000/200/400 mA
// are exactly representable (8 mV and 8 mA steps), so the rails read
// VDD_IN 5.000 W, VDD_CPU_GPU_CV 1.000 W and VDD_SOC 2.000 W.
BoardSpec constant_orin_nano();

// The entry of `label` in a run report's "rails", or nullptr.
const nlohmann::json* report_rail(const nlohmann::json& report, const std::string& label);
// Whether one of a run report's "notes" holds `what`.
bool any_note_contains(const nlohmann::json& report, const std::string& what);

class SimulatedDaemon {
 public:
  explicit SimulatedDaemon(const BoardSpec& spec);
  ~SimulatedDaemon();

  bool started() const { return started_; }
  const std::string& setup_error() const { return setup_error_; }
  const std::string& socket() const { return socket_; }
  std::string log() const;
  std::string dir() const { return tmp_.path(); }
  // The sweep ring's file (BoardSpec::ring), or "".
  std::string ring() const { return run_dir_.empty() ? "" : run_dir_ + "/sweep-ring"; }
  // energyd's process id (-1 when it is not running).
  pid_t pid() const;

  // The live board's control socket (BoardSpec::live).
  std::string sim_control() const { return tmp_.path() + "/sim.ctl"; }
  // energyctl --socket S ARGS...
  CommandResult ctl(const std::vector<std::string>& args) const;
  // energyctl --socket S --json ARGS..., parsed; fails the test on bad JSON.
  nlohmann::json ctl_json(const std::vector<std::string>& args) const;
  int stop(int sig);
  // Stops energyd with `sig` and starts it again on the same board, state
  // and socket; true once it serves.
  bool restart(int sig);
  // As restart, with another --sample-period-ms.
  bool restart_with_period(int sig, int period_ms);

 private:
  void start_daemon();

  TempDir tmp_;
  std::string run_dir_;  // BoardSpec::ring's directory
  std::string socket_;
  std::unique_ptr<ChildProcess> daemon_;
  std::vector<std::string> daemon_argv_;
  std::vector<std::string> daemon_env_;
  bool started_ = false;
  std::string setup_error_;
  std::unique_ptr<ChildProcess> sim_;

  bool make_board(const BoardSpec& spec);
  bool start_live_board(const BoardSpec& spec);
};

}  // namespace energy::testing
