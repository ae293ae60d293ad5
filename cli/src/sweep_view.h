// `energyctl sweep show ID` and the results `energyctl sweep` prints at its
// end: a stored sweep's results (sweep_data.h) as text. Per point the mean
// energy, net energy and time per item and the power, with 95% CIs; the
// minimum-energy point and the points the data cannot tell from it, the
// fastest point, the energy-time Pareto front, the energy-delay-product
// minimum, the saving against DVFS with the CI of the difference and the
// time it costs; and a CPU x GPU table of energy per item that reads as a
// heatmap (coloured only on a terminal). An interrupted or unfinished
// sweep says so first.
//
// Thread-safety: render_sweep_results is pure; print_sweep_results does
// one request and prints on stdout/stderr.
#pragma once

#include <cstdint>
#include <string>

#include "command.h"
#include "sweep_data.h"

namespace energy::cli {

enum class Colour { kOff, kOn };

std::string render_sweep_results(const SweepResults& results, Colour colour);

// Fetches sweep `sweep_id` (sweep.show) and prints its results: as text
// (coloured when stdout is a terminal), or with ctx.json the results as
// JSON (sweep_results_json, sweep_export.h). Returns the exit code.
int print_sweep_results(const Context& ctx, int64_t sweep_id);

}  // namespace energy::cli
