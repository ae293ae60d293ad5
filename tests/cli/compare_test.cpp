// energyctl compare: values side by side and percent differences to the first run.
#include "compare.h"

#include <gtest/gtest.h>

namespace energy::cli {
namespace {

nlohmann::json report(int id, double duration, double energy, double soc, std::optional<double> net = std::nullopt) {
  nlohmann::json total = {{"energy_j", energy}, {"avg_power_w", energy / duration}, {"peak_power_w", 9.0}};
  if (net) total["net_j"] = *net;
  return {{"run", {{"id", id}, {"name", "r" + std::to_string(id)}, {"state", "stopped"}}},
          {"duration_s", duration},
          {"total", total},
          {"rails", {{{"label", "VDD_IN"}, {"energy_j", energy}}, {{"label", "VDD_SOC"}, {"energy_j", soc}}}}};
}

const nlohmann::json& row(const nlohmann::json& c, const std::string& metric, const std::string& rail = "") {
  for (const auto& m : c["metrics"]) {
    if (m["metric"] == metric && m.value("rail", "") == rail) return m;
  }
  static const nlohmann::json kNone;
  ADD_FAILURE() << metric << " " << rail << " missing from " << c.dump();
  return kNone;
}

TEST(PercentDifference, IsRelativeToTheFirstAndUnknownWithoutIt) {
  EXPECT_DOUBLE_EQ(*percent_difference(10.0, 12.5), 25.0);
  EXPECT_DOUBLE_EQ(*percent_difference(10.0, 7.5), -25.0);
  EXPECT_DOUBLE_EQ(*percent_difference(-2.0, -1.0), 50.0) << "a negative net energy that shrinks in size grew";
  EXPECT_FALSE(percent_difference(0.0, 3.0).has_value());
  EXPECT_FALSE(percent_difference(std::nullopt, 3.0).has_value());
  EXPECT_FALSE(percent_difference(3.0, std::nullopt).has_value());
}

TEST(Compare, EveryMetricHasEachRunsValueAndItsDifference) {
  auto c = compare_json({report(1, 2.0, 10.0, 4.0), report(2, 2.0, 12.0, 3.0), report(3, 4.0, 20.0, 8.0)});
  ASSERT_EQ(c["runs"].size(), 3u);
  EXPECT_EQ(c["runs"][2]["id"], 3);
  const auto& e = row(c, "energy_j");
  EXPECT_EQ(e["values"], nlohmann::json({10.0, 12.0, 20.0}));
  EXPECT_TRUE(e["diff_pct"][0].is_null());
  EXPECT_DOUBLE_EQ(e["diff_pct"][1].get<double>(), 20.0);
  EXPECT_DOUBLE_EQ(e["diff_pct"][2].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(row(c, "duration_s")["diff_pct"][2].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(row(c, "avg_power_w")["diff_pct"][1].get<double>(), 20.0);
  EXPECT_DOUBLE_EQ(row(c, "energy_j", "VDD_SOC")["diff_pct"][1].get<double>(), -25.0);
  for (const auto& m : c["metrics"]) EXPECT_NE(m["metric"], "net_j") << "no run has a baseline";
}

TEST(Compare, NetEnergyAppearsWhenARunHasABaselineAndIsNullWhereUnknown) {
  auto c = compare_json({report(1, 2.0, 10.0, 4.0, 2.0), report(2, 2.0, 12.0, 3.0)});
  const auto& net = row(c, "net_j");
  EXPECT_DOUBLE_EQ(net["values"][0].get<double>(), 2.0);
  EXPECT_TRUE(net["values"][1].is_null());
  EXPECT_TRUE(net["diff_pct"][1].is_null());
}

TEST(Compare, EnergyPerItemAppearsWhenARunHasItems) {
  auto a = report(1, 2.0, 10.0, 4.0, 2.0), b = report(2, 2.0, 12.0, 3.0, 3.0);
  a["total"]["energy_per_item_j"] = 10.0 / 4;
  a["total"]["net_per_item_j"] = 2.0 / 4;
  b["total"]["energy_per_item_j"] = 12.0 / 8;
  b["total"]["net_per_item_j"] = 3.0 / 8;
  auto c = compare_json({a, b});
  EXPECT_DOUBLE_EQ(row(c, "energy_per_item_j")["diff_pct"][1].get<double>(), -40.0);
  EXPECT_DOUBLE_EQ(row(c, "net_per_item_j")["diff_pct"][1].get<double>(), -25.0);
  EXPECT_NE(render_compare(c).find("NET J/ITEM"), std::string::npos);
  const auto without_items = compare_json({report(1, 2.0, 10.0, 4.0)});  // kept: the loop reads inside it
  for (const auto& m : without_items["metrics"]) EXPECT_NE(m["metric"], "energy_per_item_j") << "no run has items";
}

TEST(Compare, TextHasARowPerMetricAndSignedPercentages) {
  std::string text = render_compare(compare_json({report(1, 2.0, 10.0, 4.0), report(2, 2.0, 12.0, 3.0)}));
  for (const char* word : {"METRIC", "1 r1", "2 r2", "ENERGY J", "10.0000", "12.0000 (+20.0%)", "VDD_SOC J",
                           "3.0000 (-25.0%)", "DURATION s", "AVG W", "PEAK W"}) {
    EXPECT_NE(text.find(word), std::string::npos) << word << " missing from:\n" << text;
  }
}

}  // namespace
}  // namespace energy::cli
