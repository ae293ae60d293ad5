// Energy integration: a pure function over one rail's timestamped readings.
//
// Method: trapezoids between consecutive valid readings; at a window edge
// that falls between two readings, the power there is linearly interpolated,
// so a window is integrated exactly over [begin, end] whatever the sampling
// phase. Failed readings are never zeros: the interval around them is
// bridged by the trapezoid of its valid neighbours and reported as a gap.
// Parts of the window not bracketed by valid readings are not integrated and
// show as missing coverage.
//
// Error bound (QUALITY.md M1): how far energy_uj can be from the true energy
// of the rail over the window, judged from the readings themselves. Two parts:
//  * fluctuation: a stretch between two readings may hide what the readings
//    do not show (a load step anywhere in it, ripple, bursts shorter than the
//    period). Its scale is the spread s of the readings around it: its two
//    readings, the valid one before and the valid one after (unless that is
//    beyond the window's end, so a run's bound never changes once it is
//    stopped). A stretch of length h can be off by up to h s / 2 (the worst
//    place for a step); stretches count as independent, so this part is
//    kFluctuationSigmas x sqrt(sum over stretches of (h s / 2)^2).
//  * resolution: a reading can be off by half a step of the sensor's
//    resolution, and the same way for a whole run, so this part adds up
//    linearly: u / 2 x integrated time, u being the smallest difference
//    between two distinct readings the window uses. When they are all equal
//    (a steady load read through a monitor's averaging, which removes the
//    noise that otherwise shows the step), u is the coarsest current step of
//    the reference boards' INA3221s (40 uV over 1 mOhm: kCoarsestCurrentStepMa)
//    at the highest voltage read; 0 only if no voltage is known either.
// Assumption: the load does not vary in lock-step with the sampling. A load
// periodic at (nearly) a multiple of the sampling rate shows the same phase
// in every reading; no bound computed from the readings can see it (see
// docs/PERFORMANCE.md, "Accuracy"). Not covered either: the monitor's own
// calibration (gain and offset errors), and a change of power within the
// sensor's conversion time before a window's edge.
//
// Units: ns for time, uW for power, uJ for energy (double, for sub-uJ
// precision across long sums). Thread-safety: pure, reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace energy {

struct PowerPoint {
  int64_t t_ns = 0;
  int64_t power_uw = 0;
  bool valid = true;       // false: the read failed at t_ns (a gap marker)
  int32_t voltage_mv = 0;  // the rail's bus voltage with the reading; 0: unknown
};

struct EnergyWindow {
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
};

// Fluctuation parts are this many times the root-sum-square of the
// stretches' worst cases (validated against the simulator's ground truth by
// bench/accuracy_bench, docs/PERFORMANCE.md).
constexpr double kFluctuationSigmas = 3.0;
constexpr int64_t kCoarsestCurrentStepMa = 40;

struct EnergyStats {
  double energy_uj = 0;        // integral over the covered part of the window
  int64_t window_ns = 0;       // end - begin
  int64_t covered_ns = 0;      // between valid readings no further apart than the gap threshold
  int64_t largest_gap_ns = 0;  // longest stretch of the window without a valid reading
  int64_t gap_ns = 0;          // total time in stretches longer than the gap threshold
  int64_t samples = 0;         // valid readings inside the window
  int64_t failed_samples = 0;  // failed readings inside the window
  int64_t peak_power_uw = 0;   // highest reading (or edge value) in the window
  int64_t min_power_uw = 0;    // lowest reading (or edge value) in the window
  bool has_data = false;       // false: nothing could be integrated

  double coverage() const {
    return window_ns > 0 ? static_cast<double>(covered_ns) / static_cast<double>(window_ns) : (has_data ? 1.0 : 0.0);
  }
  // uJ per second is uW.
  double integrated_ns = 0;  // covered plus bridged gaps: the time energy_uj spans
  double average_power_uw() const { return integrated_ns > 0 ? energy_uj * 1e9 / integrated_ns : 0.0; }
  // |energy_uj - true energy| <= the sum of these (see the error bound above).
  double fluctuation_bound_uj = 0;
  double resolution_bound_uj = 0;
  // The averaging correction included in energy_uj (averaging_correction.h); the bound
  // part for edges whose reading was unknown there.
  double filter_correction_uj = 0;
  double filter_bound_uj = 0;
  double raw_error_bound_uj() const { return fluctuation_bound_uj + resolution_bound_uj + filter_bound_uj; }
};

// `points` must be sorted by time and may extend beyond the window (one
// reading on each side lets the edges be interpolated). Stretches between
// valid readings longer than `gap_threshold_ns` count toward gap_ns.
EnergyStats integrate_power(const std::vector<PowerPoint>& points, EnergyWindow window, int64_t gap_threshold_ns);

// The valid readings interpolated at t; nullopt unless a valid reading lies
// on each side of t (or at t).
std::optional<double> power_at(const std::vector<PowerPoint>& points, int64_t t_ns);

// Element-wise sum of several rails' series taken at the same instants (one
// sampler sweep stamps every rail with one time). A point is valid only if
// every summed rail is valid there.
std::vector<PowerPoint> sum_series(const std::vector<std::vector<PowerPoint>>& series);

}  // namespace energy
