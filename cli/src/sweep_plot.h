// The plots of a stored sweep (`energyctl sweep plot ID`), as gnuplot
// scripts and data (gnuplot_render.h) built from the results `sweep show`
// computes (sweep_data.h): nothing here recomputes a statistic.
//
//   heatmap      the CPU x GPU tables of sweep_heatmap.h drawn as coloured
//                cells (green least energy per item, red most), one panel
//                per value of the other axes and parameters, each cell's
//                mean written in it, the panel's lowest cell circled and
//                the DVFS reference of the same parameters in its title.
//                Needs two clock axes.
//   energy-time  energy per item against time per item for every point with
//                95% CI error bars both ways, the Pareto front as a line,
//                the minimum-energy point, the fastest point and each DVFS
//                reference labelled.
//   energy-<gpu> energy per item against the GPU frequency (the first
//                clock axis when there is no gpu axis), one line per value
//                of the other axes and parameters, with 95% CI error bars.
//
// Files are named sweep-<ID>-<plot>.<format> in the output directory.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "gnuplot_render.h"
#include "sweep_data.h"

namespace energy::cli {

enum class PlotFormat { kPng, kSvg, kPdf };

struct PlotOptions {
  PlotFormat format = PlotFormat::kPng;
  int width = 1200;  // pixels (PDF: at 96 per inch)
  int height = 800;
  std::string dir;  // absolute directory the images go to
};

struct SweepPlots {
  std::vector<Plot> plots;
  std::vector<std::string> skipped;  // a plot the sweep cannot have, and why
};

SweepPlots sweep_plots(const SweepResults& results, const PlotOptions& options);

// "png", "svg", "pdf".
std::string plot_extension(PlotFormat format);
// The `set terminal` and `set output` lines for an image at `path`.
std::string plot_header(const PlotOptions& options, const std::string& path);
// A number for a gnuplot script or data file ("%.9g").
std::string plot_number(double value);
// A number for a reader, in a label or title: four significant digits, as
// `sweep show` prints means.
std::string label_number(double value);

}  // namespace energy::cli
