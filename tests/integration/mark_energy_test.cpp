// A marked run on a simulated board with constant power reports
// energy = power x duration, per rail and in total, through energyctl.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "board_fixture.h"

namespace energy::testing {
namespace {

TEST(MarkEnergy, ConstantPowerRunReportsPowerTimesDurationWithinOnePercent) {
  SimulatedDaemon d(constant_orin_nano());
  ASSERT_TRUE(d.started()) << d.setup_error();
  auto started = d.ctl_json({"mark", "start", "constant"});
  ASSERT_TRUE(started.contains("id")) << started.dump();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  auto report = d.ctl_json({"mark", "stop", "constant"});
  ASSERT_TRUE(report.contains("total")) << report.dump();
  double duration = report["duration_s"].get<double>();
  EXPECT_GT(duration, 1.4);
  const nlohmann::json* in = report_rail(report, "VDD_IN");
  const nlohmann::json* soc = report_rail(report, "VDD_SOC");
  ASSERT_NE(in, nullptr);
  ASSERT_NE(soc, nullptr);
  EXPECT_NEAR((*in)["energy_j"].get<double>(), 5.0 * duration, 0.01 * 5.0 * duration);
  EXPECT_NEAR((*soc)["energy_j"].get<double>(), 2.0 * duration, 0.01 * 2.0 * duration);
  EXPECT_NEAR(report["total"]["energy_j"].get<double>(), 5.0 * duration, 0.01 * 5.0 * duration);
  EXPECT_EQ(report["total_rails"], nlohmann::json::array({"VDD_IN"}));
  EXPECT_GE(report["total"]["samples"].get<int>(), 14);
  EXPECT_DOUBLE_EQ(report["total"]["coverage"].get<double>(), 1.0);
  EXPECT_EQ(d.stop(SIGTERM), 0) << d.log();
}

TEST(MarkEnergy, HumanReportHasATableWithEveryRailAndTheTotal) {
  SimulatedDaemon d(constant_orin_nano());
  ASSERT_TRUE(d.started()) << d.setup_error();
  ASSERT_EQ(d.ctl({"mark", "start", "table"}).exit_code, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto r = d.ctl({"mark", "stop", "table"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* word : {"VDD_IN *", "VDD_CPU_GPU_CV", "VDD_SOC", "TOTAL", "ENERGY J"}) {
    EXPECT_NE(r.out.find(word), std::string::npos) << word << " missing from:\n" << r.out;
  }
}

TEST(MarkEnergy, StoppingUnknownOrStoppedRunIsAClearError) {
  SimulatedDaemon d(constant_orin_nano());
  ASSERT_TRUE(d.started()) << d.setup_error();
  auto unknown = d.ctl({"mark", "stop", "nope"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no open run named or numbered 'nope'"), std::string::npos) << unknown.err;
  auto started = d.ctl_json({"mark", "start", "once"});
  ASSERT_EQ(d.ctl({"mark", "stop", "once"}).exit_code, 0);
  auto again = d.ctl({"mark", "stop", std::to_string(started["id"].get<int>())});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("already stopped"), std::string::npos) << again.err;
}

TEST(MarkEnergy, OverlappingRunsEachGetTheirOwnEnergy) {
  SimulatedDaemon d(constant_orin_nano());
  ASSERT_TRUE(d.started()) << d.setup_error();
  d.ctl_json({"mark", "start", "outer"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  d.ctl_json({"mark", "start", "inner"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto inner = d.ctl_json({"mark", "stop", "inner"});
  auto outer = d.ctl_json({"mark", "stop", "outer"});
  EXPECT_GT(outer["duration_s"].get<double>(), inner["duration_s"].get<double>() + 0.25);
  EXPECT_NEAR(inner["total"]["energy_j"].get<double>(), 5.0 * inner["duration_s"].get<double>(), 0.01);
}

TEST(MarkEnergy, StatusShowsBoardRailsAndTotal) {
  SimulatedDaemon d(constant_orin_nano());
  ASSERT_TRUE(d.started()) << d.setup_error();
  auto st = d.ctl_json({"status"});
  ASSERT_EQ(st["rails"].size(), 3u) << st.dump(2);
  EXPECT_NE(st["board"]["model"].get<std::string>().find("Orin Nano"), std::string::npos);
  EXPECT_EQ(st["total"]["rails"], nlohmann::json::array({"VDD_IN"}));
  EXPECT_NEAR(st["total"]["power_w"].get<double>(), 5.0, 1e-9);
  auto human = d.ctl({"status"});
  EXPECT_EQ(human.exit_code, 0);
  EXPECT_NE(human.out.find("VDD_SOC"), std::string::npos);
}

TEST(MarkEnergy, UnreachableDaemonIsExitCodeThree) {
  TempDir t;
  auto r = run_command({ENERGYCTL_BIN, "--socket", t.path() + "/none.sock", "status"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("is energyd running?"), std::string::npos) << r.err;
}

TEST(MarkEnergy, BadUsageIsExitCodeTwoWithAMessage) {
  auto r = run_command({ENERGYCTL_BIN, "mark", "start"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("needs a run name"), std::string::npos) << r.err;
  auto tag = run_command({ENERGYCTL_BIN, "mark", "start", "x", "--tag", "novalue"});
  EXPECT_EQ(tag.exit_code, 2);
  EXPECT_NE(tag.err.find("KEY=VALUE"), std::string::npos);
}

TEST(MarkEnergy, BadDaemonFlagOrConfigNamesTheProblem) {
  auto r = run_command({ENERGYD_BIN, "--sample-period-ms", "fast"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--sample-period-ms"), std::string::npos) << r.err;
  TempDir t;
  std::ofstream(t.path() + "/bad.yaml") << "sample_period_ms: 0\n";
  auto c = run_command({ENERGYD_BIN, "--config", t.path() + "/bad.yaml"});
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_NE(c.err.find("sample_period_ms"), std::string::npos) << c.err;
}

}  // namespace
}  // namespace energy::testing

namespace energy::testing {
namespace {

// QUALITY H2: an unknown or empty tree starts energyd in a clear "no sensors"
// state (not a crash loop); a run on it is an error, never 0 J.
TEST(NoSensors, EmptyTreeServesAClearStateAndRefusesZeroJoules) {
  TempDir t;
  std::string root = t.path() + "/empty";
  std::filesystem::create_directories(root);
  std::string sock = t.path() + "/s.sock";
  ChildProcess d({ENERGYD_BIN, "--root", root, "--state-dir", t.path() + "/state", "--socket", sock},
                 t.path() + "/log");
  ASSERT_TRUE(wait_for_socket(sock, std::chrono::seconds(10))) << read_file(t.path() + "/log");
  auto st = run_command({ENERGYCTL_BIN, "--socket", sock, "status"});
  EXPECT_EQ(st.exit_code, 0) << st.err;
  EXPECT_NE(st.out.find("No power-monitor rails found"), std::string::npos) << st.out;
  EXPECT_EQ(run_command({ENERGYCTL_BIN, "--socket", sock, "mark", "start", "r"}).exit_code, 0);
  auto stop = run_command({ENERGYCTL_BIN, "--socket", sock, "mark", "stop", "r"});
  EXPECT_EQ(stop.exit_code, 1);
  EXPECT_NE(stop.err.find("no power readings"), std::string::npos) << stop.err;
  EXPECT_TRUE(d.running());
  EXPECT_EQ(d.stop(SIGTERM), 0);
}

// A run lease ends with its run even when the run's report fails: a board
// whose power monitor is gone but whose clocks are there, a CPU pinned for
// the run, a stop that cannot report (no readings) - the clocks are back.
TEST(NoSensors, RunLeaseIsReleasedWhenTheStopCannotReport) {
  TempDir t;
  std::string root = t.path() + "/board";
  auto made = run_command({ENERGYD_SIM_BIN, "create", "--board", "jetson-orin-nano", "--l4t", "36", "--root", root});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  std::filesystem::remove_all(root + "/sys/devices/platform/bus@0/c240000.i2c/i2c-1/1-0040");
  std::string max_file = root + "/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq";
  std::string before = read_file(max_file);
  std::string sock = t.path() + "/s.sock";
  ChildProcess d({ENERGYD_BIN, "--root", root, "--state-dir", t.path() + "/state", "--socket", sock},
                 t.path() + "/log");
  ASSERT_TRUE(wait_for_socket(sock, std::chrono::seconds(10))) << read_file(t.path() + "/log");
  ASSERT_EQ(run_command({ENERGYCTL_BIN, "--socket", sock, "mark", "start", "r"}).exit_code, 0);
  auto pin = run_command({ENERGYCTL_BIN, "--socket", sock, "pin", "--cpu", "min", "--run", "r"});
  ASSERT_EQ(pin.exit_code, 0) << pin.err << read_file(t.path() + "/log");
  ASSERT_NE(read_file(max_file), before);  // pinned
  auto stop = run_command({ENERGYCTL_BIN, "--socket", sock, "mark", "stop", "r"});
  EXPECT_EQ(stop.exit_code, 1);
  EXPECT_NE(stop.err.find("no power readings"), std::string::npos) << stop.err;
  // The run's lease is released just after the stop's reply (PROTOCOL.md):
  // the file is back and the lease gone within a moment, not at the reply.
  nlohmann::json leases;
  auto released = [&] {
    auto out = run_command({ENERGYCTL_BIN, "--socket", sock, "--json", "clocks"}).out;
    auto j = nlohmann::json::parse(out, nullptr, false);
    leases = j.is_object() ? j.value("leases", nlohmann::json()) : nlohmann::json(out);
    return read_file(max_file) == before && leases.is_array() && leases.empty();
  };
  EXPECT_TRUE(eventually(released, std::chrono::seconds(5)))
      << read_file(max_file) << leases.dump() << read_file(t.path() + "/log");
  EXPECT_EQ(d.stop(SIGTERM), 0);
}

TEST(EnergyctlVersion, PrintsItsVersionWithoutADaemon) {
  auto v = run_command({ENERGYCTL_BIN, "--socket", "/nonexistent/s.sock", "--version"});
  EXPECT_EQ(v.exit_code, 0) << v.err;
  EXPECT_EQ(v.out.rfind("energyctl ", 0), 0u) << v.out;
  EXPECT_GT(v.out.size(), std::string("energyctl \n").size()) << v.out;
}

}  // namespace
}  // namespace energy::testing
