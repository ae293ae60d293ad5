// The gnuplot scripts and data of `energyctl sweep plot` (sweep_plot.h) on
// the constructed sweep of sweep_fixture.h, and gnuplot_string's quoting.
// Expected figures (worked out in sweep_view_test.cpp): J/item 2.1, 2.0,
// 2.5, 2.8 at (cpu 1 GHz, gpu 300), (1, 600), (2, 300), (2, 600) MHz and
// DVFS 2.5; s/item 1.0, 0.8, 0.6, 0.4, DVFS 0.5; minimum point 1, fastest
// point 3, Pareto front 3, 4, 1.
#include "sweep_plot.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "gnuplot_render.h"
#include "sweep_fixture.h"
#include "text_has.h"

namespace energy::cli {
namespace {

const Plot& plot_named(const SweepPlots& plots, const std::string& suffix) {
  for (const auto& p : plots.plots) {
    if (p.output.size() >= suffix.size() &&
        p.output.compare(p.output.size() - suffix.size(), suffix.size(), suffix) == 0)
      return p;
  }
  ADD_FAILURE() << "no plot ending " << suffix;
  static const Plot kNone;
  return kNone;
}

const std::string& data_named(const Plot& p, const std::string& name) {
  for (const auto& d : p.data) {
    if (d.name == name) return d.text;
  }
  ADD_FAILURE() << "no data file " << name;
  static const std::string kNone;
  return kNone;
}

PlotOptions options() {
  PlotOptions o;
  o.dir = "/out";
  o.width = 640;
  o.height = 480;
  return o;
}

TEST(GnuplotString, DoublesQuotesAndBlanksControlCharacters) {
  EXPECT_EQ(gnuplot_string("plain"), "'plain'");
  EXPECT_EQ(gnuplot_string("it's"), "'it''s'");
  EXPECT_EQ(gnuplot_string("a\nb\tc\x7f"), "'a b c '");
  EXPECT_EQ(gnuplot_string("$x `cmd` \"q\" \\n"), "'$x `cmd` \"q\" \\n'");
}

TEST(SweepPlot, NamesThreeFilesInTheOutputDirectory) {
  auto plots = sweep_plots(results_of(fixture()), options());
  ASSERT_EQ(plots.plots.size(), 3u);
  EXPECT_TRUE(plots.skipped.empty());
  EXPECT_EQ(plots.plots[0].output, "/out/sweep-7-heatmap.png");
  EXPECT_EQ(plots.plots[1].output, "/out/sweep-7-energy-time.png");
  EXPECT_EQ(plots.plots[2].output, "/out/sweep-7-energy-gpu.png");
  EXPECT_TRUE(has(plots.plots[0].script, "set terminal pngcairo size 640,480 noenhanced"));
  EXPECT_TRUE(has(plots.plots[0].script, "set output '/out/sweep-7-heatmap.png'\n"));
}

TEST(SweepPlot, FormatsChooseTerminalAndExtension) {
  PlotOptions o = options();
  o.format = PlotFormat::kSvg;
  EXPECT_TRUE(has(plot_header(o, "/x.svg"), "set terminal svg size 640,480"));
  o.format = PlotFormat::kPdf;
  EXPECT_TRUE(has(plot_header(o, "/x.pdf"), "set terminal pdfcairo size 6.66666667in,5in"));
  EXPECT_EQ(plot_extension(PlotFormat::kPdf), "pdf");
}

TEST(SweepPlot, HeatmapCellsMinimumAndDvfs) {
  auto plots = sweep_plots(results_of(fixture()), options());
  const Plot& p = plot_named(plots, "-heatmap.png");
  // gpu across (column index), cpu down (row index).
  EXPECT_EQ(data_named(p, "heat-0.dat"), "0 0 2.1\n1 0 2\n0 1 2.5\n1 1 2.8\n");
  EXPECT_TRUE(has(p.script, "set label '2 minimum' at 1,0 center front\n"));
  EXPECT_TRUE(has(p.script, "set object rectangle center 1,0 size 1,1 front"));
  EXPECT_FALSE(has(p.script, "'2.1 minimum'"));
  EXPECT_TRUE(has(p.script, "set title 'DVFS 2.5 J/item'\n"));
  EXPECT_TRUE(has(p.script, "set xtics ('300' 0, '600' 1)\n"));
  EXPECT_TRUE(has(p.script, "set ytics ('1000' 0, '2000' 1)\n"));
  EXPECT_TRUE(has(p.script, "set multiplot layout 1,1 title 'sweep 7 (grid): mean energy per item'\n"));
}

TEST(SweepPlot, EnergyTimeParetoFrontAndLabels) {
  auto r = results_of(fixture());
  auto plots = sweep_plots(r, options());
  const Plot& p = plot_named(plots, "-energy-time.png");
  // Fastest first: points 3, 4 (DVFS), 1. CI halves: t(0.975, 1) = 12.7062047
  // times the standard error, 0.05 J/item for point 0 and 0.01 for points 1, 2, 4.
  EXPECT_EQ(data_named(p, "pareto.dat"), "0.4 2.8 0 0\n0.5 2.5 0 0.127062047\n0.8 2 0 0.127062047\n")
      << data_named(p, "pareto.dat");
  EXPECT_EQ(data_named(p, "points.dat").substr(0, 22), "1 2.1 0 0.635310237\n0.");
  EXPECT_TRUE(has(p.script, "set label 'minimum energy: " + result_label(r, 1) + "' at 0.8,2 offset"));
  EXPECT_TRUE(has(p.script, "set label 'fastest: " + result_label(r, 3) + "' at 0.4,2.8 offset"));
  EXPECT_TRUE(has(p.script, "set label '" + result_label(r, 4) + "' at 0.5,2.5 offset"));
  EXPECT_TRUE(has(p.script, "with xyerrorbars"));
}

TEST(SweepPlot, EnergyAgainstGpuOneLinePerOtherValue) {
  auto plots = sweep_plots(results_of(fixture()), options());
  const Plot& p = plot_named(plots, "-energy-gpu.png");
  EXPECT_EQ(data_named(p, "lines.dat").substr(0, 20), "300 2.1 0.635310237\n");
  EXPECT_TRUE(has(data_named(p, "lines.dat"), "\n\n\n300 2.5 0.127"));
  EXPECT_TRUE(has(p.script, "index 0 using 1:2:3 with yerrorlines lw 2 title 'cpu 1000 MHz'"));
  EXPECT_TRUE(has(p.script, "index 1 using 1:2:3 with yerrorlines lw 2 title 'cpu 2000 MHz'"));
}

// The lines come in the axis's order, not sorted as text ("cpu 1510.4 MHz"
// would come before "cpu 806.4 MHz").
TEST(SweepPlot, LinesFollowTheAxisOrderNotTheTextOrder) {
  json sweep = fixture();
  sweep["sweep"]["spec"]["axes"]["clocks"][0]["hz"] = {806400000, 1510400000};
  auto plots = sweep_plots(results_of(sweep), options());  // kept alive: p refers into it
  const Plot& p = plot_named(plots, "-energy-gpu.png");
  EXPECT_TRUE(has(p.script, "index 0 using 1:2:3 with yerrorlines lw 2 title 'cpu 806.4 MHz'")) << p.script;
  EXPECT_TRUE(has(p.script, "index 1 using 1:2:3 with yerrorlines lw 2 title 'cpu 1510.4 MHz'")) << p.script;
}

TEST(SweepPlot, NameFromTheSweepIsQuoted) {
  json reply = fixture();
  reply["sweep"]["name"] = "it's\n'; system('rm x')";
  auto plots = sweep_plots(results_of(reply), options());
  for (const auto& p : plots.plots) {
    EXPECT_TRUE(has(p.script, "sweep 7 (it''s ''; system(''rm x''))")) << p.script;
    EXPECT_FALSE(has(p.script, "it's")) << p.script;
  }
}

TEST(SweepPlot, NoCountedRunsNoPlots) {
  json reply = fixture();
  reply["sweep"]["runs"] = json::array();
  auto plots = sweep_plots(results_of(reply), options());
  EXPECT_TRUE(plots.plots.empty());
  ASSERT_EQ(plots.skipped.size(), 1u);
}

TEST(FindGnuplot, MissingSaysWhatToInstall) {
  const char* old = std::getenv("PATH");
  std::string saved = old != nullptr ? old : "";
  ::setenv("PATH", "/nonexistent-energyctl-test", 1);
  auto g = find_gnuplot();
  ::setenv("PATH", saved.c_str(), 1);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().code, ErrorCode::kNotFound);
  EXPECT_TRUE(has(g.error().message, "apt install gnuplot-nox")) << g.error().message;
}

}  // namespace
}  // namespace energy::cli
