// A sweep's plan: its points (the grid of its axes, plus a DVFS reference
// per parameter combination when asked) and the order its runs are made in.
//
// Order: round r (r = 0 .. repeats-1) visits every point once, in a fresh
// shuffle drawn from (seed, r), so slow drift (the board warming, a
// neighbour's load) spreads over every axis instead of lining up with one.
// The shuffle uses std::mt19937_64's outputs (fixed by the C++ standard) and
// its own Fisher-Yates with unbiased bounded draws, never std::shuffle or a
// std distribution (both implementation-defined), so a stored seed gives the
// same order on every build and architecture. Warm-up runs (not counted) come
// first, on the first points of round 0's order; a resumed sweep does its
// warm-ups again, because the board has cooled in between.
//
// Thread-safety: pure functions on values.
#pragma once

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "energy/result.h"
#include "energy/sweep_axis.h"
#include "energy/sweep_param.h"

namespace energy {

struct SweepAxes {
  std::vector<ClockAxis> clocks;
  std::vector<ParamAxis> params;
};

// One point: a position on each clock axis (empty for a DVFS point, which
// leaves the default governors in charge) and on each parameter axis.
struct SweepPoint {
  std::vector<size_t> clock;  // parallel to SweepAxes::clocks; empty when dvfs
  std::vector<size_t> param;  // parallel to SweepAxes::params
  bool dvfs = false;
};

enum class DvfsReference { kNone, kPerParamValue };

struct PlanOptions {
  int repeats = 3;    // counted runs per point, >= 1
  int warmups = 0;    // uncounted runs at the start, >= 0
  uint64_t seed = 0;  // stored with the sweep; reproduces the order
  DvfsReference dvfs = DvfsReference::kNone;
};

// Every grid point (cartesian product, the last axis varying fastest, clock
// axes before parameter axes), then the DVFS points. Errors: no axis at all,
// an empty axis, or more than kMaxPoints points.
inline constexpr size_t kMaxPoints = 100000;
Result<std::vector<SweepPoint>> plan_points(const SweepAxes& axes, DvfsReference dvfs);

struct ScheduledRun {
  size_t point = 0;  // index into the points
  int repeat = 0;    // 0-based round; -1 for a warm-up
  bool warmup() const { return repeat < 0; }
};

// Round `round`'s visiting order of `point_count` points.
std::vector<size_t> round_order(uint64_t seed, int round, size_t point_count);

// The whole schedule: warm-ups, then repeats rounds. Errors: repeats < 1,
// warmups < 0, no points.
Result<std::vector<ScheduledRun>> plan_schedule(size_t point_count, const PlanOptions& options);

// The schedule's counted runs not yet in `finished` ((point, repeat) pairs),
// in the original order, after the warm-ups.
using FinishedRuns = std::set<std::pair<size_t, int>>;
Result<std::vector<ScheduledRun>> remaining_schedule(size_t point_count, const PlanOptions& options,
                                                     const FinishedRuns& finished);

// The parameter values of `point` (for substitute_params and param_environment).
std::vector<ParamValue> point_params(const SweepAxes& axes, const SweepPoint& point);

}  // namespace energy
