// Text views of runs: the runs table, a report's baseline and notes, and
// the live view.
#include <gtest/gtest.h>

#include "export_format.h"
#include "live_view.h"
#include "report_sections.h"
#include "run_list.h"

namespace energy::cli {
namespace {

// export RUN after retention: the rows are only what raw is left, and say so.
TEST(ExportRun, NamesTheDownsampledRailsAndIsSilentWhenAllAreRaw) {
  nlohmann::json all_raw = {{"rails", {{{"label", "VDD_IN"}, {"resolution", "raw"}}}}};
  EXPECT_EQ(downsampled_rows_note(all_raw), "");
  nlohmann::json aged = {{"rails",
                          {{{"label", "VDD_IN"}, {"resolution", "1s"}},
                           {{"label", "VDD_SOC"}, {"resolution", "raw"}},
                           {{"label", "VDD_CPU_GPU_CV"}, {"resolution", "1min"}}}}};
  std::string note = downsampled_rows_note(aged);
  EXPECT_NE(note.find("VDD_IN (1s), VDD_CPU_GPU_CV (1min)"), std::string::npos) << note;
  EXPECT_EQ(note.find("VDD_SOC"), std::string::npos) << note;
  EXPECT_NE(note.find("only the raw readings still stored"), std::string::npos) << note;
}

TEST(RunList, UnknownFiguresAreDashesNeverZero) {
  nlohmann::json runs = {{{"id", 12},
                          {"name", "resnet"},
                          {"state", "stopped"},
                          {"start_wall_ns", 0},
                          {"tags", nlohmann::json::object()},
                          {"summary", {{"duration_s", 1.5}, {"energy_j", 7.5}, {"avg_power_w", 5.0}}}},
                         {{"id", 9},
                          {"name", "idle"},
                          {"state", "interrupted"},
                          {"start_wall_ns", 0},
                          {"tags", {{"energyd.kind", "baseline"}}},
                          {"summary", {{"duration_s", 2.0}, {"energy_j", nullptr}, {"avg_power_w", nullptr}}}}};
  std::string text = render_run_list(runs);
  EXPECT_NE(text.find("7.5000"), std::string::npos) << text;
  EXPECT_NE(text.find("idle [baseline]"), std::string::npos) << text;
  EXPECT_NE(text.find("interrupted"), std::string::npos) << text;
  EXPECT_EQ(text.find(" 0.0000"), std::string::npos) << text;
  EXPECT_EQ(render_run_list(nlohmann::json::array()), "no runs match\n");
}

// Issue 15: runs shows energy per item and the tags, compact and cut.
TEST(RunList, ShowsEnergyPerItemAndCompactTags) {
  nlohmann::json runs = {{{"id", 3},
                          {"name", "bert"},
                          {"state", "stopped"},
                          {"start_wall_ns", 0},
                          {"items", 64},
                          {"tags", {{"batch", "8"}, {"energyd.uid", "1000"}, {"model", "bert"}}},
                          {"summary", {{"duration_s", 2.0}, {"energy_j", 32.0}, {"avg_power_w", 16.0}}}}};
  std::string text = render_run_list(runs);
  EXPECT_NE(text.find("J/ITEM"), std::string::npos) << text;
  EXPECT_NE(text.find("0.500000"), std::string::npos) << text;
  EXPECT_NE(text.find("batch=8,model=bert"), std::string::npos) << text;
  EXPECT_EQ(text.find("energyd.uid"), std::string::npos) << text;
  EXPECT_EQ(compact_tags(nlohmann::json::object()), "-");
  std::string long_value(200, 'x');
  std::string cut = compact_tags({{"command", long_value}});
  EXPECT_EQ(cut.size(), kMaxTagsChars);
  EXPECT_EQ(cut.substr(cut.size() - 3), "...");
  EXPECT_EQ(compact_tags({{"k", "\x1b[31mred"}}).find('\x1b'), std::string::npos) << "terminal-safe";
}

TEST(ReportSections, PerItemLineWithNetEnergyWhenThereIsABaseline) {
  nlohmann::json rep = {{"run", {{"id", 5}, {"items", 4}}},
                        {"total", {{"energy_j", 8.0}, {"energy_per_item_j", 2.0}, {"net_per_item_j", 0.75}}}};
  EXPECT_EQ(per_item_text(rep), "\nitems: 4; energy per item 2.000000 J, net 0.750000 J\n");
  rep["run"].erase("items");
  EXPECT_EQ(per_item_text(rep), "");
}

TEST(ReportSections, BaselineTableAndNotes) {
  nlohmann::json rep = {
      {"run", {{"id", 5}, {"tags", nlohmann::json::object()}}},
      {"rails", {{{"label", "VDD_IN"}, {"in_total", true}, {"energy_j", 8.0}, {"idle_j", 5.0}, {"net_j", 3.0}}}},
      {"total", {{"energy_j", 8.0}, {"idle_j", 5.0}, {"net_j", 3.0}}},
      {"baseline",
       {{"run", 3},
        {"name", "baseline"},
        {"duration_s", 10.0},
        {"age_s", 60.0},
        {"rails", {{{"label", "VDD_IN"}, {"avg_power_w", 5.0}}}},
        {"total", {{"avg_power_w", 5.0}}}}},
      {"notes", {"something to know"}}};
  std::string text = baseline_text(rep);
  for (const char* word :
       {"idle baseline: run 3 (baseline)", "60.000 s before this run", "IDLE W", "NET J", "3.0000"}) {
    EXPECT_NE(text.find(word), std::string::npos) << word << " missing from:\n" << text;
  }
  EXPECT_EQ(notes_text(rep), "note: something to know\n");
  rep.erase("baseline");
  EXPECT_NE(baseline_text(rep).find("no idle baseline"), std::string::npos);
  rep["run"]["tags"]["energyd.kind"] = "baseline";
  EXPECT_TRUE(is_baseline_report(rep));
  EXPECT_NE(baseline_text(rep).find("this run is an idle baseline"), std::string::npos);
}

TEST(LiveView, SnapshotTakesRailsTotalClocksAndTemperatures) {
  nlohmann::json status = {{"rails",
                            {{{"label", "VDD_IN"}, {"voltage_v", 5.0}, {"current_a", 1.0}, {"power_w", 5.0}},
                             {{"label", "VDD_SOC"}, {"errno", 5}, {"error", "Input/output error"}}}},
                           {"total", {{"rails", {"VDD_IN"}}, {"power_w", 5.0}}}};
  nlohmann::json clocks = {
      {"domains", {{{"name", "gpu"}, {"kind", "gpu"}, {"cur_hz", 612000000}, {"load_permille", 123}}}},
      {"thermal",
       {{{"type", "cpu-thermal"}, {"temp_c", 45.25}}, {{"type", "tj"}, {"gated", true}, {"temp_c", nullptr}}}}};
  auto snap = live_snapshot(status, clocks, 1'700'000'000'000'000'000);
  EXPECT_DOUBLE_EQ(snap["total_power_w"].get<double>(), 5.0);
  EXPECT_TRUE(snap["rails"][0]["in_total"].get<bool>());
  EXPECT_EQ(snap["rails"][1]["error"], "Input/output error");
  EXPECT_FALSE(snap["rails"][1].contains("power_w"));
  EXPECT_EQ(snap["clocks"][0]["load_permille"], 123);
  EXPECT_TRUE(snap["thermal"][1]["temp_c"].is_null());
  std::string text = render_live(snap);
  for (const char* word : {"total 5.000 W", "VDD_IN *", "read failed: Input/output error", "612.0", "12.3%", "45.2"}) {
    EXPECT_NE(text.find(word), std::string::npos) << word << " missing from:\n" << text;
  }
}

}  // namespace
}  // namespace energy::cli
