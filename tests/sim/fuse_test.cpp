// `energyd-sim run` end to end: a real FUSE mount read and written with
// ordinary system calls, driven through the control socket. Needs /dev/fuse
// (root or fusermount3); without it every test FAILS with the reason.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <regex>
#include <thread>

#include "energy/unique_fd.h"
#include "sim_process.h"
#include "study.h"

namespace energy::sim {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

const std::string kHwmon = "/sys/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon0";
const std::string kGpu = "/sys/devices/platform/bus@0/17000000.gpu/devfreq/17000000.gpu";

class FuseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string reason = test::fuse_unavailable_reason();
    ASSERT_TRUE(reason.empty()) << reason;
  }
  // Starts the board; fails the test (with the simulator's log) if it does not come up.
  void start(const std::string& board, int l4t, const std::vector<std::string>& extra = {}) {
    sim_ = std::make_unique<test::LiveSim>(board, l4t, extra);
    ASSERT_TRUE(sim_->ready()) << "energyd-sim run did not come up:\n" << sim_->log();
  }
  UniqueFd open_file(const std::string& tree_path, int flags = O_RDONLY) {
    UniqueFd fd(::open(sim_->path(tree_path).c_str(), flags | O_CLOEXEC));
    EXPECT_TRUE(fd) << tree_path << ": " << std::strerror(errno);
    return fd;
  }
  // `energyd-sim workload ARGS...` on the board; its output (the test fails if it does).
  std::string workload(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {ENERGYD_SIM_BIN, "workload", "--control", sim_->control()};
    argv.insert(argv.end(), args.begin(), args.end());
    const test::CommandResult r = test::run_command(argv, std::chrono::seconds(30));
    EXPECT_EQ(r.code, 0) << r.out;
    return r.out;
  }
  std::unique_ptr<test::LiveSim> sim_;
};

// pread at offset 0: the text, or "errno N".
std::string pread0(const UniqueFd& fd) {
  char buffer[256];
  const ssize_t n = ::pread(fd.get(), buffer, sizeof(buffer), 0);
  if (n < 0) return "errno " + std::to_string(errno);
  return std::string(buffer, static_cast<std::size_t>(n));
}

int write_errno(const std::string& path, const std::string& text) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
  if (!fd) return errno;
  return ::write(fd.get(), text.data(), text.size()) == static_cast<ssize_t>(text.size()) ? 0 : errno;
}

int open_errno(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  return fd ? 0 : errno;
}

std::string errno_text(int err) { return "errno " + std::to_string(err); }

TEST_F(FuseTest, PreadAtOffsetZeroOnAnOpenDescriptorGivesAFreshValue) {
  start("jetson-orin-nano", 36);
  const UniqueFd fd = open_file(kHwmon + "/curr1_input");
  sim_->ctl("set_rail", {{"rail", "VDD_IN"}, {"mv", 5000}, {"ma", 1000}});
  std::this_thread::sleep_for(milliseconds(20));  // > one conversion cycle (6.6 ms)
  EXPECT_EQ(pread0(fd), "1000\n");
  sim_->ctl("set_rail", {{"rail", "VDD_IN"}, {"mv", 5000}, {"ma", 2000}});
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(pread0(fd), "2000\n");
}

