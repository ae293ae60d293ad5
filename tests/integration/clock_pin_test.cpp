// QUALITY H3 on a live simulated board (energyd-sim run, FUSE, whose clock
// files refuse writes as the strictest kernel does): pins are read back, and
// every pinned value is restored on unpin, daemon stop, kill -9 + restart
// (within 2 s of the daemon being ready), client death, lease expiry and run
// stop; an external writer is detected, logged once and reported in the
// lease and the run; offline CPUs, unlisted frequencies and min > max are
// clear errors that change nothing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "harness.h"
#include "raw_client.h"

namespace energy::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

constexpr const char* kPolicy0 = "/sys/devices/system/cpu/cpufreq/policy0";

constexpr int64_t kNsPerMsTest = 1'000'000;

// energyd-sim's exact energy of the board's total rails over [from, to] (CLOCK_BOOTTIME ns), J.
double truth_j(SimControl& sim, int64_t from_ns, int64_t to_ns) {
  auto truth = sim.call("energy", {{"rail", "total"}, {"from_ns", from_ns}, {"to_ns", to_ns}});
  EXPECT_TRUE(truth.value("ok", false)) << truth.dump();
  return truth.value("energy_uj", 0.0) / 1e6;
}

class ClockPins : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::access("/dev/fuse", R_OK | W_OK), 0) << "these tests need /dev/fuse (FUSE) and root";
    sim_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{ENERGYD_SIM_BIN, "run", "--board", "jetson-orin-nano", "--l4t", "36", "--mount", mnt(),
                                 "--control", tmp_.path() + "/sim.ctl", "--cpu-load", "0"},
        tmp_.path() + "/sim.log");
    ASSERT_TRUE(wait_for_socket(tmp_.path() + "/sim.ctl", seconds(15))) << read_file(tmp_.path() + "/sim.log");
    start_daemon();
    ASSERT_TRUE(wait_for_socket(sock(), seconds(10))) << log();
    auto clocks = ctl({"clocks"});
    for (const auto& d : clocks["domains"]) {
      if (d["kind"] == "gpu") gpu_dir_ = d["dir"].get<std::string>();
    }
    ASSERT_FALSE(gpu_dir_.empty()) << clocks.dump();
    before_ = clock_files();
  }
  void TearDown() override {
    if (daemon_) daemon_->stop(SIGTERM);
    if (sim_) sim_->stop(SIGTERM);
    ::umount2(mnt().c_str(), MNT_DETACH);  // in case the simulator could not unmount
  }
  void start_daemon() {
    daemon_ = std::make_unique<ChildProcess>(std::vector<std::string>{ENERGYD_BIN, "--root", mnt(), "--state-dir",
                                                                      tmp_.path() + "/state", "--socket", sock()},
                                             tmp_.path() + "/energyd.log");
  }
  std::string mnt() const { return tmp_.path() + "/board"; }
  std::string sock() const { return tmp_.path() + "/s.sock"; }
  std::string log() const { return read_file(tmp_.path() + "/energyd.log"); }
  std::string board(const std::string& path) const {
    std::string s = read_file(mnt() + path);
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }
  void write_board(const std::string& path, const std::string& text) const {
    std::ofstream(mnt() + path) << text << "\n";
  }
  // Every file a pin of cpu0 and the GPU touches, with its text now.
  std::map<std::string, std::string> clock_files() const {
    std::map<std::string, std::string> out;
    for (const char* f : {"/scaling_min_freq", "/scaling_max_freq", "/scaling_governor"}) {
      out[kPolicy0 + std::string(f)] = board(kPolicy0 + std::string(f));
    }
    for (const char* f : {"/min_freq", "/max_freq", "/governor"}) out[gpu_dir_ + f] = board(gpu_dir_ + f);
    return out;
  }
  CommandResult run_ctl(const std::vector<std::string>& args) const { return run_energyctl(sock(), args); }
  nlohmann::json ctl(const std::vector<std::string>& args) const {
    auto r = run_ctl(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  }
  nlohmann::json leases() const { return ctl({"clocks"})["leases"]; }
  static bool eventually(const std::function<bool()>& pred, milliseconds timeout) {
    return testing::eventually(pred, timeout, milliseconds(50));
  }
  bool restored() const { return clock_files() == before_; }
  std::unique_ptr<ChildProcess> hold_cpu() {
    auto child = std::make_unique<ChildProcess>(
        std::vector<std::string>{ENERGYCTL_BIN, "--socket", sock(), "pin", "--cpu", "max", "--hold"},
        tmp_.path() + "/hold.log");
    std::string min_file = kPolicy0 + std::string("/scaling_min_freq");
    EXPECT_TRUE(eventually([&] { return board(min_file) != before_[min_file]; }, seconds(10)))
        << read_file(tmp_.path() + "/hold.log");
    // The leases view is published after the pin's writes and read-back: wait for it too.
    EXPECT_TRUE(eventually([&] { return leases().size() == 1; }, seconds(5))) << read_file(tmp_.path() + "/hold.log");
    return child;
  }
  static size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  }

  TempDir tmp_;
  std::unique_ptr<ChildProcess> sim_;
  std::unique_ptr<ChildProcess> daemon_;
  std::string gpu_dir_;
  std::map<std::string, std::string> before_;
};

