#include "sim_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace energy::sim::test {
namespace {

std::vector<char*> c_argv(std::vector<std::string>& args) {
  std::vector<char*> out;
  for (std::string& a : args) out.push_back(a.data());
  out.push_back(nullptr);
  return out;
}

// Tries fusermount3 first (works for any user), then a lazy umount2 (root).
void force_unmount(const std::string& dir) {
  if (!is_mounted(dir)) return;
  (void)run_command({"/bin/sh", "-c", "fusermount3 -u -z '" + dir + "' 2>/dev/null"}, std::chrono::seconds(5));
  if (is_mounted(dir)) ::umount2(dir.c_str(), MNT_DETACH);
}

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::string& output_file) {
  std::vector<std::string> args = argv;
  std::vector<char*> c_args = c_argv(args);
  const int out = ::open(output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) return;
  pid_ = ::fork();
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // a killed test run still stops (and so unmounts) the simulator
    ::dup2(out, STDOUT_FILENO);
    ::dup2(out, STDERR_FILENO);
    ::execv(c_args[0], c_args.data());
    ::_exit(127);
  }
  ::close(out);
}

ChildProcess::~ChildProcess() {
  if (pid_ <= 0 || reaped_) return;
  signal(SIGTERM);
  if (wait(std::chrono::seconds(5)) < 0) {
    signal(SIGKILL);
    wait(std::chrono::seconds(5));
  }
}

void ChildProcess::signal(int sig) const {
  if (pid_ > 0 && !reaped_) ::kill(pid_, sig);
}

int ChildProcess::wait(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (pid_ > 0 && !reaped_) {
    int status = 0;
    const pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      reaped_ = true;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    if (std::chrono::steady_clock::now() > deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return -1;
}

CommandResult run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  TempDir dir;
  CommandResult result;
  {
    ChildProcess child(argv, dir / "out");
    result.code = child.wait(timeout);
  }
  result.out = read_file(dir / "out");
  return result;
}

bool is_mounted(const std::string& dir) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string id, parent, device, root, mount_point;
    fields >> id >> parent >> device >> root >> mount_point;
    if (mount_point == dir) return true;
  }
  return false;
}

std::string fuse_unavailable_reason() {
  if (::access("/dev/fuse", R_OK | W_OK) == 0) return "";
  return std::string("/dev/fuse is not usable (") + std::strerror(errno) +
         "): the FUSE tests need it - run as root with /dev/fuse present (in a container or chroot, "
         "pass or bind-mount /dev/fuse)";
}

LiveSim::LiveSim(const std::string& board, int l4t, const std::vector<std::string>& extra)
    : mount_(dir_ / "board"), control_(dir_ / "ctl"), log_file_(dir_ / "sim.log") {
  std::vector<std::string> argv = {ENERGYD_SIM_BIN, "run",  "--board",   board,    "--l4t",  std::to_string(l4t),
                                   "--mount",       mount_, "--control", control_, "--data", ENERGYD_SIM_TEST_DATA,
                                   "--cpu-load",    "0"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  process_ = std::make_unique<ChildProcess>(argv, log_file_);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (process_->started() && std::chrono::steady_clock::now() < deadline) {
    if (ControlClient::connect(control_)) {
      ready_ = true;
      return;
    }
    if (process_->wait(std::chrono::milliseconds(0)) >= 0) return;  // it exited: see log()
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

LiveSim::~LiveSim() {
  process_.reset();  // SIGTERM: the simulator unmounts itself
  force_unmount(mount_);
}

std::string LiveSim::log() const { return read_file(log_file_); }

nlohmann::json LiveSim::ctl(const std::string& cmd, const nlohmann::json& args) {
  Result<ControlClient> client = ControlClient::connect(control_);
  if (!client) {
    ADD_FAILURE() << client.error().describe();
    return nlohmann::json::object();
  }
  Result<nlohmann::json> reply = client->call(cmd, args);
  if (!reply) {
    ADD_FAILURE() << reply.error().message;
    return nlohmann::json::object();
  }
  return *reply;
}

int LiveSim::stop(int sig) {
  process_->signal(sig);
  return process_->wait(std::chrono::seconds(10));
}

}  // namespace energy::sim::test
