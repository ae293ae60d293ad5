// Processes for the simulator's integration tests: a child started with
// fork + execv whose output goes to a file, killed and reaped by its owner;
// and a live `energyd-sim run` whose mount is always cleaned up.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "control_client.h"
#include "sim_test_util.h"

namespace energy::sim::test {

// A running child; the destructor sends SIGTERM, then SIGKILL after 5 s, and reaps it.
class ChildProcess {
 public:
  ChildProcess(const std::vector<std::string>& argv, const std::string& output_file);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool started() const { return pid_ > 0; }
  // The exit status (WEXITSTATUS, or 128 + signal) once it exits; -1 after `timeout`.
  int wait(std::chrono::milliseconds timeout);
  void signal(int sig) const;

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
};

struct CommandResult {
  int code = -1;
  std::string out;  // stdout and stderr
};
// Runs argv to completion (at most `timeout`).
CommandResult run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

// `energyd-sim run` on a board, mounted under a fresh temp dir, with the CPU
// load pinned (the tests must not depend on the host's load). ready() is
// true once the control socket answers. The destructor stops it and, even
// if that failed, lazily unmounts the mount point.
class LiveSim {
 public:
  LiveSim(const std::string& board, int l4t, const std::vector<std::string>& extra = {});
  ~LiveSim();
  LiveSim(const LiveSim&) = delete;
  LiveSim& operator=(const LiveSim&) = delete;

  bool ready() const { return ready_; }
  std::string log() const;
  const std::string& mount() const { return mount_; }
  const std::string& control() const { return control_; }
  std::string path(const std::string& tree_path) const { return mount_ + tree_path; }
  // A control command; fails the calling test on an error reply.
  nlohmann::json ctl(const std::string& cmd, const nlohmann::json& args = nlohmann::json::object());
  // Stops with `sig` and returns the exit status.
  int stop(int sig);

 private:
  TempDir dir_;
  std::string mount_;
  std::string control_;
  std::string log_file_;
  std::unique_ptr<ChildProcess> process_;
  bool ready_ = false;
};

// True when `dir` is a mount point (per /proc/self/mountinfo).
bool is_mounted(const std::string& dir);
// Why the FUSE tests cannot run here, or empty when /dev/fuse is usable.
std::string fuse_unavailable_reason();

}  // namespace energy::sim::test