TEST_F(ClockPins, APinIsReadBackAndUnpinRestoresEveryFile) {
  auto res = ctl({"pin", "--cpu", "max", "--gpu", "408MHz", "--governor", "performance", "--for", "10m"});
  ASSERT_EQ(res["domains"].size(), 3u) << res.dump();  // cpu0, cpu4, gpu
  for (const auto& d : res["domains"]) {
    EXPECT_EQ(d["requested"]["min_hz"], d["achieved"]["min_hz"]) << d.dump();
    EXPECT_EQ(d["requested"]["max_hz"], d["achieved"]["max_hz"]) << d.dump();
    EXPECT_EQ(d["achieved"]["governor"], "performance");
  }
  EXPECT_EQ(board(gpu_dir_ + "/min_freq"), "408000000");
  EXPECT_EQ(board(gpu_dir_ + "/max_freq"), "408000000");
  EXPECT_EQ(board(kPolicy0 + std::string("/scaling_min_freq")), board(kPolicy0 + std::string("/scaling_max_freq")));
  auto un = ctl({"unpin", std::to_string(res["lease"]["id"].get<int>())});
  EXPECT_TRUE(un["released"][0]["restored"].get<bool>()) << un.dump();
  EXPECT_TRUE(restored());
  EXPECT_TRUE(leases().empty());
}

// The Orin Nano's memory clock is driven through debugfs (bpmp): energyd locks
// it at the requested rate, reports what it achieved, and unpin unlocks it.
TEST_F(ClockPins, APinOfTheDebugfsMemoryClockHoldsTheRateAndUnpinHandsItBack) {
  const std::string emc = "/sys/kernel/debug/bpmp/debug/clk/emc";
  ASSERT_EQ(board(emc + "/mrq_rate_locked"), "0");
  auto range = run_ctl({"pin", "--emc", "min:max", "--for", "10m"});
  EXPECT_NE(range.exit_code, 0);
  EXPECT_NE(range.err.find("one rate, not a range"), std::string::npos) << range.err;
  auto res = ctl({"pin", "--emc", "665.6MHz", "--for", "10m"});
  ASSERT_EQ(res["domains"].size(), 1u) << res.dump();
  EXPECT_EQ(res["domains"][0]["achieved"]["cur_hz"], 665600000) << res.dump();
  EXPECT_EQ(res["domains"][0]["achieved"]["max_hz"], 665600000) << res.dump();
  EXPECT_EQ(board(emc + "/mrq_rate_locked"), "1");
  EXPECT_EQ(board(emc + "/rate"), "665600000");
  auto un = ctl({"unpin", std::to_string(res["lease"]["id"].get<int>())});
  EXPECT_TRUE(un["released"][0]["restored"].get<bool>()) << un.dump();
  EXPECT_EQ(board(emc + "/mrq_rate_locked"), "0");
  EXPECT_TRUE(leases().empty());
}

TEST_F(ClockPins, DaemonStopRestoresEveryPin) {
  ctl({"pin", "--cpu", "max", "--gpu", "min", "--governor", "performance", "--for", "10m"});
  ASSERT_FALSE(restored());
  EXPECT_EQ(daemon_->stop(SIGTERM), 0);
  daemon_.reset();
  EXPECT_TRUE(restored()) << log();
  EXPECT_EQ(count(read_file(tmp_.path() + "/state/clock-leases.json"), "\"domain\""), 0u);
}

