// Test harness for integration tests: temporary directories, child
// processes (the real energyd, energyctl and energyd-sim binaries) and
// waiting with deadlines. Tests drive the product only as a user would.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "energy/unique_fd.h"

namespace energy::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct CommandResult {
  int exit_code = -1;  // 128+N when killed by signal N
  std::string out;
  std::string err;
};

// Runs argv to completion (killed after the timeout) and captures its output.
CommandResult run_command(const std::vector<std::string>& argv,
                          std::chrono::milliseconds timeout = std::chrono::milliseconds(30000));

// A long-running child, e.g. energyd. Killed (SIGKILL) on destruction if still running.
class ChildProcess {
 public:
  // `env`: extra NAME=VALUE entries added to the child's environment.
  ChildProcess(const std::vector<std::string>& argv, const std::string& log_path,
               const std::vector<std::string>& env = {});
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool running();
  // Sends `sig` and waits for exit; returns the exit code (128+N for a signal).
  int stop(int sig, std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));

 private:
  pid_t pid_ = -1;
  int status_ = 0;
  bool reaped_ = false;
};

// Calls `pred` every `every` until it returns true (then true) or `timeout`
// has passed (then false, after one last call).
bool eventually(const std::function<bool()>& pred, std::chrono::milliseconds timeout,
                std::chrono::milliseconds every = std::chrono::milliseconds(100));

// A connection to the simulator's control socket (energyd-sim run
// --control; sim/README.md "Control protocol"), for loads and ground truth
// without a process per command.
class SimControl {
 public:
  explicit SimControl(const std::string& path);
  // The simulator's reply ({"ok": true, ...}), or {"ok": false, "error": ...}
  // when the connection failed.
  nlohmann::json call(const std::string& cmd, nlohmann::json args = nlohmann::json::object());

 private:
  UniqueFd fd_;
};

// `energyctl --socket SOCKET [--json] ARGS...`, run to completion.
CommandResult run_energyctl(const std::string& socket, const std::vector<std::string>& args, bool json = true,
                            std::chrono::milliseconds timeout = std::chrono::milliseconds(30000));
// The JSON `energyctl --json` printed (discarded when it printed none); its
// exit code in `*exit_code` when given.
nlohmann::json energyctl_json(const std::string& socket, const std::vector<std::string>& args, int* exit_code = nullptr,
                              std::chrono::milliseconds timeout = std::chrono::milliseconds(30000));

// CLOCK_BOOTTIME in ns: the clock energyd stamps its readings with.
int64_t boottime_ns();

// Polls until a Unix socket at `path` accepts connections.
bool wait_for_socket(const std::string& path, std::chrono::milliseconds timeout);
std::string read_file(const std::string& path);

}  // namespace energy::testing
