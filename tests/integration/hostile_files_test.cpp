// Issue 19 items 4 and 7 end to end on a static simulated board: a FIFO in
// place of a sysfs attribute or of energyd's own journal is refused by name
// (energyd starts, answers and stops on SIGTERM), and an out-of-range reading
// is a gap with its error, never a number in a report.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "energy/clocks.h"
#include "energy/rails.h"
#include "energy/sysroot.h"
#include "harness.h"

namespace energy::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class HostileFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    auto made =
        run_command({ENERGYD_SIM_BIN, "create", "--board", "jetson-orin-nano", "--l4t", "36", "--root", board(),
                     "--rail", "VDD_IN=5000:1000", "--rail", "VDD_CPU_GPU_CV=5000:200", "--rail", "VDD_SOC=5000:400"});
    ASSERT_EQ(made.exit_code, 0) << made.err;
    root_ = std::make_unique<SysRoot>(board());
  }
  void TearDown() override {
    if (daemon_) daemon_->stop(SIGTERM);
  }
  std::string board() const { return tmp_.path() + "/board"; }
  std::string state() const { return tmp_.path() + "/state"; }
  std::string sock() const { return tmp_.path() + "/s.sock"; }
  std::string log() const { return read_file(tmp_.path() + "/energyd.log"); }

  // The host path of rail `label`'s file `which`.
  std::string rail_file(const std::string& label, std::string RailInfo::*which) const {
    for (const auto& r : discover_rails(*root_).rails) {
      if (r.label == label) return root_->resolve(r.*which).value();
    }
    ADD_FAILURE() << "no rail " << label;
    return "/nonexistent";
  }
  void replace_with_fifo(const std::string& path) const {
    std::filesystem::remove(path);
    ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0) << path;
  }
  bool start() {
    daemon_ =
        std::make_unique<ChildProcess>(std::vector<std::string>{ENERGYD_BIN, "--root", board(), "--state-dir", state(),
                                                                "--socket", sock(), "--sample-period-ms", "100"},
                                       tmp_.path() + "/energyd.log");
    return wait_for_socket(sock(), seconds(10));
  }
  CommandResult ctl(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {ENERGYCTL_BIN, "--socket", sock(), "--json"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv, milliseconds(8000));
  }
  nlohmann::json status() const { return nlohmann::json::parse(ctl({"status"}).out, nullptr, false); }
  static nlohmann::json rail(const nlohmann::json& st, const std::string& label) {
    for (const auto& r : st["rails"]) {
      if (r["label"] == label) return r;
    }
    return nlohmann::json();
  }

  TempDir tmp_;
  std::unique_ptr<SysRoot> root_;
  std::unique_ptr<ChildProcess> daemon_;
};

TEST_F(HostileFiles, AFifoAtARailInputIsRefusedByNameAndEnergydServesAndStops) {
  std::string fifo = rail_file("VDD_IN", &RailInfo::voltage_file);
  replace_with_fifo(fifo);
  ASSERT_TRUE(start()) << "energyd never became ready: " << log();
  EXPECT_TRUE(eventually([&] { return log().find("in1_input is a FIFO, not a regular file") != std::string::npos; },
                         seconds(3)))
      << log();
  EXPECT_EQ(rail(status(), "VDD_IN").value("errno", 0), EINVAL);
  EXPECT_FALSE(rail(status(), "VDD_SOC").contains("errno"));
  EXPECT_EQ(daemon_->stop(SIGTERM, seconds(5)), 0) << log();
}

TEST_F(HostileFiles, AFifoAtAThermalTempLeavesClocksAnswering) {
  auto clocks = discover_clocks(*root_);
  ASSERT_FALSE(clocks.thermal.empty());
  replace_with_fifo(root_->resolve(join_path(clocks.thermal.front().dir, "temp")).value());
  ASSERT_TRUE(start()) << log();
  auto r = ctl({"clocks"});
  EXPECT_EQ(r.exit_code, 0) << r.err << log();
  EXPECT_EQ(daemon_->stop(SIGTERM, seconds(5)), 0) << log();
}

