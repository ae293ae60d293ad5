// The text form of a run report's clocks and temperatures.
#include "render_context.h"

#include <gtest/gtest.h>

namespace energy::cli {
namespace {

nlohmann::json domain(const std::string& name, nlohmann::json residency, double known_share,
                      nlohmann::json governors = nlohmann::json::array(), int changes = 0) {
  return {{"domain", name},
          {"kind", "gpu"},
          {"residency", std::move(residency)},
          {"governors", std::move(governors)},
          {"changes", changes},
          {"known_share", known_share}};
}

nlohmann::json share(int64_t hz, double s) { return {{"hz", hz}, {"seconds", s}, {"share", s}}; }

TEST(RenderContext, MegahertzAreExactWithoutTrailingZeros) {
  EXPECT_EQ(mhz_text(1'300'500'000), "1300.5 MHz");
  EXPECT_EQ(mhz_text(624'750'000), "624.75 MHz");
  EXPECT_EQ(mhz_text(612'000'000), "612 MHz");
  EXPECT_EQ(mhz_text(115'200), "0.1152 MHz");
  EXPECT_EQ(mhz_text(0), "0 MHz");
}

TEST(RenderContext, SharesAreWholePercentagesAndTinyOnesAreNotZero) {
  EXPECT_EQ(share_text(0.834), "83%");
  EXPECT_EQ(share_text(1.0), "100%");
  EXPECT_EQ(share_text(0.001), "<1%");
  EXPECT_EQ(share_text(0.0), "0%");
}

TEST(RenderContext, ResidencyShowsTheTopFrequenciesTheRestAndTheUnknown) {
  nlohmann::json rep = {
      {"clocks",
       {domain("gpu", {share(1'300'500'000, 0.5), share(612'000'000, 0.3)}, 0.8,
               {{{"governor", "nvhost_podgov"}, {"share", 0.8}}}, 3),
        domain("cpu0", {share(4, 0.4), share(3, 0.3), share(2, 0.2), share(1, 0.1)}, 1.0,
               {{{"governor", "schedutil"}, {"share", 0.6}}, {{"governor", "performance"}, {"share", 0.4}}})}}};
  std::string text = render_run_context(rep);
  for (const char* want :
       {"gpu", "1300.5 MHz 50%  612 MHz 30%  unknown 20%", "nvhost_podgov", "3",
        "0.000004 MHz 40%  0.000003 MHz 30%  0.000002 MHz 20%  others 10%", "schedutil 60%, performance 40%"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << " missing from:\n" << text;
  }
}

TEST(RenderContext, ADomainNeverPolledSaysUnknownRatherThanNothing) {
  nlohmann::json rep = {{"clocks", {domain("emc", nlohmann::json::array(), 0.0)}}};
  std::string text = render_run_context(rep);
  EXPECT_NE(text.find("emc"), std::string::npos) << text;
  EXPECT_NE(text.find("unknown"), std::string::npos) << text;
}

TEST(RenderContext, TemperaturesShowRangesGatedZonesAndPartlyKnownOnes) {
  nlohmann::json rep = {
      {"thermal",
       {{{"zone", "cpu-thermal"}, {"min_c", 41.375}, {"max_c", 44.0}, {"known_share", 1.0}, {"gated_share", 0.0}},
        {{"zone", "gpu-thermal"}, {"min_c", 43.2}, {"max_c", 43.2}, {"known_share", 0.5}, {"gated_share", 0.0}},
        {{"zone", "GPU-therm"}, {"min_c", nullptr}, {"max_c", nullptr}, {"known_share", 0.0}, {"gated_share", 1.0}},
        {{"zone", "tj-thermal"}, {"min_c", nullptr}, {"max_c", nullptr}, {"known_share", 0.0}, {"gated_share", 0.0}}}}};
  std::string text = render_run_context(rep);
  for (const char* want :
       {"cpu-thermal 41.4-44.0 C", "gpu-thermal 43.2 C (known 50%)", "GPU-therm gated", "tj-thermal unknown"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << " missing from:\n" << text;
  }
}

TEST(RenderContext, AReportWithoutContextAddsNothing) {
  EXPECT_EQ(render_run_context(nlohmann::json{{"rails", nlohmann::json::array()}}), "");
}

}  // namespace
}  // namespace energy::cli