TEST_F(ClockPins, KillNineThenRestartRestoresWithinTwoSecondsOfReadyAndKeepsLiveLeases) {
  auto holder = hold_cpu();                                      // connection lease: its owner dies with the daemon
  auto timed = ctl({"pin", "--gpu", "408MHz", "--for", "10m"});  // duration lease: outlives the crash
  daemon_->stop(SIGKILL);
  daemon_.reset();
  EXPECT_NE(board(kPolicy0 + std::string("/scaling_min_freq")), before_[kPolicy0 + std::string("/scaling_min_freq")]);
  start_daemon();
  ASSERT_TRUE(wait_for_socket(sock(), seconds(10))) << log();
  auto ready = Clock::now();
  ASSERT_TRUE(eventually(
      [&] {
        for (const char* f : {"/scaling_min_freq", "/scaling_max_freq"}) {
          if (board(kPolicy0 + std::string(f)) != before_[kPolicy0 + std::string(f)]) return false;
        }
        return true;
      },
      seconds(2)))
      << log();
  auto restored_after = std::chrono::duration_cast<milliseconds>(Clock::now() - ready);
  RecordProperty("restored_ms_after_ready", static_cast<int>(restored_after.count()));
  EXPECT_LE(restored_after.count(), 2000);
  auto now = leases();
  ASSERT_EQ(now.size(), 1u) << now.dump();
  EXPECT_EQ(now[0]["id"], timed["lease"]["id"]);
  EXPECT_EQ(now[0]["external_changes"], 0);  // re-verified: still what it pinned
  EXPECT_EQ(board(gpu_dir_ + "/min_freq"), "408000000");
  EXPECT_NE(log().find("continues after the restart"), std::string::npos) << log();
}

TEST_F(ClockPins, ClientDeathReleasesItsConnectionLease) {
  auto holder = hold_cpu();
  ASSERT_EQ(leases().size(), 1u);
  holder->stop(SIGKILL);
  EXPECT_TRUE(eventually([&] { return restored() && leases().empty(); }, seconds(5))) << log();
  EXPECT_NE(log().find("connection closed"), std::string::npos) << log();
}

TEST_F(ClockPins, ADurationLeaseExpires) {
  ctl({"pin", "--gpu", "max", "--for", "1s"});
  ASSERT_FALSE(restored());
  // The record goes only after the restore reads back: wait for both.
  EXPECT_TRUE(eventually([&] { return restored() && leases().empty(); }, seconds(5))) << log();
  EXPECT_NE(log().find("released (expired)"), std::string::npos) << log();
}

TEST_F(ClockPins, StoppingTheRunReleasesItsRunLease) {
  ctl({"mark", "start", "sweep"});
  auto pin = ctl({"pin", "--cpu", "max", "--gpu", "408MHz", "--run", "sweep"});
  EXPECT_EQ(pin["lease"]["kind"], "run");
  ASSERT_FALSE(restored());
  auto rep = ctl({"mark", "stop", "sweep"});
  ASSERT_TRUE(rep.contains("clock_events")) << rep.dump();
  EXPECT_EQ(rep["clock_events"][0]["kind"], "pinned");
  EXPECT_TRUE(eventually([&] { return restored() && leases().empty(); }, seconds(5))) << log();
}

TEST_F(ClockPins, AnExternalWriterIsDetectedLoggedOnceAndReportedInTheLeaseAndTheRun) {
  ctl({"mark", "start", "watched"});
  ctl({"pin", "--cpu", "max", "--for", "10m"});
  std::string min_file = kPolicy0 + std::string("/scaling_min_freq");
  write_board(min_file, before_[min_file]);  // what nvpmodel or jetson_clocks --restore would do
  ASSERT_TRUE(eventually([&] { return leases()[0]["external_changes"] == 1; }, seconds(5))) << log();
  std::this_thread::sleep_for(milliseconds(1200));  // two more watch periods
  EXPECT_EQ(count(log(), "changed by another writer"), 1u) << log();
  auto rep = ctl({"mark", "stop", "watched"});
  bool reported = false;
  for (const auto& e : rep["clock_events"]) {
    reported = reported || (e["kind"] == "external_change" && e["path"] == min_file && e["found"] == before_[min_file]);
  }
  EXPECT_TRUE(reported) << rep["clock_events"].dump();
}

