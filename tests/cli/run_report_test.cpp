#include "run_report.h"

#include <gtest/gtest.h>

#include <cmath>

namespace energy::cli {
namespace {

Repeat measured(int index, double energy_j, double duration_s, int exit_status = 0) {
  Repeat r;
  r.index = index;
  r.run_id = 10 + index;
  r.exit_status = exit_status;
  r.report = nlohmann::json{{"run", {{"id", r.run_id}, {"name", "w"}, {"state", "stopped"}}},
                            {"duration_s", duration_s},
                            {"total", {{"energy_j", energy_j}, {"avg_power_w", energy_j / duration_s}}}};
  return r;
}

TEST(RunSummary, CoversEnergyDurationPowerAndEnergyPerItem) {
  auto j = summary_json({measured(1, 10.0, 2.0), measured(2, 12.0, 2.0), measured(3, 14.0, 2.0)}, 4.0);
  EXPECT_EQ(j["runs"], 3);
  EXPECT_DOUBLE_EQ(j["energy_j"]["mean"].get<double>(), 12.0);
  EXPECT_DOUBLE_EQ(j["energy_j"]["stddev"].get<double>(), 2.0);
  EXPECT_NEAR(j["energy_j"]["ci95_low"].get<double>(), 12.0 - 4.302653 * 2.0 / std::sqrt(3.0), 1e-5);
  EXPECT_DOUBLE_EQ(j["duration_s"]["mean"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["avg_power_w"]["mean"].get<double>(), 6.0);
  EXPECT_DOUBLE_EQ(j["energy_per_item_j"]["mean"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(j["energy_per_item_j"]["max"].get<double>(), 3.5);
}

TEST(RunSummary, LeavesOutFailedCommandsAndUnmeasuredRuns) {
  Repeat unmeasured;
  unmeasured.index = 3;
  unmeasured.stop_error = "mark.stop failed";
  auto j = summary_json({measured(1, 10.0, 2.0), measured(2, 99.0, 2.0, 3), unmeasured}, std::nullopt);
  EXPECT_EQ(j["runs"], 1);
  EXPECT_DOUBLE_EQ(j["energy_j"]["mean"].get<double>(), 10.0);
  EXPECT_TRUE(j["energy_j"]["stddev"].is_null());
  EXPECT_TRUE(j["energy_j"]["ci95_low"].is_null());
  EXPECT_FALSE(j.contains("energy_per_item_j"));
}

TEST(RunSummary, LeavesOutRunsThatFailedTheirQualityGate) {
  Repeat stalled = measured(2, 60.0, 2.0);
  (*stalled.report)["quality"] = {{"verdict", "fail"}};
  Repeat overlapped = measured(3, 14.0, 2.0);
  (*overlapped.report)["quality"] = {{"verdict", "warn"}};
  auto j = summary_json({measured(1, 10.0, 2.0), stalled, overlapped}, std::nullopt);
  EXPECT_EQ(j["runs"], 2) << "a warning counts, a failure does not";
  EXPECT_DOUBLE_EQ(j["energy_j"]["mean"].get<double>(), 12.0);
  RunDocument doc;
  doc.name = "w";
  doc.repeat = 3;
  doc.repeats = {measured(1, 10.0, 2.0), stalled, overlapped};
  std::string text = render_run_text(doc);
  EXPECT_NE(text.find("run 12 failed its quality gate and is left out"), std::string::npos) << text;
}

// With a baseline applied (the report's total has net_j): net energy and net
// energy per item, over the same runs.
TEST(RunSummary, HasNetEnergyWhenTheRunsHaveABaseline) {
  auto with_idle = [](int index, double energy_j, double idle_j) {
    Repeat r = measured(index, energy_j, 2.0);
    (*r.report)["total"]["idle_j"] = idle_j;
    (*r.report)["total"]["net_j"] = energy_j - idle_j;
    return r;
  };
  auto j = summary_json({with_idle(1, 10.0, 4.0), with_idle(2, 12.0, 4.0)}, 2.0);
  EXPECT_DOUBLE_EQ(j["net_energy_j"]["mean"].get<double>(), 7.0);
  EXPECT_DOUBLE_EQ(j["net_energy_j"]["min"].get<double>(), 6.0);
  EXPECT_DOUBLE_EQ(j["net_energy_per_item_j"]["mean"].get<double>(), 3.5);
  EXPECT_FALSE(summary_json({measured(1, 10.0, 2.0)}, 2.0).contains("net_energy_j")) << "no baseline, no net";
  RunDocument doc;
  doc.name = "w";
  doc.command = {"w"};
  doc.repeat = 2;
  doc.baseline_run = 3;
  doc.repeats = {with_idle(1, 10.0, 4.0), with_idle(2, 12.0, 4.0)};
  std::string text = render_run_text(doc);
  for (const char* word : {"idle baseline: run 3", "NET J", "7.0000"}) {
    EXPECT_NE(text.find(word), std::string::npos) << word << " missing from:\n" << text;
  }
}

TEST(RunSummary, IsNullWhenNoRunQualifies) {
  EXPECT_TRUE(summary_json({measured(1, 10.0, 2.0, 1)}, std::nullopt).is_null());
}

TEST(RunDocument, JsonCarriesEachRunsExitStatusReportAndEnergyPerItem) {
  RunDocument doc;
  doc.name = "w";
  doc.command = {"w", "--fast"};
  doc.items = 5.0;
  doc.repeats = {measured(1, 10.0, 2.0)};
  auto j = run_document_json(doc);
  EXPECT_EQ(j["command"], nlohmann::json::array({"w", "--fast"}));
  EXPECT_EQ(j["runs"][0]["exit_status"], 0);
  EXPECT_EQ(j["runs"][0]["run_id"], 11);
  EXPECT_DOUBLE_EQ(j["runs"][0]["energy_per_item_j"].get<double>(), 2.0);
  EXPECT_EQ(j["runs"][0]["report"]["total"]["energy_j"], 10.0);
}

TEST(RunDocument, TextForSeveralRunsHasARunTableAndASummaryTable) {
  RunDocument doc;
  doc.name = "w";
  doc.command = {"w"};
  doc.repeat = 2;
  doc.repeats = {measured(1, 10.0, 2.0), measured(2, 12.0, 2.0)};
  std::string text = render_run_text(doc);
  for (const char* word : {"2 of 2 runs of 'w'", "ENERGY J", "11.0000", "95% CI", "summary over 2 runs"}) {
    EXPECT_NE(text.find(word), std::string::npos) << word << " missing from:\n" << text;
  }
}

TEST(RunDocument, TextNamesTheSignalThatKilledTheCommand) {
  RunDocument doc;
  doc.name = "w";
  doc.command = {"w"};
  Repeat r = measured(1, 1.0, 1.0);
  r.exit_status = 130;
  r.died_of_signal = 2;
  doc.repeats = {r};
  EXPECT_NE(render_run_text(doc).find("killed by SIGINT (status 130)"), std::string::npos) << render_run_text(doc);
}

}  // namespace
}  // namespace energy::cli