TEST_F(FuseTest, ModesAndLinksAreTheStaticTreesOnL4t32) {
  start("jetson-nano-4gb", 32);
  struct stat st {};
  ASSERT_EQ(::stat(sim_->path("/sys/bus/i2c/devices/6-0040/iio:device0/rail_name_0").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  ASSERT_EQ(::stat(sim_->path("/sys/bus/i2c/devices/6-0040/iio:device0/in_power0_input").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0444u);
  char target[256] = {};
  const ssize_t n = ::readlink(sim_->path("/proc/device-tree").c_str(), target, sizeof(target) - 1);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(target, static_cast<std::size_t>(n)), "/sys/firmware/devicetree/base");
  const UniqueFd name = open_file("/sys/firmware/devicetree/base/model");
  EXPECT_EQ(pread0(name).back(), '\0');
}

TEST_F(FuseTest, ClockWritesAreRejectedAsTheKernelRejectsThemAndAcceptedInTheRightOrder) {
  start("jetson-orin-nano", 36);
  const std::string max = sim_->path(kGpu + "/max_freq");
  const std::string min = sim_->path(kGpu + "/min_freq");
  EXPECT_EQ(write_errno(max, "400000000\n"), EINVAL);  // not a listed frequency
  EXPECT_EQ(write_errno(min, "612000000\n"), 0);
  EXPECT_EQ(write_errno(max, "408000000\n"), EINVAL);  // below min_freq
  EXPECT_EQ(write_errno(min, "306000000\n"), 0);       // lower min first ...
  EXPECT_EQ(write_errno(max, "408000000\n"), 0);       // ... then max
  EXPECT_EQ(pread0(open_file(kGpu + "/max_freq")), "408000000\n");
  EXPECT_EQ(write_errno(sim_->path(kGpu + "/governor"), "turbo\n"), EINVAL);
  const std::string policy = sim_->path("/sys/devices/system/cpu/cpufreq/policy0");
  EXPECT_EQ(write_errno(policy + "/scaling_min_freq", "1510400\n"), 0);
  EXPECT_EQ(write_errno(policy + "/scaling_max_freq", "1344000\n"), EINVAL);
  EXPECT_EQ(write_errno(policy + "/scaling_governor", "performance\n"), 0);
  EXPECT_EQ(pread0(open_file("/sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq")), "1510400\n");
}

// jetson_clocks' EMC pin through the live bpmp debugfs files: the governor
// holds the top under load, the lock holds the written rate, unlocking hands
// it back; the files are root's.
TEST_F(FuseTest, TheEmcFollowsTheLoadAndALockedRateHoldsIt) {
  start("jetson-orin-nano", 36);  // CPU load pinned at 0: the GPU load alone drives the EMC
  const std::string emc = "/sys/kernel/debug/bpmp/debug/clk/emc";
  struct stat st {};
  ASSERT_EQ(::stat(sim_->path(emc + "/rate").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  const UniqueFd rate = open_file(emc + "/rate");
  EXPECT_EQ(pread0(rate), "204000000\n");
  ASSERT_TRUE(sim_->ctl("set_gpu_load", {{"permille", 1000}}).at("ok").get<bool>());
  EXPECT_EQ(pread0(rate), "2133000000\n");
  EXPECT_EQ(write_errno(sim_->path(emc + "/mrq_rate_locked"), "1\n"), 0);
  EXPECT_EQ(write_errno(sim_->path(emc + "/rate"), "665600000\n"), 0);
  EXPECT_EQ(write_errno(sim_->path(emc + "/rate"), "0\n"), EINVAL);
  EXPECT_EQ(pread0(rate), "665600000\n");
  EXPECT_EQ(write_errno(sim_->path(emc + "/mrq_rate_locked"), "0\n"), 0);
  EXPECT_EQ(pread0(rate), "2133000000\n");
}

TEST_F(FuseTest, EachFaultKindFailsReadsWithItsErrnoAndSparesHealthyRails) {
  start("jetson-orin-nano", 36);
  const UniqueFd in = open_file(kHwmon + "/in1_input");
  const UniqueFd soc = open_file(kHwmon + "/in3_input");
  const std::pair<const char*, int> kinds[] = {
      {"eio", EIO}, {"etimedout", ETIMEDOUT}, {"enodata", ENODATA}, {"eagain", EAGAIN}};
  for (const auto& [kind, err] : kinds) {
    sim_->ctl("fault", {{"rail", "VDD_IN"}, {"kind", kind}, {"count", 1}});
    EXPECT_EQ(pread0(in), errno_text(err)) << kind;
    EXPECT_EQ(pread0(soc).back(), '\n') << kind;
    EXPECT_EQ(pread0(in).back(), '\n') << kind << ": count 1 is used up";
  }
  sim_->ctl("fault", {{"rail", "1-0040:1"}, {"kind", "eio"}});
  EXPECT_EQ(pread0(in), errno_text(EIO));
  EXPECT_EQ(pread0(in), errno_text(EIO));  // until cleared
  sim_->ctl("clear_fault");
  EXPECT_EQ(pread0(in).back(), '\n');
}

TEST_F(FuseTest, ABlockedReadTakesItsTimeWhileAnotherRailsReadIsFast) {
  start("jetson-orin-nano", 36);
  const UniqueFd in = open_file(kHwmon + "/curr1_input");
  const UniqueFd soc = open_file(kHwmon + "/curr3_input");
  sim_->ctl("fault", {{"rail", "VDD_IN"}, {"kind", "block"}, {"ms", 400}, {"count", 1}});
  milliseconds blocked{0};
  std::thread reader([&] {
    const auto t0 = Clock::now();
    EXPECT_EQ(pread0(in).back(), '\n');
    blocked = std::chrono::duration_cast<milliseconds>(Clock::now() - t0);
  });
  std::this_thread::sleep_for(milliseconds(50));
  const auto t0 = Clock::now();
  EXPECT_EQ(pread0(soc).back(), '\n');
  EXPECT_LT(Clock::now() - t0, milliseconds(100));
  reader.join();
  EXPECT_GE(blocked, milliseconds(400));
}

TEST_F(FuseTest, ABlockUntilClearedIsReleasedByClearFault) {
  start("jetson-orin-nano", 36);
  const UniqueFd in = open_file(kHwmon + "/curr1_input");
  sim_->ctl("fault", {{"rail", "VDD_IN"}, {"kind", "block"}});
  milliseconds blocked{0};
  std::thread reader([&] {
    const auto t0 = Clock::now();
    EXPECT_EQ(pread0(in).back(), '\n');
    blocked = std::chrono::duration_cast<milliseconds>(Clock::now() - t0);
  });
  std::this_thread::sleep_for(milliseconds(300));
  sim_->ctl("clear_fault", {{"rail", "VDD_IN"}});
  reader.join();
  EXPECT_GE(blocked, milliseconds(250));
  EXPECT_LT(blocked, milliseconds(5000));
}

TEST_F(FuseTest, AVanishedDeviceFailsOpenDescriptorsAndLookupsUntilRestored) {
  start("jetson-orin-nano", 36);
  const UniqueFd in = open_file(kHwmon + "/in1_input");
  sim_->ctl("vanish", {{"device", "1-0040"}});
  EXPECT_EQ(pread0(in), errno_text(ENODEV));
  EXPECT_EQ(open_errno(sim_->path(kHwmon + "/in1_input")), ENOENT);
  EXPECT_EQ(open_errno(sim_->path("/sys/class/hwmon/hwmon0/in1_input")), ENOENT);
  sim_->ctl("restore", {{"device", "1-0040"}});
  EXPECT_EQ(pread0(open_file(kHwmon + "/in1_input")).back(), '\n');
  EXPECT_EQ(pread0(in), errno_text(ENODEV));
}

TEST_F(FuseTest, RenumberingKillsOldDescriptorsAndTheNewPathWorks) {
  start("jetson-orin-nano", 36);
  const UniqueFd old_fd = open_file("/sys/class/hwmon/hwmon0/in1_input");
  EXPECT_EQ(sim_->ctl("renumber", {{"hwmon_offset", 3}}).at("hwmon_offset"), 3);
  EXPECT_EQ(pread0(old_fd), errno_text(ENODEV));
  EXPECT_EQ(open_errno(sim_->path(kHwmon + "/in1_input")), ENOENT);
  EXPECT_EQ(pread0(open_file("/sys/class/hwmon/hwmon3/in1_input")).back(), '\n');
  EXPECT_EQ(pread0(open_file("/sys/class/hwmon/hwmon3/name")), "ina3221\n");
}

double elapsed_ms(const std::string& output) {
  std::smatch m;
  const std::regex pattern("elapsed_ms=([0-9.]+)");
  return std::regex_search(output, m, pattern) ? std::stod(m[1].str()) : -1.0;
}

TEST_F(FuseTest, TheWorkloadRunsSlowerAtALowerGpuMaxFreq) {
  start("jetson-orin-nano", 36);
  // Pinned by `performance`: under nvhost_podgov the clock follows the load (sim/README.md "Heat and governors").
  ASSERT_EQ(write_errno(sim_->path(kGpu + "/governor"), "performance\n"), 0);
  const std::string fast = workload({"--units", "20"});
  ASSERT_EQ(write_errno(sim_->path(kGpu + "/max_freq"), "306000000\n"), 0);
  const std::string slow = workload({"--units", "20"});
  // 20 x (6.40 + 4) ms at 624.75 MHz against 20 x (13.07 + 4) ms at 306 MHz.
  EXPECT_GT(elapsed_ms(fast), 200.0) << fast;
  EXPECT_GT(elapsed_ms(slow), 1.4 * elapsed_ms(fast)) << fast << slow;
  EXPECT_NE(slow.find("gpu_mhz=306.000"), std::string::npos) << slow;
  EXPECT_EQ(sim_->ctl("gpu").at("load_permille"), 0);  // reset at the end
}

// A phase's work follows the clock while it runs: one item of GPU work,
// started with the GPU held at its lowest clock, speeds up when the maximum
// is raised 150 ms in (it would take the whole phase at 306 MHz if the
// clock were read only at the phase's start).
TEST_F(FuseTest, APhaseSpeedsUpWhenItsClockRisesMidPhase) {
  start("jetson-orin-nano", 36);
  ASSERT_EQ(write_errno(sim_->path(kGpu + "/governor"), "performance\n"), 0);
  const std::vector<std::string> args = {"--items", "1", "--gpu-megacycles", "190", "--memory-us", "0"};
  const double top_ms = elapsed_ms(workload(args));  // at 624.75 MHz
  ASSERT_EQ(write_errno(sim_->path(kGpu + "/max_freq"), "306000000\n"), 0);
  std::thread raise([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    EXPECT_EQ(write_errno(sim_->path(kGpu + "/max_freq"), "624750000\n"), 0);
  });
  const double switched_ms = elapsed_ms(workload(args));
  raise.join();
  const double low_ms = top_ms * 624.75 / 306.0;  // the whole item at 306 MHz
  EXPECT_GT(switched_ms, top_ms) << top_ms;
  EXPECT_LT(switched_ms, 0.8 * low_ms) << top_ms;
}

// The live workload's memory time stretches with the memory clock as the
// evaluator's does (top / rate): memory-bound, one batch of 4, takes longer
// with the EMC locked at 665.6 MHz than at the top (2133 MHz).
TEST_F(FuseTest, TheWorkloadsMemoryTimeStretchesWhenTheEmcIsLockedLow) {
  start("jetson-orin-nano", 36);
  const std::string emc = "/sys/kernel/debug/bpmp/debug/clk/emc";
  const std::vector<std::string> args = {"--preset", "memory-bound", "--items", "4", "--batch", "4"};
  ASSERT_EQ(write_errno(sim_->path(emc + "/mrq_rate_locked"), "1\n"), 0);
  ASSERT_EQ(write_errno(sim_->path(emc + "/rate"), "2133000000\n"), 0);
  const std::string top = workload(args);
  ASSERT_EQ(write_errno(sim_->path(emc + "/rate"), "665600000\n"), 0);
  const std::string low = workload(args);
  EXPECT_EQ(sim_->ctl("emc").at("rate_hz"), 665600000) << low;
  EXPECT_GT(elapsed_ms(low), 1.3 * elapsed_ms(top)) << top << low;
}

double total_energy_uj(const std::string& output) {
  std::smatch m;
  const std::regex pattern("total_energy_uj=([0-9.]+)");
  return std::regex_search(output, m, pattern) ? std::stod(m[1].str()) : -1.0;
}

// A study mix with a CPU part drives the simulated CPU load (not the host's),
// puts the pinned load back at the end, and draws what the evaluator predicts for the
// default governors (within 15 %: control calls and sleeps take real time).
TEST_F(FuseTest, AStudyWorkloadDrawsWhatTheEvaluatorPredicts) {
  start("jetson-orin-nano", 36);
  // Clocks pinned at the top by `performance`: the live governors sample
  // the load on their own grids (sim/README.md "Heat and governors"), which
  // the evaluator's instant policy does not model; fixed clocks compare the
  // workload's own time and energy.
  ASSERT_EQ(write_errno(sim_->path(kGpu + "/governor"), "performance\n"), 0);
  for (const auto& e : std::filesystem::directory_iterator(sim_->path("/sys/devices/system/cpu/cpufreq"))) {
    if (e.path().filename().string().rfind("policy", 0) == 0) {
      ASSERT_EQ(write_errno(e.path().string() + "/scaling_governor", "performance\n"), 0) << e.path();
    }
  }
  const test::CommandResult r = test::run_command({ENERGYD_SIM_BIN, "workload", "--control", sim_->control(),
                                                   "--preset", "cpu-heavy", "--items", "8", "--batch", "4"},
                                                  std::chrono::seconds(30));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("units=8 "), std::string::npos) << r.out;
  EXPECT_EQ(sim_->ctl("status").at("cpu_load_permille"), 0);  // LiveSim pins 0
  ASSERT_TRUE(sim_->ctl("set_cpu_load", {{"permille", 250}}).at("ok").get<bool>());
  const test::CommandResult again = test::run_command(
      {ENERGYD_SIM_BIN, "workload", "--control", sim_->control(), "--preset", "cpu-heavy", "--items", "1"},
      std::chrono::seconds(30));
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_EQ(sim_->ctl("status").at("cpu_load_permille"), 250);
  EXPECT_TRUE(sim_->ctl("status").at("cpu_load_pinned").get<bool>());
  ASSERT_TRUE(sim_->ctl("set_cpu_load").at("ok").get<bool>());  // the host's
  const test::CommandResult host = test::run_command(
      {ENERGYD_SIM_BIN, "workload", "--control", sim_->control(), "--preset", "cpu-heavy", "--items", "1"},
      std::chrono::seconds(30));
  ASSERT_EQ(host.code, 0) << host.out;
  EXPECT_FALSE(sim_->ctl("status").at("cpu_load_pinned").get<bool>());
  const BoardSpec spec = test::board("jetson-orin-nano", 36);
  const StudyClocks top{spec.cpu.available_khz.back(), spec.gpus.front().available_hz.back()};
  const StudyResult predicted = *evaluate_study(spec, *preset_mix("cpu-heavy"), 4, fixed_clocks(top));
  EXPECT_NEAR(total_energy_uj(r.out) / 8 / 1000, predicted.total_mj_per_item, 0.15 * predicted.total_mj_per_item)
      << r.out;
  EXPECT_NEAR(elapsed_ms(r.out) / 8, predicted.time_per_item_ms, 0.15 * predicted.time_per_item_ms) << r.out;
}

TEST_F(FuseTest, CtlPrintsTheReplyAndFailsOnARefusedCommand) {
  start("jetson-orin-nano", 36);
  const test::CommandResult now =
      test::run_command({ENERGYD_SIM_BIN, "ctl", "--control", sim_->control(), "now"}, std::chrono::seconds(10));
  EXPECT_EQ(now.code, 0);
  EXPECT_NE(now.out.find("\"now_ns\":"), std::string::npos) << now.out;
  const test::CommandResult bad =
      test::run_command({ENERGYD_SIM_BIN, "ctl", "--control", sim_->control(), "fault", "rail=VDD_IN", "kind=smoke"},
                        std::chrono::seconds(10));
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.out.find("smoke"), std::string::npos) << bad.out;
}

TEST_F(FuseTest, SigtermUnmountsAndRemovesTheControlSocket) {
  start("jetson-orin-nano", 36);
  ASSERT_TRUE(test::is_mounted(sim_->mount()));
  EXPECT_EQ(sim_->stop(SIGTERM), 0) << sim_->log();
  EXPECT_FALSE(test::is_mounted(sim_->mount()));
  EXPECT_FALSE(test::exists_no_follow(sim_->control()));
}

TEST_F(FuseTest, SigintStopsItToo) {
  start("jetson-agx-orin", 35);
  EXPECT_EQ(sim_->stop(SIGINT), 0) << sim_->log();
  EXPECT_FALSE(test::is_mounted(sim_->mount()));
}

}  // namespace
}  // namespace energy::sim
