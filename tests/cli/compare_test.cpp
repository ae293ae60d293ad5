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

TEST(Compare, EachRunsQualityVerdictIsShownAndAFailureIsPointedOut) {
  auto passed = report(1, 2.0, 10.0, 4.0);
  passed["quality"] = {{"verdict", "pass"}};
  auto stalled = report(2, 2.0, 8.0, 3.0);
  stalled["quality"] = {{"verdict", "fail"}};
  auto older = report(3, 2.0, 10.0, 4.0);  // an energyd without quality
  auto c = compare_json({passed, stalled, older});
  EXPECT_EQ(c["runs"][0]["quality"], "pass");
  EXPECT_EQ(c["runs"][1]["quality"], "fail");
  EXPECT_TRUE(c["runs"][2]["quality"].is_null());
  std::string text = render_compare(c);
  EXPECT_NE(text.find("quality"), std::string::npos) << text;
  EXPECT_NE(text.find("FAIL"), std::string::npos) << text;
  EXPECT_NE(text.find("does not measure what it names"), std::string::npos) << text;
  EXPECT_EQ(render_compare(compare_json({passed, older})).find("does not measure"), std::string::npos);
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

// Reports with precisions: total and VDD_IN `total_p`, VDD_SOC `soc_p`.
nlohmann::json with_precision(nlohmann::json rep, double total_p, double soc_p) {
  rep["total"]["precision_j"] = total_p;
  rep["rails"][0]["precision_j"] = total_p;
  rep["rails"][1]["precision_j"] = soc_p;
  return rep;
}

TEST(ExceedsPrecision, ComparesTheDifferenceWithTheRootSumSquareOfThePrecisions) {
  EXPECT_TRUE(*exceeds_precision(100.0, 0.3, 100.51, 0.4)) << "0.51 J > 0.5 J";
  EXPECT_FALSE(*exceeds_precision(100.0, 0.3, 100.49, 0.4)) << "0.49 J < 0.5 J";
  EXPECT_FALSE(*exceeds_precision(100.0, 0.3, 99.51, 0.4)) << "either sign";
  EXPECT_TRUE(*exceeds_precision(100.0, 0.3, 99.49, 0.4));
  EXPECT_FALSE(exceeds_precision(100.0, std::nullopt, 101.0, 0.4).has_value());
  EXPECT_FALSE(exceeds_precision(std::nullopt, 0.3, 101.0, 0.4).has_value());
}

TEST(Compare, SaysWhichEnergyDifferencesExceedTheCombinedPrecision) {
  // Total: 10 J (0.03) vs 10.2 J (0.04): 2 % apart, 0.2 J > 0.05 J. VDD_SOC: 4 J (0.3) vs 3.8 J (0.4): 0.2 J < 0.5 J.
  auto c = compare_json(
      {with_precision(report(1, 2.0, 10.0, 4.0), 0.03, 0.3), with_precision(report(2, 2.0, 10.2, 3.8), 0.04, 0.4)});
  const auto& total = row(c, "energy_j");
  EXPECT_EQ(total["precision_j"], nlohmann::json({0.03, 0.04}));
  EXPECT_TRUE(total["combined_precision_j"][0].is_null());
  EXPECT_NEAR(total["combined_precision_j"][1].get<double>(), 0.05, 1e-12);
  EXPECT_TRUE(total["exceeds_precision"][0].is_null()) << "the first run is the reference";
  EXPECT_EQ(total["exceeds_precision"][1], true);
  EXPECT_EQ(row(c, "energy_j", "VDD_SOC")["exceeds_precision"][1], false);
  std::string text = render_compare(c);
  EXPECT_NE(text.find("10.2000 (+2.0%*)"), std::string::npos) << text;
  EXPECT_NE(text.find("3.8000 (-5.0%~)"), std::string::npos) << text;
}

TEST(Compare, AnOlderReportsErrorBoundStandsInForItsPrecision) {
  auto a = report(1, 2.0, 10.0, 4.0), b = report(2, 2.0, 10.2, 3.8);
  a["total"]["error_bound_j"] = 0.3;
  b["total"]["error_bound_j"] = 0.4;
  auto c = compare_json({a, b});
  EXPECT_EQ(row(c, "energy_j")["exceeds_precision"][1], false) << "0.2 J < 0.5 J";
  EXPECT_TRUE(row(c, "energy_j", "VDD_SOC")["exceeds_precision"][1].is_null()) << "no figure at all";
  EXPECT_TRUE(row(c, "avg_power_w").find("exceeds_precision") == row(c, "avg_power_w").end()) << "energy rows only";
}

}  // namespace
}  // namespace energy::cli
