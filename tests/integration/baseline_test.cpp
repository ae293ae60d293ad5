// Idle baselines through energyctl: `energyctl baseline` measures the idle
// power; later runs report idle energy (baseline power x duration) and net
// energy (gross - idle), and say when the baseline is doubtful. The board is
// a static simulated tree whose VDD_IN current the test rewrites, so the
// "workload" draws exactly 3 W more than the idle board.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "board_fixture.h"

namespace energy::testing {
namespace {

using std::chrono::milliseconds;

// The hwmon current file of the rail labelled `label` in the board tree.
std::string current_file(const std::string& board, const std::string& label) {
  for (const auto& e : std::filesystem::recursive_directory_iterator(board + "/sys/devices")) {
    std::string name = e.path().filename().string();
    if (name.rfind("in", 0) != 0 || name.size() < 9 || name.substr(name.size() - 6) != "_label") continue;
    std::string text = read_file(e.path().string());
    if (text != label + "\n" && text != label) continue;
    std::string channel = name.substr(2, name.size() - 8);
    return e.path().parent_path().string() + "/curr" + channel + "_input";
  }
  return "";
}

// Rewrites the file in place with text of the same length, so a concurrent
// read sees the old or the new value, never an empty file.
void overwrite(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(::pwrite(fd, text.data(), text.size(), 0), static_cast<ssize_t>(text.size()));
  ::close(fd);
}

const nlohmann::json& rail_of(const nlohmann::json& report, const std::string& label) {
  const nlohmann::json* r = report_rail(report, label);
  EXPECT_NE(r, nullptr) << label;
  static const nlohmann::json kNull;
  return r != nullptr ? *r : kNull;
}

class Baseline : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(d_.started()) << d_.setup_error();
    vdd_in_ = current_file(d_.dir() + "/board", "VDD_IN");
    ASSERT_FALSE(vdd_in_.empty());
    ASSERT_EQ(read_file(vdd_in_), "1000\n");
  }
  // VDD_IN from 5 W (idle) to 8 W (busy); the other rails stay as they are.
  void load(bool busy) {
    overwrite(vdd_in_, busy ? "1600" : "1000");
    std::this_thread::sleep_for(milliseconds(250));  // the sensor's next readings have the new value
  }
  nlohmann::json run_json(const std::vector<std::string>& args) {
    std::vector<std::string> full = {"--json", "run", "--output", "-"};
    full.insert(full.end(), args.begin(), args.end());
    auto r = d_.ctl(full);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  }

  SimulatedDaemon d_{constant_orin_nano()};
  std::string vdd_in_;
};

