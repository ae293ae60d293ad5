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

#include <string>

#include "sweep_data.h"

namespace energy::cli {

enum class Colour;

// Empty when the sweep has fewer than two clock axes.
std::string render_heatmaps(const SweepResults& results, Colour colour);

}  // namespace energy::cli
