// A stored sweep's results (sweep_data.h), its text view (sweep_view.h,
// sweep_heatmap.h) and its export (sweep_export.h) on a constructed
// sweep.show reply whose figures are worked out by hand below.
//
// The sweep: cpu {1, 2} GHz x gpu {300, 600} MHz plus DVFS (points 0-3 in
// plan order, the last axis fastest, then DVFS as point 4), 10 items per
// run, two measure runs per point, an idle baseline of 1 W first.
//   point  energies J   duration s  J/item mean  s/item  95% CI half (t(0.975,1) = 12.706)
//   0      20.5, 21.5   10          2.1          1.0     12.706 * 0.0707 / 1.414 = 0.6353
//   1      19.9, 20.1   8           2.0          0.8     12.706 * 0.01414 / 1.414 = 0.1271
//   2      24.9, 25.1   6           2.5          0.6     0.1271
//   3      28, 28       4           2.8          0.4     0
//   4 DVFS 24.9, 25.1   5           2.5          0.5     0.1271
// Minimum energy: point 1, tied with point 0 (2.1 - 0.635 < 2.127).
// Net energy of point 1: (20 - 1 W x 8 s) / 10 = 1.2 J/item.
// Fastest: point 3. Pareto (energy, time): 3 (2.8, 0.4), 4 (2.5, 0.5),
// 1 (2.0, 0.8); 2 is beaten by 4, 0 by 1. EDP (J x s per item^2): 2.1,
// 1.6, 1.5, 1.12, 1.25: point 3. Against DVFS: point 1 saves 0.5 J/item
// (20%), CI half 4.303 x 0.01414 = 0.06085 (Welch df 2), and costs
// +0.3 s/item (+60%).
#include "sweep_view.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "sweep_data.h"
#include "sweep_export.h"
#include "sweep_fixture.h"
#include "sweep_heatmap.h"
#include "text_has.h"

