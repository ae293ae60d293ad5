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
// Error bound (QUALITY.md M1): how far energy_uj can be from the energy the
// readings stand for (the monitor's own scale: its calibration is not part of
// it, see energy/uncertainty.h), judged from the readings themselves. This is
// the *precision* of a figure: what matters when two runs on one board are
// compared. Parts:
//  * sampling: what the trapezoids miss between readings. Two models, by how
//    the readings were taken (Averaging):
//    - snapshots (k_ns 0): a stretch between two readings may hide anything
//      (a load step anywhere in it, ripple, bursts shorter than the period).
//      Its scale is the spread s of the readings around it: its two readings,
//      the valid one before and the valid one after (unless that is beyond
//      the window's end, so a run's bound never changes once it is stopped).
//      A stretch of length h can be off by up to h s / 2 (the worst place
//      for a step).
//    - running means (k_ns > 0, the monitor averages over about k_ns): the
//      readings are a smooth curve but for a kink at each load step, and
//      the averaging correction makes trapezoid + correction exact for it
//      but for the trapezoids' own error. Over a window that error
//      telescopes to an edge term, h^2 / 12 x the change of slope between
//      the window's edges (bounded from the readings' slopes there, added
//      linearly), plus, per kink, a zero-mean part that depends on where
//      the kink falls in its stretch: a standard deviation of kKinkSd x h
//      x the second differences it leaves in the readings (integrate.cpp
//      derives kKinkSd = 0.0457). The kinks' part is kFluctuationSigmas x
//      that, root-sum-square over the readings' second differences.
//      A stretch longer than twice k (a gap) is judged as snapshots. And the
//      averaging correction multiplies the power at each window edge by k:
//      an interpolated edge can be off the running mean's curve, and a
//      reading carries the chip's own noise (it converts the current during
//      one short window of each cycle): k x half the larger second
//      difference around each edge, the two edges root-sum-squared.
//    Stretches and kinks count as independent: the parts are
//    kFluctuationSigmas x the root-sum-square of theirs.
//  * resolution: a reading can be off by half a step of the sensor's
//    resolution, and the same way for a whole run (a signal that spans few
//    steps rounds the same way again and again), so this part adds up
//    linearly: u / 2 x integrated time, u being the smallest difference
//    between two distinct readings the window uses. When they are all equal
//    (a steady load read through a monitor's averaging, which removes the
//    noise that otherwise shows the step), u is the coarsest current step of
//    the reference boards' INA3221s (40 uV over 1 mOhm: kCoarsestCurrentStepMa)
//    at the highest voltage read; 0 only if no voltage is known either.
// Assumption: the load does not vary in lock-step with the sampling. A load
// periodic at (nearly) a multiple of the sampling rate shows the same phase
// in every reading; no bound computed from the readings can see it (see
// docs/PERFORMANCE.md, "Accuracy"). Not covered here: the monitor's own
// calibration (gain and offset errors, shunt tolerance: energy/uncertainty.h),
// and a change of power within the sensor's conversion time before a
// window's edge.
//
// Product of averages (product_correction_uj): a monitor that averages bus
// voltage and current separately reports avg(V) x avg(I), not avg(V x I).
// When V and I change together the readings' power lags less than a running
// mean of power would, and the averaging correction alone misses
// k^2 x integral of V'(t) I'(t) dt (per joint step of dV and dI: dV dI k / 2,
// 41 J for 5 V x 1 A -> 19 V x 8 A and back through the Orin Nano's 430 ms
// averaging). product_correction_uj estimates that term from the readings'
// voltage and current; its residual is bounded per stretch (integrate.cpp).
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
// Share of each stretch's product-of-averages term that may be wrong beyond
// what the unknown place of a joint step inside a stretch explains
// (integrate.cpp; tests/libenergy/integrate_test.cpp).
constexpr double kProductResidual = 0.1;

// How the readings were taken: the monitor's averaging time constant (its
// running mean's lag, StoredRail::filter_ns); 0 for snapshot readings.
struct Averaging {
  int64_t k_ns = 0;
};

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
  // |energy_uj - the readings' energy| <= the sum of these (the precision; see
  // the error bound above). fluctuation_bound_uj is the sampling part.
  double fluctuation_bound_uj = 0;
  double resolution_bound_uj = 0;
  // The averaging correction included in energy_uj (averaging_correction.h); the bound
  // part for edges whose reading was unknown there.
  double filter_correction_uj = 0;
  double filter_bound_uj = 0;
  // The product-of-averages term included in energy_uj (product_correction), its bound.
  double product_correction_uj = 0;
  double product_bound_uj = 0;
  double raw_error_bound_uj() const {
    return fluctuation_bound_uj + resolution_bound_uj + filter_bound_uj + product_bound_uj;
  }
};

// `points` must be sorted by time and may extend beyond the window (one
// reading on each side lets the edges be interpolated). Stretches between
// valid readings longer than `gap_threshold_ns` count toward gap_ns.
EnergyStats integrate_power(const std::vector<PowerPoint>& points, EnergyWindow window, int64_t gap_threshold_ns,
                            Averaging averaging);
// Snapshot readings (Averaging{0}).
EnergyStats integrate_power(const std::vector<PowerPoint>& points, EnergyWindow window, int64_t gap_threshold_ns);

// The product-of-averages term (see above) of the stretches inside the
// window whose two readings are valid, know their voltage and are no further
// apart than gap_threshold_ns, for a monitor averaging over k_ns.
struct ProductTerm {
  double energy_uj = 0;  // to add to energy_uj
  double bound_uj = 0;   // |its error| <= this
};
ProductTerm product_correction(const std::vector<PowerPoint>& points, EnergyWindow window, int64_t gap_threshold_ns,
                               Averaging averaging);

// The valid readings interpolated at t; nullopt unless a valid reading lies
// on each side of t (or at t).
std::optional<double> power_at(const std::vector<PowerPoint>& points, int64_t t_ns);

// Element-wise sum of several rails' series taken at the same instants (one
// sampler sweep stamps every rail with one time). A point is valid only if
// every summed rail is valid there.
std::vector<PowerPoint> sum_series(const std::vector<std::vector<PowerPoint>>& series);

}  // namespace energy
