// sampling_gap_warning: energyctl sweep's warning when the power monitors
// average over less than energyd's sampling period (the Nano on L4T 32).
#include "sweep_sampling.h"

#include <gtest/gtest.h>

namespace energy::cli {
namespace {

using nlohmann::json;

json status_with(double period_ms, std::initializer_list<double> intervals_ms) {
  json monitors = json::array();
  for (double w : intervals_ms) monitors.push_back({{"device", "ina3221"}, {"update_interval_ms", w}});
  return {{"sampler", {{"period_ms", period_ms}}}, {"monitors", monitors}};
}

TEST(SweepSampling, ANanosFiftyFourMsWindowAtOneHundredMsIsWarnedAbout) {
  auto w = sampling_gap_warning(status_with(100, {54}));
  ASSERT_TRUE(w.has_value());
  EXPECT_NE(w->find("average over 54 ms"), std::string::npos) << *w;
  EXPECT_NE(w->find("every 100 ms"), std::string::npos) << *w;
  EXPECT_NE(w->find("46 % of each period"), std::string::npos) << *w;
  EXPECT_NE(w->find("at most every 54 ms"), std::string::npos) << *w;
}

TEST(SweepSampling, WindowsThatCoverThePeriodNeedNoWarning) {
  EXPECT_FALSE(sampling_gap_warning(status_with(50, {54})));
  EXPECT_FALSE(sampling_gap_warning(status_with(100, {100, 140})));
  EXPECT_TRUE(sampling_gap_warning(status_with(100, {140, 54}))) << "the shortest window counts";
}

TEST(SweepSampling, AStatusThatDoesNotSayClaimsNothing) {
  EXPECT_FALSE(sampling_gap_warning(json::object()));
  EXPECT_FALSE(sampling_gap_warning({{"sampler", {{"period_ms", 100}}}}));
  EXPECT_FALSE(sampling_gap_warning(status_with(100, {})));
  EXPECT_FALSE(sampling_gap_warning({{"sampler", {{"period_ms", "100"}}}, {"monitors", "x"}}));
  EXPECT_FALSE(sampling_gap_warning(status_with(100, {0, -3})));
  EXPECT_FALSE(sampling_gap_warning(json::array({1, 2}))) << "not an object: no throw, no claim";
  EXPECT_FALSE(sampling_gap_warning(json("status")));
  EXPECT_FALSE(sampling_gap_warning({{"sampler", 5}, {"monitors", json::array()}}));
}

}  // namespace
}  // namespace energy::cli