TEST_F(ClockPins, OfflineCpusUnlistedFrequenciesAndMinAboveMaxAreClearErrorsThatChangeNothing) {
  write_board("/sys/devices/system/cpu/cpu2/online", "0");
  auto offline = run_ctl({"pin", "--cpu", "max", "--for", "1m"});
  EXPECT_EQ(offline.exit_code, 1);
  EXPECT_NE(offline.err.find("cpu0: CPU 2 of this policy is offline (/sys/devices/system/cpu/cpu2/online is 0)"),
            std::string::npos)
      << offline.err;
  write_board("/sys/devices/system/cpu/cpu2/online", "1");
  auto unlisted = run_ctl({"pin", "--gpu", "500MHz", "--for", "1m"});
  EXPECT_EQ(unlisted.exit_code, 1);
  EXPECT_NE(unlisted.err.find("gpu: 500 MHz is not a listed frequency; nearest listed: 408 MHz and 510 MHz"),
            std::string::npos)
      << unlisted.err;
  auto inverted = run_ctl({"pin", "--gpu", "max:min", "--for", "1m"});
  EXPECT_EQ(inverted.exit_code, 1);
  EXPECT_NE(inverted.err.find("gpu: the requested minimum 624.75 MHz is above the requested maximum 306 MHz"),
            std::string::npos)
      << inverted.err;
  EXPECT_TRUE(restored());
  EXPECT_TRUE(leases().empty());
}

TEST_F(ClockPins, RunWithAPinRunsTheCommandAtThePinnedClockAndReportsIt) {
  std::string seen = tmp_.path() + "/seen";
  std::string report = tmp_.path() + "/report.json";
  auto r = run_ctl({"run", "--output", report, "--gpu", "408MHz", "--", "sh", "-c",
                    "cat " + mnt() + gpu_dir_ + "/min_freq > " + seen});
  ASSERT_EQ(r.exit_code, 0) << r.err << log();
  EXPECT_EQ(read_file(seen), "408000000\n");  // the command ran with the pin in force
  auto doc = nlohmann::json::parse(read_file(report), nullptr, false);
  const auto& rep = doc["runs"][0]["report"];
  ASSERT_TRUE(rep.contains("clock_pins")) << doc.dump();
  ASSERT_EQ(rep["clock_pins"].size(), 1u) << rep["clock_pins"].dump();
  const auto& pin = rep["clock_pins"][0];
  EXPECT_EQ(pin["run"], doc["runs"][0]["run_id"]);
  ASSERT_EQ(pin["domains"].size(), 1u) << pin.dump();
  const auto& gpu = pin["domains"][0];
  EXPECT_EQ(gpu["domain"], "gpu");
  EXPECT_EQ(gpu["requested_min_hz"], 408000000);
  EXPECT_EQ(gpu["requested_max_hz"], 408000000);
  EXPECT_EQ(gpu["achieved_min_hz"], gpu["requested_min_hz"]) << gpu.dump();
  EXPECT_EQ(gpu["achieved_max_hz"], gpu["requested_max_hz"]) << gpu.dump();
  EXPECT_TRUE(eventually([&] { return restored() && leases().empty(); }, seconds(5))) << log();
}

