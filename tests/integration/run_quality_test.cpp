// Run quality and attribution on a real energyd (quality.h, attribution.h):
// a stalled sampler fails a run's gate and its gap says why; a report does
// not change when energyd comes back at another period; a restart is named
// as such; an exclusive run; and the CPU energy of eight concurrent runs is
// split without ever adding up to more than the CPU rail measured.
#include <gtest/gtest.h>
#include <signal.h>

#include <thread>

#include "board_fixture.h"

namespace energy::testing {
namespace {

using std::chrono::milliseconds;

const nlohmann::json& check(const nlohmann::json& report, const std::string& name) {
  for (const auto& c : report["quality"]["checks"]) {
    if (c["name"] == name) return c;
  }
  static const nlohmann::json kNone;
  ADD_FAILURE() << "no check " << name << " in " << report["quality"].dump();
  return kNone;
}

// energyd stopped (SIGSTOP) for `ms`: its sampler takes no reading meanwhile.
void stall(const SimulatedDaemon& d, int ms) {
  ::kill(d.pid(), SIGSTOP);
  std::this_thread::sleep_for(milliseconds(ms));
  ::kill(d.pid(), SIGCONT);
}

TEST(RunQuality, AStalledSamplerFailsTheGateAndItsGapSaysSo) {
  SimulatedDaemon d(constant_orin_nano());
  ASSERT_TRUE(d.started()) << d.setup_error();
  d.ctl_json({"mark", "start", "stalled"});
  std::this_thread::sleep_for(milliseconds(300));
  stall(d, 700);
  std::this_thread::sleep_for(milliseconds(300));
  auto rep = d.ctl_json({"mark", "stop", "stalled"});
  ASSERT_TRUE(rep.contains("quality")) << rep.dump();
  EXPECT_EQ(rep["quality"]["verdict"], "fail") << rep["quality"].dump(2);
  EXPECT_EQ(check(rep, "coverage")["outcome"], "fail");
  EXPECT_EQ(check(rep, "longest_gap")["outcome"], "fail");
  ASSERT_EQ(rep["quality"]["gaps"].size(), 1u) << rep["quality"].dump(2);
  EXPECT_EQ(rep["quality"]["gaps"][0]["cause"], "sampler_stalled");
  EXPECT_GT(rep["quality"]["gaps"][0]["length_ns"].get<int64_t>(), 600'000'000);
  EXPECT_TRUE(any_note_contains(rep, "the sampler stalled")) << rep["notes"].dump();
  auto runs = d.ctl_json({"runs"});
  EXPECT_EQ(runs["runs"][0]["quality"]["verdict"], "fail") << runs.dump();
}

TEST(RunQuality, AStoredReportDoesNotChangeWhenEnergydComesBackAtAnotherPeriod) {
  SimulatedDaemon d(constant_orin_nano());
  ASSERT_TRUE(d.started()) << d.setup_error();
  d.ctl_json({"mark", "start", "kept"});
  std::this_thread::sleep_for(milliseconds(300));
  stall(d, 400);  // a gap at 100 ms (over 250 ms); none at 1000 ms (2.5 s)
  std::this_thread::sleep_for(milliseconds(300));
  auto stopped = d.ctl_json({"mark", "stop", "kept"});
  ASSERT_TRUE(stopped.contains("quality")) << stopped.dump();
  ASSERT_TRUE(d.restart_with_period(SIGTERM, 1000)) << d.log();
  auto shown = d.ctl_json({"show", std::to_string(stopped["run"]["id"].get<int64_t>())});
  EXPECT_DOUBLE_EQ(shown["total"]["coverage"].get<double>(), stopped["total"]["coverage"].get<double>());
  EXPECT_LT(shown["total"]["coverage"].get<double>(), 0.9);
  EXPECT_EQ(shown["quality"]["verdict"], stopped["quality"]["verdict"]);
  EXPECT_DOUBLE_EQ(shown["quality"]["period_ms"].get<double>(), 100.0);
  EXPECT_TRUE(shown["quality"]["period_recorded"].get<bool>());
}

TEST(RunQuality, AGapWhileEnergydWasDownSaysSo) {
  SimulatedDaemon d(constant_orin_nano());
  ASSERT_TRUE(d.started()) << d.setup_error();
  d.ctl_json({"mark", "start", "across"});
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(d.stop(SIGTERM), 0) << d.log();
  std::this_thread::sleep_for(milliseconds(800));  // down for longer than 2.5 periods
  ASSERT_TRUE(d.restart(SIGTERM)) << d.log();
  std::this_thread::sleep_for(milliseconds(300));
  auto rep = d.ctl_json({"mark", "stop", "across"});
  ASSERT_FALSE(rep["quality"]["gaps"].empty()) << rep["quality"].dump(2);
  EXPECT_EQ(rep["quality"]["gaps"][0]["cause"], "energyd_stopped") << rep["quality"].dump(2);
  EXPECT_TRUE(any_note_contains(rep, "energyd was not running")) << rep["notes"].dump();
}

TEST(RunQuality, AnExclusiveRunIsRefusedBesideAnotherAndFailsWhenOverlapped) {
  SimulatedDaemon d(constant_orin_nano());
  ASSERT_TRUE(d.started()) << d.setup_error();
  d.ctl_json({"mark", "start", "first"});
  auto refused = d.ctl({"mark", "start", "alone", "--exclusive"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("exclusive"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("first"), std::string::npos) << refused.err;
  d.ctl_json({"mark", "stop", "first"});
  d.ctl_json({"mark", "start", "alone", "--exclusive"});
  d.ctl_json({"mark", "start", "intruder"});
  std::this_thread::sleep_for(milliseconds(200));
  d.ctl_json({"mark", "stop", "intruder"});
  auto rep = d.ctl_json({"mark", "stop", "alone"});
  EXPECT_EQ(check(rep, "overlap")["outcome"], "fail") << rep["quality"].dump(2);
  ASSERT_EQ(rep["quality"]["overlaps"].size(), 1u);
  EXPECT_EQ(rep["quality"]["overlaps"][0]["name"], "intruder");
}

// Eight `energyctl run`s of a CPU-bound shell loop at once, inside an outer
// run: every report names its overlaps, and the CPU energy attributed to
// the eight never adds up to more than the CPU rail measured over them all.
TEST(RunQuality, ConcurrentRunsGetCpuSharesThatNeverExceedTheCpuRail) {
  BoardSpec spec;
  spec.board = "jetson-nano-4gb";
  spec.l4t = "32";
  spec.sample_period_ms = 50;
  SimulatedDaemon d(spec);
  ASSERT_TRUE(d.started()) << d.setup_error();
  d.ctl_json({"mark", "start", "outer"});
  std::vector<std::unique_ptr<ChildProcess>> runs;
  for (int i = 0; i < 8; ++i) {
    std::string out = d.dir() + "/run" + std::to_string(i) + ".json";
    runs.push_back(std::make_unique<ChildProcess>(
        std::vector<std::string>{ENERGYCTL_BIN, "--socket", d.socket(), "--json", "run", "--name",
                                 "c" + std::to_string(i), "--output", out, "--", "sh", "-c",
                                 "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done"},
        d.dir() + "/run" + std::to_string(i) + ".log"));
  }
  for (auto& r : runs) ASSERT_TRUE(eventually([&] { return !r->running(); }, milliseconds(60000)));
  auto outer = d.ctl_json({"mark", "stop", "outer"});
  const nlohmann::json* cpu = report_rail(outer, "POM_5V_CPU");
  ASSERT_NE(cpu, nullptr) << outer.dump();
  double attributed = 0;
  double cpu_time = 0;
  for (int i = 0; i < 8; ++i) {
    auto doc = nlohmann::json::parse(read_file(d.dir() + "/run" + std::to_string(i) + ".json"), nullptr, false);
    ASSERT_TRUE(doc.is_object()) << read_file(d.dir() + "/run" + std::to_string(i) + ".log");
    const auto& rep = doc["runs"][0]["report"];
    EXPECT_GE(rep["quality"]["overlaps"].size(), 1u) << "run " << i << " names the outer run at least";
    const auto& a = rep["attribution"];
    ASSERT_TRUE(a["available"].get<bool>()) << a.dump();
    EXPECT_EQ(a["cpu_rails"], nlohmann::json::array({"POM_5V_CPU"}));
    EXPECT_LE(a["attributed_j"].get<double>(), a["cpu_rails_j"].get<double>() + 1e-9);
    attributed += a["attributed_j"].get<double>();
    cpu_time += a["cpu_time_s"].get<double>();
  }
  EXPECT_GT(cpu_time, 0.0) << "the shell loops used CPU time";
  EXPECT_GT(attributed, 0.0);
  EXPECT_LE(attributed, (*cpu)["energy_j"].get<double>() * 1.001)
      << "the eight shares add up to more than the CPU rail measured";
  EXPECT_EQ(outer["quality"]["overlaps"].size(), 8u);
}

}  // namespace
}  // namespace energy::testing