TEST_F(Baseline, RunsReportIdleAndNetEnergyAgainstTheNewestBaseline) {
  auto bl = d_.ctl_json({"baseline", "--duration", "1s"});
  EXPECT_EQ(bl["run"]["tags"]["energyd.kind"], "baseline");
  EXPECT_NEAR(bl["total"]["avg_power_w"].get<double>(), 5.0, 1e-6);
  EXPECT_FALSE(bl.contains("baseline")) << "a baseline has no baseline of its own";
  load(true);
  auto doc = run_json({"--name", "busy", "--", "sleep", "1"});
  const auto& rep = doc["runs"][0]["report"];
  ASSERT_TRUE(rep.contains("baseline")) << rep.dump(2);
  EXPECT_EQ(rep["baseline"]["run"], bl["run"]["id"]);
  EXPECT_TRUE(rep["baseline"]["same_boot"].get<bool>());
  EXPECT_NEAR(rep["baseline"]["total"]["avg_power_w"].get<double>(), 5.0, 1e-6);
  double duration = rep["duration_s"].get<double>();
  const auto& total = rep["total"];
  EXPECT_NEAR(total["idle_j"].get<double>(), 5.0 * duration, 1e-6 * 5.0 * duration);
  EXPECT_NEAR(total["net_j"].get<double>(), total["energy_j"].get<double>() - total["idle_j"].get<double>(), 1e-9);
  EXPECT_NEAR(total["net_j"].get<double>(), 3.0 * duration, 0.01 * 3.0 * duration);
  const auto& soc = rail_of(rep, "VDD_SOC");
  EXPECT_NEAR(soc["idle_j"].get<double>(), 2.0 * duration, 1e-6 * 2.0 * duration);
  EXPECT_NEAR(soc["net_j"].get<double>(), 0.0, 1e-3) << "an unchanged rail has no net energy";
  EXPECT_NEAR(rail_of(rep, "VDD_IN")["net_j"].get<double>(), 3.0 * duration, 0.01 * 3.0 * duration);
  EXPECT_FALSE(any_note_contains(rep, "idle")) << rep.dump(2);

  auto text = d_.ctl({"show", "busy"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* word : {"idle baseline: run", "IDLE W", "IDLE J", "NET J"}) {
    EXPECT_NE(text.out.find(word), std::string::npos) << word << " missing from:\n" << text.out;
  }
  auto shown = d_.ctl({"baseline", "--show"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("idle baseline: run " + std::to_string(bl["run"]["id"].get<int64_t>())), std::string::npos)
      << shown.out;
  EXPECT_NE(shown.out.find("5.000"), std::string::npos) << shown.out;
}

TEST_F(Baseline, WithoutABaselineThereIsNoIdleEnergyAndTheTextSaysSo) {
  auto rep = d_.ctl_json({"mark", "start", "alone"});
  auto stopped = d_.ctl_json({"mark", "stop", "alone"});
  EXPECT_FALSE(stopped.contains("baseline"));
  EXPECT_FALSE(stopped["total"].contains("net_j"));
  auto text = d_.ctl({"show", "alone"});
  EXPECT_NE(text.out.find("no idle baseline"), std::string::npos) << text.out;
  auto none = d_.ctl({"baseline", "--show"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no baseline has been measured"), std::string::npos) << none.err;
}

TEST_F(Baseline, RunWithBaselineMeasuresItFirstAndTiesTheRunsToIt) {
  auto old = d_.ctl_json({"baseline", "--duration", "500ms"});
  std::thread busy_soon([this] {  // once the first run is open (after the baseline), the board gets busy
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      auto open = d_.ctl({"--json", "status"});
      if (open.out.find("\"name\": \"tied\"") != std::string::npos) break;
      std::this_thread::sleep_for(milliseconds(20));
    }
    overwrite(vdd_in_, "1600");
  });
  auto doc = run_json({"--baseline", "1s", "--repeat", "2", "--name", "tied", "--", "sleep", "1"});
  busy_soon.join();
  ASSERT_TRUE(doc.contains("baseline_run")) << doc.dump(2);
  EXPECT_NE(doc["baseline_run"], old["run"]["id"]);
  auto bl = d_.ctl_json({"show", std::to_string(doc["baseline_run"].get<int64_t>())});
  EXPECT_EQ(bl["run"]["tags"]["energyd.kind"], "baseline");
  EXPECT_NEAR(bl["duration_s"].get<double>(), 1.0, 0.15);
  ASSERT_EQ(doc["runs"].size(), 2u);
  for (const auto& run : doc["runs"]) {
    const auto& rep = run["report"];
    EXPECT_EQ(rep["run"]["tags"]["energyd.baseline"], std::to_string(doc["baseline_run"].get<int64_t>()));
    EXPECT_EQ(rep["baseline"]["run"], doc["baseline_run"]);
    EXPECT_NEAR(rep["total"]["net_j"].get<double>(),
                rep["total"]["energy_j"].get<double>() - rep["total"]["idle_j"].get<double>(), 1e-9);
  }
  double net_sum = 0;
  for (const auto& run : doc["runs"]) net_sum += run["report"]["total"]["net_j"].get<double>();
  ASSERT_TRUE(doc["summary"].contains("net_energy_j")) << doc["summary"].dump(2);
  EXPECT_NEAR(doc["summary"]["net_energy_j"]["mean"].get<double>(), net_sum / 2, 1e-9);
  // The second repeat ran entirely at 8 W.
  const auto& second = doc["runs"][1]["report"];
  EXPECT_NEAR(second["total"]["net_j"].get<double>(), 3.0 * second["duration_s"].get<double>(),
              0.01 * 3.0 * second["duration_s"].get<double>());
}

TEST_F(Baseline, ABaselineTakenWhileARunWasOpenIsFlagged) {
  auto other = d_.ctl_json({"mark", "start", "not-idle"});
  auto bl = d_.ctl_json({"baseline", "--duration", "500ms"});
  d_.ctl_json({"mark", "stop", "not-idle"});
  std::string other_id = std::to_string(other["id"].get<int64_t>());
  EXPECT_TRUE(any_note_contains(bl, "runs open while this baseline was measured (" + other_id + ")")) << bl.dump(2);
  auto human = d_.ctl({"baseline", "--show"});
  EXPECT_NE(human.out.find("note: runs open while this baseline"), std::string::npos) << human.out;
  d_.ctl_json({"mark", "start", "later"});
  auto later = d_.ctl_json({"mark", "stop", "later"});
  EXPECT_EQ(later["baseline"]["run"], bl["run"]["id"]);
  EXPECT_TRUE(any_note_contains(later, "the board may not have been idle")) << later.dump(2);
}

TEST_F(Baseline, AnInterruptedBaselineIsClosedRetaggedAndNeverUsed) {
  std::vector<std::string> argv = {ENERGYCTL_BIN, "--socket", d_.socket(), "baseline", "--duration", "30s"};
  ChildProcess ctl(argv, d_.dir() + "/baseline.log");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (d_.ctl_json({"status"})["open_runs"].empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  ASSERT_FALSE(d_.ctl_json({"status"})["open_runs"].empty()) << read_file(d_.dir() + "/baseline.log");
  EXPECT_EQ(ctl.stop(SIGINT, std::chrono::seconds(10)), 128 + SIGINT) << read_file(d_.dir() + "/baseline.log");
  EXPECT_NE(read_file(d_.dir() + "/baseline.log").find("cut short by SIGINT"), std::string::npos);
  EXPECT_TRUE(d_.ctl_json({"status"})["open_runs"].empty()) << "the baseline run was stopped";
  auto listed = d_.ctl_json({"runs", "--tag", "energyd.kind=baseline-interrupted"});
  ASSERT_EQ(listed["runs"].size(), 1u) << listed.dump(2);
  d_.ctl_json({"mark", "start", "after"});
  auto rep = d_.ctl_json({"mark", "stop", "after"});
  EXPECT_FALSE(rep.contains("baseline")) << rep.dump(2);
}

}  // namespace
}  // namespace energy::testing