TEST_F(ClockPins, RunsReportClocksPinnedByOthersDuringThemAndTheTextShowsThem) {
  auto held = ctl({"pin", "--cpu", "max", "--for", "10m"});
  auto r = run_ctl({"run", "--output", tmp_.path() + "/report.json", "--", "true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(read_file(tmp_.path() + "/report.json"), nullptr, false);
  const auto& pins = doc["runs"][0]["report"]["clock_pins"];
  ASSERT_EQ(pins.size(), 1u) << doc.dump();
  EXPECT_EQ(pins[0]["lease"], held["lease"]["id"]);
  EXPECT_FALSE(pins[0].contains("run"));
  auto text = run_command({ENERGYCTL_BIN, "--socket", sock(), "run", "--", "true"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.err.find("clocks pinned during the run"), std::string::npos) << text.err;
  EXPECT_NE(text.err.find("cpu0"), std::string::npos) << text.err;
  ctl({"unpin", "--all"});
  auto later = run_ctl({"run", "--output", tmp_.path() + "/later.json", "--", "true"});
  ASSERT_EQ(later.exit_code, 0) << later.err;
  auto after = nlohmann::json::parse(read_file(tmp_.path() + "/later.json"), nullptr, false);
  EXPECT_TRUE(after["runs"][0]["report"]["clock_pins"].empty()) << after.dump();  // released before this run
}

TEST_F(ClockPins, RunWithAnUnlistedFrequencyFailsWithoutRunningTheCommandOrLeavingARun) {
  std::string marker = tmp_.path() + "/ran";
  auto r = run_ctl({"run", "--gpu", "500MHz", "--", "touch", marker});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("gpu: 500 MHz is not a listed frequency"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the command was not run"), std::string::npos) << r.err;
  EXPECT_NE(::access(marker.c_str(), F_OK), 0) << "the command ran";
  EXPECT_TRUE(ctl({"status"})["open_runs"].empty());
  EXPECT_TRUE(ctl({"runs"})["runs"].empty()) << "a refused pin opens no run";
  EXPECT_TRUE(restored());
  EXPECT_TRUE(leases().empty());
}

TEST_F(ClockPins, RunWithADomainHeldByAnotherLeaseFailsWithoutOpeningARun) {
  auto held = ctl({"pin", "--gpu", "max", "--for", "10m"});
  ctl({"mark", "start", "earlier"});
  ctl({"mark", "stop", "earlier"});
  size_t runs_before = ctl({"runs"})["runs"].size();
  ASSERT_EQ(runs_before, 1u);
  std::string marker = tmp_.path() + "/ran";
  auto r = run_ctl({"run", "--cpu", "max", "--gpu", "408MHz", "--", "touch", marker});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("already pinned by lease " + std::to_string(held["lease"]["id"].get<int>())), std::string::npos)
      << r.err;
  EXPECT_NE(::access(marker.c_str(), F_OK), 0) << "the command ran";
  EXPECT_EQ(ctl({"runs"})["runs"].size(), runs_before);
  ASSERT_EQ(leases().size(), 1u) << "the CPU pin of the refused run is not left behind";
  EXPECT_EQ(board(kPolicy0 + std::string("/scaling_min_freq")), before_[kPolicy0 + std::string("/scaling_min_freq")]);
}

// Issue 15: a pinned run opens once every pin is in force and read back, so
// none of its time is at the previous clocks and the pin's writes are
// outside it; energyctl then gives mark.stop the command's span (spawn to
// reap), which the run becomes. The run's energy is within 0.2 % of the
// simulator's ground truth over that span. Inside it, the command's own
// span as it records it (boottime_span, after its exec and loading) starts
// about a millisecond later; that comparison is printed too.
TEST_F(ClockPins, APinnedRunSpendsAllItsTimeAtThePinnedClocksAndMeasuresOnlyTheCommand) {
  SimControl sim(tmp_.path() + "/sim.ctl");
  ASSERT_TRUE(sim.call("set_gpu_load", {{"permille", 700}}).value("ok", false));
  std::string report = tmp_.path() + "/report.json";
  std::string span = tmp_.path() + "/span";
  auto r =
      run_ctl({"run", "--output", report, "--cpu", "max", "--gpu", "408MHz", "--", BOOTTIME_SPAN_BIN, "3000", span});
  ASSERT_EQ(r.exit_code, 0) << r.err << log();
  auto doc = nlohmann::json::parse(read_file(report), nullptr, false);
  const auto& rep = doc["runs"][0]["report"];
  ASSERT_EQ(rep["clock_pins"].size(), 1u) << rep.dump();
  const auto& pin = rep["clock_pins"][0];
  EXPECT_LT(pin["pinned_boot_ns"].get<int64_t>(), rep["run"]["start_ns"].get<int64_t>()) << "pinned before the run";
  for (const auto& pinned : pin["domains"]) {
    auto d = std::find_if(rep["clocks"].begin(), rep["clocks"].end(),
                          [&](const nlohmann::json& c) { return c["domain"] == pinned["domain"]; });
    ASSERT_NE(d, rep["clocks"].end()) << pinned.dump();
    ASSERT_EQ((*d)["residency"].size(), 1u) << "time at a frequency nobody asked for: " << d->dump();
    EXPECT_EQ((*d)["residency"][0]["hz"], pinned["achieved_max_hz"]) << d->dump();
    EXPECT_DOUBLE_EQ((*d)["residency"][0]["share"].get<double>(), 1.0) << d->dump();
  }
  int64_t cmd_start = 0, cmd_stop = 0;
  std::istringstream(read_file(span)) >> cmd_start >> cmd_stop;
  ASSERT_GT(cmd_stop, cmd_start) << read_file(span);
  int64_t run_start = rep["run"]["start_ns"].get<int64_t>(), run_stop = rep["run"]["stop_ns"].get<int64_t>();
  EXPECT_GE(cmd_start, run_start) << "the command ran inside its run";
  EXPECT_LE(cmd_stop, run_stop) << "the command ran inside its run";
  double run_truth_j = truth_j(sim, run_start, run_stop), cmd_truth_j = truth_j(sim, cmd_start, cmd_stop);
  double measured_j = rep["total"]["energy_j"].get<double>();
  std::printf(
      "pinned 3 s run: %.4f J; truth over the run %.4f J (%+.3f %%), over the command %.4f J (%+.3f %%); "
      "run starts %.1f ms before the command, ends %.1f ms after it\n",
      measured_j, run_truth_j, 100.0 * (measured_j - run_truth_j) / run_truth_j, cmd_truth_j,
      100.0 * (measured_j - cmd_truth_j) / cmd_truth_j, static_cast<double>(cmd_start - run_start) / 1e6,
      static_cast<double>(run_stop - cmd_stop) / 1e6);
  EXPECT_NEAR(measured_j, run_truth_j, 0.002 * run_truth_j) << "the command's energy, spawn to reap";
  // Before the span: the start mark's commit (14-84 ms) was inside the run.
  EXPECT_LT(cmd_start - run_start, 20 * kNsPerMsTest) << "more than a spawn and an exec before the command";
  EXPECT_LT(run_stop - cmd_stop, 20 * kNsPerMsTest) << "more than an exit and a reap after the command";
}

// Issue 6: the requested and achieved clocks are stored with the stop (not
// kept in memory), so `energyctl show` gives them after a restart; an open
// run shows the pins in force so far.
TEST_F(ClockPins, ShowGivesTheClocksStoredWithTheStopAfterARestart) {
  auto open = ctl({"mark", "start", "pinned-open"});
  auto pin = ctl({"pin", "--gpu", "408MHz", "--run", "pinned-open"});
  auto live = ctl({"show", std::to_string(open["id"].get<int64_t>())});
  ASSERT_EQ(live["clock_pins"].size(), 1u) << live.dump(2);
  EXPECT_EQ(live["clock_pins"][0]["lease"], pin["lease"]["id"]);
  EXPECT_TRUE(live["clock_pins"][0]["released_boot_ns"].is_null()) << "still in force";
  auto stopped = ctl({"mark", "stop", "pinned-open"});
  ASSERT_EQ(stopped["clock_pins"].size(), 1u) << stopped.dump(2);
  EXPECT_TRUE(eventually([&] { return restored(); }, seconds(5))) << log();
  EXPECT_EQ(daemon_->stop(SIGTERM), 0);
  start_daemon();
  ASSERT_TRUE(wait_for_socket(sock(), seconds(10))) << log();
  auto shown = ctl({"show", std::to_string(open["id"].get<int64_t>())});
  EXPECT_EQ(shown["clock_pins"], stopped["clock_pins"]) << shown.dump(2);
  EXPECT_EQ(shown["clock_events"], stopped["clock_events"]);
  EXPECT_EQ(shown["clock_pins"][0]["domains"][0]["achieved_min_hz"], 408000000);
}

// A pinned mark.start whose client leaves before the reply (an energyctl
// sweep killed while its run was opening) opens no run and gives the pin
// back at once, so the clocks are the board's again and the next client
// (the sweep resumed) can pin them.
TEST_F(ClockPins, APinnedMarkStartWhoseClientLeftOpensNoRunAndGivesThePinBack) {
  int fd = connect_to(sock());
  ASSERT_GE(fd, 0);
  nlohmann::json args = {{"name", "orphan"}, {"pin", {{"domains", {{"gpu", "max"}}}}}};
  ASSERT_TRUE(send_all(fd, protocol::encode_frame(protocol::make_request(1, "mark.start", args))));
  ::close(fd);
  EXPECT_TRUE(eventually([&] { return leases().empty() && restored(); }, milliseconds(5000))) << leases().dump() << "\n"
                                                                                              << log();
  std::this_thread::sleep_for(milliseconds(300));  // a run opened late would show by now
  EXPECT_TRUE(ctl({"status"})["open_runs"].empty()) << "a run nobody knows of was opened";
  EXPECT_TRUE(leases().empty());
  auto again = run_ctl({"pin", "--gpu", "max", "--for", "1m"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
}

}  // namespace
}  // namespace energy::testing
