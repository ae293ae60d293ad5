// QUALITY H1 on a live simulated board (energyd-sim run, FUSE): a rail whose
// reads fail with EIO, block, vanish with their device or move to another
// hwmon number is a gap carrying its errno; the other rails keep their ticks;
// the rail is found again by itself; energy still matches the simulator's
// exact ground truth.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>

#include <cmath>
#include <thread>

#include <nlohmann/json.hpp>

#include "harness.h"

namespace energy::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class SensorFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::access("/dev/fuse", R_OK | W_OK), 0) << "these tests need /dev/fuse (FUSE) and root";
    sim_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{ENERGYD_SIM_BIN, "run", "--board", "jetson-agx-orin", "--l4t", "36", "--mount", mnt(),
                                 "--control", ctl_path(), "--cpu-load", "300"},
        tmp_.path() + "/sim.log");
    ASSERT_TRUE(wait_for_socket(ctl_path(), seconds(15))) << read_file(tmp_.path() + "/sim.log");
    daemon_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{ENERGYD_BIN, "--root", mnt(), "--state-dir", tmp_.path() + "/state", "--socket",
                                 sock(), "--flush-interval-ms", "200"},
        tmp_.path() + "/energyd.log");
    ASSERT_TRUE(wait_for_socket(sock(), seconds(10))) << log();
  }
  void TearDown() override {
    if (daemon_) daemon_->stop(SIGTERM);
    if (sim_) sim_->stop(SIGTERM);
    ::umount2(mnt().c_str(), MNT_DETACH);  // in case the simulator could not unmount
  }
  std::string mnt() const { return tmp_.path() + "/board"; }
  std::string ctl_path() const { return tmp_.path() + "/sim.ctl"; }
  std::string sock() const { return tmp_.path() + "/s.sock"; }
  std::string log() const { return read_file(tmp_.path() + "/energyd.log"); }

  nlohmann::json sim(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {ENERGYD_SIM_BIN, "ctl", "--control", ctl_path()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_command(argv);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  }
  nlohmann::json ctl(const std::vector<std::string>& args) {
    auto r = run_energyctl(sock(), args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  }
  static const nlohmann::json& rail(const nlohmann::json& st, const std::string& label) {
    for (const auto& r : st["rails"]) {
      if (r["label"] == label) return r;
    }
    static const nlohmann::json kNone;
    return kNone;
  }
  // Polls status until `pred` holds for it or the timeout passes.
  bool eventually(const std::function<bool(const nlohmann::json&)>& pred, milliseconds timeout) {
    return testing::eventually(
        [&] {
          auto st = ctl({"status"});
          return !st.is_discarded() && pred(st);
        },
        timeout);
  }

  TempDir tmp_;
  std::unique_ptr<ChildProcess> sim_;
  std::unique_ptr<ChildProcess> daemon_;
};

TEST_F(SensorFaults, FailingReadsAreGapsWithTheirErrnoAndOtherRailsAreUntouched) {
  ctl({"mark", "start", "eio"});
  sim({"fault", "rail=VDD_CPU_CV", "kind=eio"});
  ASSERT_TRUE(
      eventually([](const nlohmann::json& st) { return rail(st, "VDD_CPU_CV").value("errno", 0) == EIO; }, seconds(3)));
  std::this_thread::sleep_for(milliseconds(600));
  sim({"clear_fault", "rail=VDD_CPU_CV"});
  ASSERT_TRUE(
      eventually([](const nlohmann::json& st) { return !rail(st, "VDD_CPU_CV").contains("errno"); }, seconds(3)));
  auto rep = ctl({"mark", "stop", "eio"});
  for (const auto& r : rep["rails"]) {
    if (r["label"] == "VDD_CPU_CV") {
      EXPECT_GE(r["failed_samples"].get<int>(), 5);
      EXPECT_GT(r["energy_j"].get<double>(), 0.0);  // bridged, not zero
    } else {
      EXPECT_EQ(r["failed_samples"].get<int>(), 0) << r["label"];
    }
  }
  EXPECT_NE(log().find("rail VDD_CPU_CV: reads fail with"), std::string::npos) << log();
  EXPECT_NE(log().find("rail VDD_CPU_CV: reading again"), std::string::npos);
}

TEST_F(SensorFaults, ABlockedReadIsQuarantinedWhileTheOtherRailsKeepTheirTicks) {
  auto before = ctl({"status"});
  sim({"fault", "rail=VDDQ_VDD2_1V8AO", "kind=block", "ms=3000"});
  std::this_thread::sleep_for(seconds(2));
  auto during = ctl({"status"});
  EXPECT_GE(during["sampler"]["stalls"].get<int>(), 1) << log();
  EXPECT_EQ(rail(during, "VDDQ_VDD2_1V8AO").value("errno", 0), ETIMEDOUT);
  EXPECT_FALSE(rail(during, "VDD_GPU_SOC").contains("errno"));
  int64_t ticks = during["sampler"]["ticks"].get<int64_t>() - before["sampler"]["ticks"].get<int64_t>();
  EXPECT_GE(ticks, 18);  // 2 s of 100 ms ticks, minus at most one late one
  EXPECT_EQ(during["sampler"]["missed_ticks"].get<int64_t>(), before["sampler"]["missed_ticks"].get<int64_t>());
  sim({"clear_fault"});
  EXPECT_TRUE(
      eventually([](const nlohmann::json& st) { return !rail(st, "VDDQ_VDD2_1V8AO").contains("errno"); }, seconds(8)))
      << log();
}

TEST_F(SensorFaults, AVanishedMonitorIsFoundAgainWhenItReturns) {
  sim({"vanish", "device=1-0041"});
  ASSERT_TRUE(
      eventually([](const nlohmann::json& st) { return rail(st, "VDDQ_VDD2_1V8AO").contains("errno"); }, seconds(3)));
  EXPECT_FALSE(rail(ctl({"status"}), "VIN_SYS_5V0").contains("errno"));
  sim({"restore", "device=1-0041"});
  EXPECT_TRUE(
      eventually([](const nlohmann::json& st) { return !rail(st, "VDDQ_VDD2_1V8AO").contains("errno"); }, seconds(5)))
      << log();
}

TEST_F(SensorFaults, RenumberedHwmonNodesAreFoundAgainByLabel) {
  sim({"renumber", "hwmon_offset=5"});
  EXPECT_TRUE(eventually(
      [](const nlohmann::json& st) {
        for (const auto& r : st["rails"]) {
          if (r.contains("errno")) return false;
        }
        return st["sampler"]["ticks"].get<int>() > 0;
      },
      seconds(5)))
      << log();
  auto rails = ctl({"rails"});
  for (const auto& r : rails["rails"]) {
    EXPECT_NE(r["files"]["voltage"].get<std::string>().find("hwmon"), std::string::npos);
  }
}

TEST_F(SensorFaults, RunEnergyMatchesTheSimulatorsGroundTruth) {
  sim({"set_gpu_load", "permille=700"});
  auto start = ctl({"mark", "start", "truth"});
  std::this_thread::sleep_for(seconds(3));
  auto rep = ctl({"mark", "stop", "truth"});
  int64_t from = rep["run"]["start_ns"].get<int64_t>(), to = rep["run"]["stop_ns"].get<int64_t>();
  for (const auto& r : rep["rails"]) {
    auto truth = sim({"energy", "rail=" + r["label"].get<std::string>(), "from_ns=" + std::to_string(from),
                      "to_ns=" + std::to_string(to)});
    double exact_j = truth["energy_uj"].get<double>() / 1e6;
    // Within the run's own bound (M1's accuracy figures are accuracy_test's and the bench's).
    // Not a fixed share: with the chips averaging, a steady 140 mA VDD_CPU_CV (20 mA steps on
    // AGX Orin's 2 mOhm shunts) reads 4.5% high all along, which only the bound's resolution
    // part accounts for.
    EXPECT_LE(std::abs(r["energy_j"].get<double>() - exact_j), r["error_bound_j"].get<double>())
        << r["label"] << " reported " << r["energy_j"] << " J, true " << exact_j << " J";
  }
}

}  // namespace
}  // namespace energy::testing
