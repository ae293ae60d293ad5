#include "board_fixture.h"

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <stdlib.h>

namespace energy::testing {

BoardSpec constant_orin_nano() {
  BoardSpec s;
  s.rails = {"VDD_IN=5000:1000", "VDD_CPU_GPU_CV=5000:200", "VDD_SOC=5000:400"};
  return s;
}

const nlohmann::json* report_rail(const nlohmann::json& report, const std::string& label) {
  for (const auto& r : report["rails"]) {
    if (r["label"] == label) return &r;
  }
  return nullptr;
}

bool any_note_contains(const nlohmann::json& report, const std::string& what) {
  for (const auto& n : report.value("notes", nlohmann::json::array())) {
    if (n.get<std::string>().find(what) != std::string::npos) return true;
  }
  return false;
}

namespace {

std::vector<std::string> rail_overrides(const BoardSpec& spec) {
  std::vector<std::string> out;
  for (const auto& r : spec.rails) {
    out.push_back("--rail");
    out.push_back(r);
  }
  return out;
}

}  // namespace

bool SimulatedDaemon::start_live_board(const BoardSpec& spec) {
  if (::access("/dev/fuse", R_OK | W_OK) != 0) {
    setup_error_ = "a live board needs /dev/fuse (FUSE) and root";
    return false;
  }
  std::vector<std::string> argv = {ENERGYD_SIM_BIN, "run",        "--board", spec.board,
                                   "--l4t",         spec.l4t,     "--mount", tmp_.path() + "/board",
                                   "--control",     sim_control()};
  for (const auto& list : {rail_overrides(spec), spec.sim_args}) argv.insert(argv.end(), list.begin(), list.end());
  sim_ = std::make_unique<ChildProcess>(argv, tmp_.path() + "/sim.log");
  if (wait_for_socket(sim_control(), std::chrono::seconds(15))) return true;
  setup_error_ = "energyd-sim run did not start: " + read_file(tmp_.path() + "/sim.log");
  return false;
}

bool SimulatedDaemon::make_board(const BoardSpec& spec) {
  if (spec.live) return start_live_board(spec);
  std::vector<std::string> argv = {ENERGYD_SIM_BIN, "create", "--board", spec.board,
                                   "--l4t",         spec.l4t, "--root",  tmp_.path() + "/board"};
  auto rails = rail_overrides(spec);
  argv.insert(argv.end(), rails.begin(), rails.end());
  auto made = run_command(argv);
  if (made.exit_code == 0) return true;
  setup_error_ = "energyd-sim failed: " + made.err;
  return false;
}

SimulatedDaemon::SimulatedDaemon(const BoardSpec& spec) : socket_(tmp_.path() + "/energyd.sock") {
  if (spec.ring) {
    char tmpl[] = "/dev/shm/energyd-test-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) {
      setup_error_ = std::string("cannot make a directory in /dev/shm: ") + std::strerror(errno);
      return;
    }
    run_dir_ = tmpl;
    socket_ = run_dir_ + "/energyd.sock";
  }
  if (!make_board(spec)) return;
  std::ofstream(tmp_.path() + "/energyd.yaml") << "# written by the test fixture\nlog_level: debug\n"
                                               << spec.extra_config;
  std::vector<std::string> argv = {ENERGYD_BIN,
                                   "--root",
                                   tmp_.path() + "/board",
                                   "--state-dir",
                                   tmp_.path() + "/state",
                                   "--socket",
                                   socket_,
                                   "--sample-period-ms",
                                   std::to_string(spec.sample_period_ms),
                                   "--config",
                                   tmp_.path() + "/energyd.yaml"};
  argv.insert(argv.end(), spec.daemon_args.begin(), spec.daemon_args.end());
  daemon_argv_ = argv;
  daemon_env_ = spec.daemon_env;
  start_daemon();
}

void SimulatedDaemon::start_daemon() {
  daemon_ = std::make_unique<ChildProcess>(daemon_argv_, tmp_.path() + "/energyd.log", daemon_env_);
  started_ = wait_for_socket(socket_, std::chrono::seconds(10));
  if (!started_) setup_error_ = "energyd did not start: " + log();
}

bool SimulatedDaemon::restart(int sig) {
  if (daemon_argv_.empty()) return false;
  stop(sig);
  start_daemon();
  return started_;
}

bool SimulatedDaemon::restart_with_period(int sig, int period_ms) {
  auto it = std::find(daemon_argv_.begin(), daemon_argv_.end(), "--sample-period-ms");
  if (it == daemon_argv_.end() || it + 1 == daemon_argv_.end()) return false;
  *(it + 1) = std::to_string(period_ms);
  return restart(sig);
}

SimulatedDaemon::~SimulatedDaemon() {
  if (daemon_) daemon_->stop(SIGTERM);
  if (!run_dir_.empty()) std::filesystem::remove_all(run_dir_);
  if (!sim_) return;
  sim_->stop(SIGTERM);
  ::umount2((tmp_.path() + "/board").c_str(), MNT_DETACH);  // in case the simulator could not unmount
}

pid_t SimulatedDaemon::pid() const { return daemon_ ? daemon_->pid() : -1; }

std::string SimulatedDaemon::log() const { return read_file(tmp_.path() + "/energyd.log"); }

CommandResult SimulatedDaemon::ctl(const std::vector<std::string>& args) const {
  return run_energyctl(socket_, args, false);
}

nlohmann::json SimulatedDaemon::ctl_json(const std::vector<std::string>& args) const {
  std::vector<std::string> with_json = {"--json"};
  with_json.insert(with_json.end(), args.begin(), args.end());
  auto r = ctl(with_json);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON: " << r.out;
  return j;
}

int SimulatedDaemon::stop(int sig) { return daemon_ ? daemon_->stop(sig) : -1; }

}  // namespace energy::testing