TEST_F(HostileFiles, AFifoAsTheAveragingJournalDoesNotHoldUpStartUp) {
  std::filesystem::create_directories(state());
  ASSERT_EQ(::mkfifo((state() + "/sensor-averaging.json").c_str(), 0600), 0);
  ASSERT_TRUE(start()) << "energyd never became ready: " << log();
  EXPECT_NE(log().find("sensor-averaging.json is a FIFO"), std::string::npos) << log();
  EXPECT_EQ(daemon_->stop(SIGTERM, seconds(5)), 0) << log();
}

// -4000000000 mA once read as 294,967 A and gave a run of 952,528 J.
TEST_F(HostileFiles, AnOutOfRangeCurrentIsAGapNamingTheValueNotANumberInTheReport) {
  std::string curr = rail_file("VDD_SOC", &RailInfo::current_file);
  ASSERT_TRUE(start()) << log();
  ASSERT_EQ(ctl({"mark", "start", "hostile"}).exit_code, 0);
  std::this_thread::sleep_for(milliseconds(300));
  std::ofstream(curr, std::ios::trunc) << "-4000000000\n";
  ASSERT_TRUE(eventually([&] { return rail(status(), "VDD_SOC").value("errno", 0) == ERANGE; }, seconds(3))) << log();
  std::this_thread::sleep_for(milliseconds(500));
  std::ofstream(curr, std::ios::trunc) << "400\n";
  ASSERT_TRUE(eventually([&] { return !rail(status(), "VDD_SOC").contains("errno"); }, seconds(3))) << log();
  auto stop = ctl({"mark", "stop", "hostile"});
  ASSERT_EQ(stop.exit_code, 0) << stop.err;
  auto report = nlohmann::json::parse(stop.out, nullptr, false);
  nlohmann::json soc = rail(report, "VDD_SOC");
  ASSERT_TRUE(soc.is_object()) << stop.out;
  EXPECT_GE(soc["failed_samples"].get<int>(), 3) << soc.dump();
  // 2 W over a run of a few seconds, the gap bridged: a few joules.
  EXPECT_GT(soc["energy_j"].get<double>(), 0.0) << soc.dump();
  EXPECT_LT(soc["energy_j"].get<double>(), 50.0) << soc.dump();
  std::string file = std::filesystem::path(curr).filename().string();
  EXPECT_NE(log().find(file + ": -4000000000 mA is outside the plausible range"), std::string::npos) << log();
}

// A read that hangs inside a driver cannot be cancelled: a live board whose
// VDD_IN input blocks (energyd-sim fault kind=block) from before energyd
// starts. Discovery names the file it waits on, and SIGTERM still ends
// energyd (nothing on the board was changed yet).
TEST(StuckDiscovery, AReadBlockedInADriverIsNamedAndSigtermStillEndsEnergyd) {
  ASSERT_EQ(::access("/dev/fuse", R_OK | W_OK), 0) << "this test needs /dev/fuse (FUSE) and root";
  TempDir tmp;
  std::string mnt = tmp.path() + "/board", ctl = tmp.path() + "/sim.ctl";
  ChildProcess sim(
      {ENERGYD_SIM_BIN, "run", "--board", "jetson-orin-nano", "--l4t", "36", "--mount", mnt, "--control", ctl},
      tmp.path() + "/sim.log");
  ASSERT_TRUE(wait_for_socket(ctl, seconds(15))) << read_file(tmp.path() + "/sim.log");
  auto fault = run_command({ENERGYD_SIM_BIN, "ctl", "--control", ctl, "fault", "rail=VDD_IN", "kind=block"});
  ASSERT_EQ(fault.exit_code, 0) << fault.out << fault.err;
  std::string log_path = tmp.path() + "/energyd.log";
  ChildProcess daemon(
      {ENERGYD_BIN, "--root", mnt, "--state-dir", tmp.path() + "/state", "--socket", tmp.path() + "/s.sock"}, log_path);
  EXPECT_TRUE(eventually(
      [&] {
        std::string log = read_file(log_path);
        return log.find("discovery: reading ") != std::string::npos && log.find("in1_input") != std::string::npos;
      },
      seconds(6)))
      << read_file(log_path);
  EXPECT_EQ(daemon.stop(SIGTERM, seconds(3)), 128 + SIGTERM) << read_file(log_path);
  run_command({ENERGYD_SIM_BIN, "ctl", "--control", ctl, "clear_fault"});
  sim.stop(SIGTERM);
  ::umount2(mnt.c_str(), MNT_DETACH);  // in case the simulator could not unmount
}

}  // namespace
}  // namespace energy::testing
