// energyctl compare --by TAG (group_compare.h): runs grouped by a tag's
// value, means with Student intervals, differences from the first group
// with Welch intervals; worked by hand against run_stats.h.
#include "group_compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>

namespace energy::cli {
namespace {

using nlohmann::json;

json run(int id, const std::string& batch, double energy, double duration, std::optional<double> items = {}) {
  json r = {{"id", id},
            {"tags", {{"batch", batch}}},
            {"summary", {{"energy_j", energy}, {"duration_s", duration}, {"avg_power_w", energy / duration}}}};
  if (items) r["items"] = *items;
  return r;
}

TEST(GroupCompare, GroupsByTagValueWithMeansIntervalsAndWelchDifferences) {
  json runs = {run(1, "16", 20, 2, 4), run(2, "16", 24, 2, 4),
               run(3, "16", 28, 2, 4), run(4, "16", 32, 2, 4),
               run(5, "2", 10, 1, 2),  run(6, "2", 12, 1, 2),
               run(7, "2", 14, 1, 2),  {{"id", 8}, {"tags", json::object()}, {"summary", {{"energy_j", 1.0}}}}};
  auto c = group_compare_json(runs, "batch");
  ASSERT_EQ(c["groups"].size(), 2u) << c.dump();
  const auto& ref = c["groups"][0];
  EXPECT_EQ(ref["value"], "2") << "numeric order: 2 before 16";
  EXPECT_EQ(ref["n"], 3);
  EXPECT_FALSE(ref.contains("vs_reference"));
  EXPECT_DOUBLE_EQ(ref["metrics"]["energy_j"]["mean"].get<double>(), 12.0);
  EXPECT_NEAR(ref["metrics"]["energy_j"]["ci95_high"].get<double>(), 12.0 + 4.302653 * 2 / std::sqrt(3.0), 1e-5);
  EXPECT_DOUBLE_EQ(ref["metrics"]["energy_per_item_j"]["mean"].get<double>(), 6.0);
  const auto& d = c["groups"][1]["vs_reference"]["energy_j"];
  EXPECT_DOUBLE_EQ(d["diff"].get<double>(), 14.0);
  EXPECT_NEAR(d["ci95_high"].get<double>() - 14.0, 7.7960, 2e-4);  // run_stats_test's worked example
  EXPECT_NEAR(d["diff_pct"].get<double>(), 14.0 / 12.0 * 100, 1e-9);
  EXPECT_EQ(c["skipped_runs"], json({8}));
  std::string text = render_group_compare(c);
  EXPECT_NE(text.find("vs batch=2"), std::string::npos) << text;
  EXPECT_NE(text.find("+14.0000 [+6.2040, +21.7960] +116.7%"), std::string::npos) << text;
}

TEST(GroupCompare, ASingleRunHasNoIntervalAndRunsWithoutItemsNoPerItemFigure) {
  auto c = group_compare_json({run(1, "a", 5, 1), run(2, "b", 6, 1), run(3, "b", 8, 1)}, "batch");
  ASSERT_EQ(c["groups"].size(), 2u);
  EXPECT_TRUE(c["groups"][0]["metrics"]["energy_j"]["ci95_low"].is_null());
  EXPECT_TRUE(c["groups"][1]["vs_reference"]["energy_j"]["ci95_low"].is_null());
  EXPECT_FALSE(c["groups"][0]["metrics"].contains("energy_per_item_j"));
  EXPECT_EQ(render_group_compare(group_compare_json(json::array(), "batch")), "no stopped run has the tag batch\n");
}

}  // namespace
}  // namespace energy::cli
