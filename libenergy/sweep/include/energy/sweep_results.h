// What a sweep's runs say: per point the mean and 95% CI of energy per item,
// net energy per item, time per item and power; the minimum-energy point and
// the points statistically tied with it; the fastest point; the energy-time
// Pareto front; the energy-delay-product minimum; and the saving against
// the DVFS reference with the CI of the difference and its cost in time.
//
// Units: J per item, s per item, W. Net energy is the energy above the idle
// baseline (it may be absent: then the net figures are absent, never 0).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "energy/result.h"
#include "energy/sweep_stats.h"

namespace energy {

// One counted run's figures, per item.
struct RunSample {
  double energy_per_item_j = 0.0;
  std::optional<double> net_energy_per_item_j;
  double time_per_item_s = 0.0;
  double power_w = 0.0;
};

// A run's sample from its totals. Errors: items < 1, energy or duration not
// finite or not above 0, net energy not finite.
Result<RunSample> make_run_sample(double energy_j, std::optional<double> net_energy_j, double duration_s,
                                  int64_t items);

struct PointStats {
  SampleSummary energy;              // J per item
  std::optional<SampleSummary> net;  // J per item; absent unless every run has it
  SampleSummary time;                // s per item
  SampleSummary power;               // W
};

// Errors: no samples.
Result<PointStats> point_stats(const std::vector<RunSample>& samples);

enum class EnergyKind { kTotal, kNet };

// The lowest mean energy per item, and every point whose 95% CI overlaps the
// minimum's (itself included): the data cannot tell them apart.
struct MinimumSet {
  size_t best = 0;
  std::vector<size_t> tied;  // ascending point indices
};
// Errors: no points, or kNet while some point has no net figure.
Result<MinimumSet> minimum_energy(const std::vector<PointStats>& points, EnergyKind kind);

// The point with the lowest mean time per item. Errors: no points.
Result<size_t> fastest_point(const std::vector<PointStats>& points);

// The points no other point beats in both mean energy and mean time per item
// (no worse in both, better in one), fastest first.
std::vector<size_t> pareto_front(const std::vector<PointStats>& points);

// The lowest mean energy x mean time per item (J s per item^2). Errors: no points.
Result<size_t> edp_minimum(const std::vector<PointStats>& points);

// The point against DVFS: saving = DVFS energy - point energy (> 0: the
// point uses less), with the Welch CI of the difference; the time it costs
// = point time - DVFS time (> 0: the point is slower). Relative figures are
// fractions of DVFS's mean; the relative CI treats DVFS's mean as exact.
struct Saving {
  Difference energy_j;    // J per item
  double relative = 0.0;  // energy_j.mean / DVFS mean
  std::optional<double> relative_ci95_half;
  Difference time_s;  // s per item
  double time_relative = 0.0;
};
Saving saving_against(const PointStats& point, const PointStats& dvfs);

}  // namespace energy
