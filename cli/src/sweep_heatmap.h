// The CPU x GPU table of a sweep's results (sweep_data.h): mean energy per
// item with the CPU frequencies down and the GPU frequencies across (the
// first two clock axes when the sweep lacks one of them), one table per
// value of the other axes (EMC, parameters), the lowest cell marked `*`
// and the DVFS reference of the same parameters under it. With colour, each
// cell's background runs from green (least energy in the table) to red
// (most), so the table reads as a heatmap; without it, the same text plain.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sweep_data.h"

namespace energy::cli {

// The two clock axes of the tables (the plots of sweep_plot.h use them too):
// cpu down and gpu across when the sweep has them, else the first two.
struct HeatmapAxes {
  size_t row = 0;  // domain indices in the layout
  size_t col = 1;
};
// Call only with a layout of at least two clock axes.
HeatmapAxes heatmap_axes(const SweepLayout& layout);

// One table: the row and column frequencies (Hz) the layout plans, the
// counted points' mean energy per item by (row Hz, column Hz), and the
// parameter values its points share.
struct HeatmapGrid {
  std::set<int64_t> rows, cols;
  std::map<std::pair<int64_t, int64_t>, double> cells;
  std::vector<std::string> params;
};
// The tables by the other axes' values ("emc 2133 MHz, batch=8"; "" when
// there are none). Needs results.layout with at least two clock axes.
std::map<std::string, HeatmapGrid> heatmap_grids(const SweepResults& results, HeatmapAxes axes);

enum class Colour;

// Empty when the sweep has fewer than two clock axes.
std::string render_heatmaps(const SweepResults& results, Colour colour);

}  // namespace energy::cli
