// `energyctl sweep --search`: finds the minimum-energy clock point with far
// fewer runs than the full grid.
//
// Assumption: energy per item is close to unimodal along each clock axis
// (falls while the work speeds up faster than power rises, then rises), so
// a line search on table positions brackets the minimum. The search:
//  1. starts at the middle of every axis;
//  2. coordinate search: for each axis in turn, a golden-section search on
//     table positions with the other axes fixed, until a full cycle over the
//     axes moves nothing (at most max_cycles);
//  3. two points are compared by the Welch CI of their difference after
//     `repeats` runs each; while the CI contains 0, both get more runs, up to
//     max_repeats; still undecided, they count as equal and the bracket keeps
//     the span between them (right for any unimodal function);
//  4. checks unimodality: every neighbour of the result (+-1 position on any
//     set of axes, diagonals included) is measured; one significantly better
//     contradicts the assumption, so the search moves there and runs the
//     coordinate search again (a "fallback"; at most max_fallbacks).
// Measurements are cached per point: a point is never run again to be
// compared anew, only run more often.
//
// The caller supplies measure(point) -> RunSample: real runs from the CLI, a
// model in the tests. Thread-safety: search_minimum calls measure from the
// calling thread only.
#pragma once

#include <functional>
#include <vector>

#include "energy/result.h"
#include "energy/sweep_results.h"

namespace energy {

// A position on each clock axis (indices into ClockAxis::hz).
using GridIndex = std::vector<size_t>;
using MeasureFn = std::function<Result<RunSample>(const GridIndex& point)>;

struct SearchOptions {
  std::vector<size_t> axis_sizes;  // positions per clock axis, each >= 1
  int repeats = 3;                 // runs per point before any comparison, >= 2
  int max_repeats = 6;             // runs per point at most, >= repeats
  int max_cycles = 4;              // coordinate cycles per search
  int max_fallbacks = 3;           // restarts after a contradicting neighbour
  size_t max_runs = 0;             // 0: no limit; else stop and report the best so far
  EnergyKind kind = EnergyKind::kTotal;
};

struct SearchResult {
  GridIndex best;
  PointStats best_stats;
  size_t runs = 0;       // counted runs made
  size_t points = 0;     // distinct points measured
  size_t grid_runs = 0;  // what the full grid would cost at `repeats` per point
  int fallbacks = 0;     // neighbour checks that contradicted unimodality
  bool budget_exhausted = false;
};

// Errors: bad options, or the first error measure() returned (the search
// stops there).
Result<SearchResult> search_minimum(const SearchOptions& options, const MeasureFn& measure);

}  // namespace energy