namespace energy::cli {
namespace {

using nlohmann::json;

TEST(SweepResultsOfAStoredSweep, FindingsAreTheOnesWorkedOutByHand) {
  SweepResults r = results_of(fixture());
  ASSERT_EQ(r.points.size(), 5u);
  EXPECT_EQ(r.unit, "item");
  EXPECT_DOUBLE_EQ(r.points[1].stats.energy.mean, 2.0);
  EXPECT_NEAR(*r.points[1].stats.energy.ci95_half, 0.12706, 1e-4);
  EXPECT_NEAR(r.points[1].stats.net->mean, 1.2, 1e-12);
  ASSERT_TRUE(r.minimum.has_value());
  EXPECT_EQ(r.minimum->best, 1u);
  EXPECT_EQ(r.minimum->tied, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(r.fastest, 3u);
  EXPECT_EQ(r.pareto, (std::vector<size_t>{3, 4, 1}));
  EXPECT_EQ(r.edp, 3u);
  ASSERT_EQ(r.dvfs.size(), 1u);
  EXPECT_EQ(r.dvfs[0].best, 1u);
  EXPECT_NEAR(r.dvfs[0].saving.energy_j.mean, 0.5, 1e-12);
  EXPECT_NEAR(*r.dvfs[0].saving.energy_j.ci95_half, 0.06085, 1e-4);
  EXPECT_NEAR(r.dvfs[0].saving.relative, 0.2, 1e-12);
  EXPECT_NEAR(r.dvfs[0].saving.time_s.mean, 0.3, 1e-12);
}

TEST(SweepView, TextNamesEveryFindingWithItsFigures) {
  std::string text = render_sweep_results(results_of(fixture()), Colour::kOff);
  EXPECT_TRUE(has(text, "Sweep 7 \"grid\": complete")) << text;
  EXPECT_TRUE(has(text, "5 of 5 points measured, 10 counted run(s) of 11")) << text;
  EXPECT_TRUE(has(text, "cpu 1000 MHz, gpu 600 MHz")) << text;
  EXPECT_TRUE(has(text, "2 ± 0.1271")) << text;
  EXPECT_TRUE(has(text, "1.2 ± 0.1271")) << text;
  EXPECT_TRUE(has(text, "Minimum energy: cpu 1000 MHz, gpu 600 MHz, 2 ± 0.1271 J/item")) << text;
  EXPECT_TRUE(has(text, "indistinguishable from it (CIs overlap): cpu 1000 MHz, gpu 300 MHz")) << text;
  EXPECT_TRUE(has(text, "Fastest: cpu 2000 MHz, gpu 600 MHz, 0.4 ± 0 s/item")) << text;
  EXPECT_TRUE(has(text, "Pareto front (fastest first): cpu 2000 MHz, gpu 600 MHz; DVFS; cpu 1000 MHz, gpu 600 MHz"))
      << text;
  EXPECT_TRUE(has(text, "Energy-delay product minimum: cpu 2000 MHz, gpu 600 MHz")) << text;
  EXPECT_TRUE(has(text, "Against DVFS: cpu 1000 MHz, gpu 600 MHz saves 0.5 J/item (20.0%, 95% CI 0.4392 .. 0.5608 J)"))
      << text;
  EXPECT_TRUE(has(text, "costs +0.3 s/item (+60% time)")) << text;
  EXPECT_FALSE(has(text, "\x1b")) << "no colour when asked for none";
}

TEST(SweepView, HeatmapHasCpuDownGpuAcrossTheLowestMarkedAndColourOnlyWhenAsked) {
  SweepResults r = results_of(fixture());
  std::string plain = render_heatmaps(r, Colour::kOff);
  EXPECT_TRUE(has(plain, "cpu (down) x gpu (across)")) << plain;
  std::istringstream lines(plain);
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  ASSERT_EQ(rows.size(), 5u) << plain;  // title, header, two cpu rows, DVFS
  EXPECT_TRUE(has(rows[1], "300") && has(rows[1], "600")) << rows[1];
  EXPECT_TRUE(has(rows[2], "1000") && has(rows[2], "2.1") && has(rows[2], "2*")) << rows[2];
  EXPECT_TRUE(has(rows[3], "2000") && has(rows[3], "2.5") && has(rows[3], "2.8")) << rows[3];
  EXPECT_TRUE(has(rows[4], "DVFS: 2.5")) << rows[4];
  std::string coloured = render_heatmaps(r, Colour::kOn);
  EXPECT_TRUE(has(coloured, "\x1b[30;48;5;46m")) << "the lowest cell is green";
  EXPECT_TRUE(has(coloured, "\x1b[30;48;5;196m")) << "the highest cell is red";
}

TEST(SweepView, AnInterruptedSweepSaysSoAndHowToFinishIt) {
  json reply = fixture("interrupted");
  auto& runs = reply["sweep"]["runs"];
  runs.erase(runs.begin() + 6, runs.end());  // only the first round
  std::string text = render_sweep_results(results_of(reply), Colour::kOff);
  EXPECT_TRUE(has(text, "INTERRUPTED")) << text;
  EXPECT_TRUE(has(text, "energyctl sweep --resume 7")) << text;
  EXPECT_TRUE(has(text, "(n=1)")) << "one run per point has no CI";
}

TEST(SweepView, FailedAndUnfinishedRunsAreLeftOutWithTheirReason) {
  json reply = fixture();
  auto& runs = reply["sweep"]["runs"];
  runs[1]["run"]["tags"]["exit_status"] = "3";
  runs[2]["run"]["state"] = "interrupted";
  SweepResults r = results_of(reply);
  EXPECT_EQ(r.runs[1].left_out, "the command failed (exit status 3)");
  EXPECT_EQ(r.runs[2].left_out, "run interrupted");
  EXPECT_EQ(r.points[0].stats.energy.n, 1u);
  EXPECT_TRUE(has(render_sweep_results(r, Colour::kOff), "2 measure run(s) not counted"));
}

// The minimum's runs failed their quality gate: they never decide the
// minimum, the Pareto front or the saving against DVFS, and show says so.
TEST(SweepView, RunsThatFailedTheirQualityGateDecideNothing) {
  json reply = fixture();
  auto& runs = reply["sweep"]["runs"];
  json rejected;
  for (auto& r : runs) {
    r["run"]["quality"] = {{"verdict", "pass"}, {"failed", json::array()}};
    if (r["point"] == 1 && r["role"] == "measure") {
      r["run"]["quality"] = {{"verdict", "fail"}, {"failed", {"coverage", "longest_gap"}}};
      rejected = r;
    }
  }
  rejected["role"] = "rejected";
  rejected["run_id"] = 99;
  runs.push_back(rejected);
  SweepResults r = results_of(reply);
  ASSERT_TRUE(r.minimum.has_value());
  EXPECT_EQ(r.points[r.minimum->best].point, 0u) << "point 1 has no counted run left";
  for (size_t p : r.pareto) EXPECT_NE(r.points[p].point, 1u);
  for (const auto& d : r.dvfs) EXPECT_NE(r.points[d.best].point, 1u);
  std::string text = render_sweep_results(r, Colour::kOff);
  EXPECT_TRUE(has(text, "re-run after failing their quality gate, not counted: runs 99 (point 1")) << text;
  EXPECT_TRUE(has(text, "failed their quality gate on every try, left out of the figures")) << text;
  EXPECT_FALSE(has(text, "no stored quality verdict")) << text;
  bool named = false;
  for (const auto& row : r.runs) named |= row.left_out == "failed its quality gate (coverage, longest_gap)";
  EXPECT_TRUE(named);
}

// Runs that carry their precision (tag energyd.precision_j, J per run): the
// saving against DVFS is judged against the two points' combined precision.
TEST(SweepView, TheSavingAgainstDvfsSaysWhetherItExceedsTheCombinedPrecision) {
  json reply = fixture();
  for (auto& r : reply["sweep"]["runs"]) r["run"]["tags"]["energyd.precision_j"] = "0.3";  // 0.03 J/item
  SweepResults r = results_of(reply);
  ASSERT_EQ(r.dvfs.size(), 1u);
  ASSERT_TRUE(r.dvfs[0].combined_precision.has_value());
  EXPECT_NEAR(*r.dvfs[0].combined_precision, std::hypot(0.03, 0.03), 1e-12);
  std::string text = render_sweep_results(r, Colour::kOff);
  EXPECT_TRUE(has(text, "beyond the runs' combined precision")) << text;
  for (auto& run : reply["sweep"]["runs"]) run["run"]["tags"]["energyd.precision_j"] = "8";  // 0.8 J/item
  std::string within = render_sweep_results(results_of(reply), Colour::kOff);
  EXPECT_TRUE(has(within, "within the runs' combined precision")) << within;
  for (auto& run : reply["sweep"]["runs"]) {
    if (run["point"] == 1 && run["repeat"] == 0) run["run"]["tags"].erase("energyd.precision_j");
  }
  SweepResults partial = results_of(reply);
  EXPECT_FALSE(partial.points[1].precision.has_value()) << "a point one of whose runs has no precision has none";
  ASSERT_EQ(partial.dvfs[0].best, 1u);
  EXPECT_FALSE(partial.dvfs[0].combined_precision.has_value());
}

TEST(SweepView, WithoutItemCountsFiguresArePerRunAndWithoutABaselineThereIsNoNet) {
  json reply = fixture();
  auto& runs = reply["sweep"]["runs"];
  runs.erase(runs.begin());  // the baseline
  runs[0]["run"].erase("items");
  SweepResults r = results_of(reply);
  EXPECT_EQ(r.unit, "run");
  EXPECT_DOUBLE_EQ(r.points[1].stats.energy.mean, 20.0);
  EXPECT_FALSE(r.points[1].stats.net.has_value());
  EXPECT_FALSE(r.minimum_net.has_value());
  std::string text = render_sweep_results(r, Colour::kOff);
  EXPECT_TRUE(has(text, "energy J/run")) << text;
  EXPECT_TRUE(has(text, "no net energy")) << text;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string f; std::getline(in, f, ',');) out.push_back(f);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

TEST(SweepExport, CsvHasOneRowPerRunWithItsPointsClocks) {
  std::string csv = sweep_export_csv(results_of(fixture()));
  std::istringstream in(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 12u);  // header and 11 runs
  EXPECT_EQ(lines[0],
            "sweep_id,run_id,point,repeat,role,counted,left_out,quality,dvfs,cpu_hz,gpu_hz,cooldown_ms,state,"
            "exit_status,start_wall_ns,items,energy_j,duration_s,avg_power_w,energy_per_item_j,net_energy_per_item_j,"
            "time_per_item_s");
  auto f = split(lines[3]);  // run 12: point 1, repeat 0
  ASSERT_EQ(f.size(), 22u) << lines[3];
  EXPECT_EQ(std::vector<std::string>(f.begin(), f.begin() + 16),
            (std::vector<std::string>{"7", "12", "1", "0", "measure", "true", "", "", "false", "1000000000",
                                      "600000000", "", "stopped", "0", "1012", "10"}));
  EXPECT_DOUBLE_EQ(std::stod(f[16]), 19.9);
  EXPECT_DOUBLE_EQ(std::stod(f[19]), 19.9 / 10);
  EXPECT_NEAR(std::stod(f[20]), (19.9 - 8) / 10, 1e-12);
  EXPECT_DOUBLE_EQ(std::stod(f[21]), 0.8);
  auto baseline = split(lines[1]);
  EXPECT_EQ(baseline[4], "baseline");
  EXPECT_EQ(baseline[5], "false");
  EXPECT_EQ(baseline[19], "") << "no per-item figure for a run that is not counted";
  EXPECT_EQ(split(lines[6])[2], "4");
  EXPECT_EQ(split(lines[6])[8], "true") << "point 4 is DVFS";
  EXPECT_EQ(split(lines[6])[9], "") << "DVFS pins no clock";
}

TEST(SweepExport, JsonCarriesRunsAndPerPointResults) {
  json j = sweep_export_json(results_of(fixture()));
  ASSERT_EQ(j["runs"].size(), 11u);
  EXPECT_EQ(j["runs"][1]["clocks"], (json{{"cpu", 1000000000}, {"gpu", 300000000}}));
  const json& results = j["results"];
  ASSERT_EQ(results["points"].size(), 5u);
  EXPECT_NEAR(results["points"][1]["energy_j"]["mean"].get<double>(), 2.0, 1e-12);
  EXPECT_EQ(results["points"][1]["energy_j"]["n"], 2);
  EXPECT_EQ(results["minimum"], (json{{"point", 1}, {"indistinguishable", {0, 1}}}));
  EXPECT_EQ(results["fastest"], 3);
  EXPECT_EQ(results["pareto"], (json{3, 4, 1}));
  EXPECT_EQ(results["dvfs"][0]["dvfs_point"], 4);
  EXPECT_NEAR(results["dvfs"][0]["saving_relative"].get<double>(), 0.2, 1e-12);
}

}  // namespace
}  // namespace energy::cli
