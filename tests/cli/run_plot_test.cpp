// The gnuplot script and data of `energyctl plot RUN` (run_plot.h) on a
// constructed report and export rows: times from the run's start, W from
// µW, a failed read as a gap (never 0), clock events as vertical lines.
#include "run_plot.h"

#include <gtest/gtest.h>

#include "text_has.h"

namespace energy::cli {
namespace {

using nlohmann::json;

constexpr int64_t kStart = 5'000'000'000;

json report() {
  return {{"run", {{"id", 12}, {"name", "it's"}, {"start_ns", kStart}}},
          {"clock_events",
           {{{"boot_ns", kStart + 1'500'000'000}, {"kind", "pinned"}, {"domain", "gpu"}},
            {{"boot_ns", kStart + 3'000'000'000}, {"kind", "external_change"}, {"domain", "cpu0"}}}}};
}

json reading(const std::string& rail, int64_t t_ns, int64_t uw) {
  return {{"rail", rail}, {"t_ns", t_ns}, {"power_uw", uw}};
}

std::vector<json> rows() {
  return {reading("VDD_GPU", kStart, 1'500'000),
          reading("VDD_IN", kStart, 5'000'000),
          {{"rail", "VDD_GPU"}, {"t_ns", kStart + 1'000'000'000}, {"errno", 5}},
          reading("VDD_IN", kStart + 1'000'000'000, 5'250'000),
          reading("VDD_GPU", kStart + 2'000'000'000, 2'000'000)};
}

TEST(RunPlot, RailsInWattsFromTheStartWithGapsForFailedReads) {
  auto p = run_power_plot(report(), rows(), PlotOptions{}, "/out/r.png");
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->data.size(), 2u);
  EXPECT_EQ(p->data[0].text, "0 1.5\n\n2 2\n");  // VDD_GPU, its failed read a break
  EXPECT_EQ(p->data[1].text, "0 5\n1 5.25\n");   // VDD_IN
  EXPECT_TRUE(has(p->script, "title 'VDD_GPU'"));
  EXPECT_TRUE(has(p->script, "title 'VDD_IN'"));
  EXPECT_TRUE(has(p->script, "set output '/out/r.png'\n"));
  EXPECT_TRUE(has(p->script, "set title 'run 12 (it''s): power per rail'\n"));
}

TEST(RunPlot, TheTitleCarriesTheRunsQualityVerdict) {
  json rep = report();
  rep["quality"] = {{"verdict", "fail"},
                    {"checks",
                     {{{"name", "coverage"}, {"outcome", "fail"}},
                      {{"name", "overlap"}, {"outcome", "warn"}},
                      {{"name", "state"}, {"outcome", "pass"}}}}};
  auto p = run_power_plot(rep, rows(), PlotOptions{}, "/out/r.png");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(has(p->script, "set title 'run 12 (it''s): power per rail; quality FAIL (coverage, overlap)'\n"))
      << p->script;
}

TEST(RunPlot, ClockEventsAreVerticalLinesAtTheirTime) {
  auto p = run_power_plot(report(), rows(), PlotOptions{}, "/out/r.png");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(has(p->script, "set arrow from first 1.5, graph 0 to first 1.5, graph 1 nohead"));
  EXPECT_TRUE(has(p->script, "set label 'pinned gpu' at first 1.5,"));
  EXPECT_TRUE(has(p->script, "set label 'external_change cpu0' at first 3,"));
}

TEST(RunPlot, NoReadingsOrNoStartIsAnError) {
  EXPECT_FALSE(run_power_plot(report(), {}, PlotOptions{}, "/r.png").ok());
  json no_start = report();
  no_start["run"].erase("start_ns");
  EXPECT_FALSE(run_power_plot(no_start, rows(), PlotOptions{}, "/r.png").ok());
}

TEST(RunPlot, FormatFollowsTheFileName) {
  EXPECT_EQ(*format_of_file("a.svg"), PlotFormat::kSvg);
  EXPECT_EQ(*format_of_file("/x/a.pdf"), PlotFormat::kPdf);
  EXPECT_EQ(*format_of_file("a.png"), PlotFormat::kPng);
  auto bad = format_of_file("a.jpg");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(has(bad.error().message, "a.jpg"));
}

}  // namespace
}  // namespace energy::cli
