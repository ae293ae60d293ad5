// Statistics over the repeats of `energyctl run --repeat K` and the groups of
// `energyctl compare --by`: mean, sample standard deviation and a two-sided
// 95% confidence interval of the mean (Student t with n-1 degrees of
// freedom), and the difference of two means with its 95% interval (Welch:
// unequal variances, Welch-Satterthwaite degrees of freedom).
//
// The statistics themselves are libenergy's (energy/sweep_stats.h: exact
// Student t quantiles for any degrees of freedom), so that a sweep, `run
// --repeat` and `compare --by` give the same interval for the same values;
// this adds the extremes `run` prints. Units are the caller's (J, s, W,
// J/item).
// Thread-safety: pure functions on values.
#pragma once

#include <optional>
#include <vector>

#include "energy/result.h"

namespace energy::cli {

struct Summary {
  size_t n = 0;
  double mean = 0.0;
  double min = 0.0;
  double max = 0.0;
  // Absent for a single value: one run says nothing about spread.
  std::optional<double> stddev;     // sample standard deviation (n-1)
  std::optional<double> ci95_half;  // t(0.975, n-1) * stddev / sqrt(n)
  double ci95_low() const { return mean - ci95_half.value_or(0.0); }
  double ci95_high() const { return mean + ci95_half.value_or(0.0); }
};

// Summary of `values`; an empty list or a non-finite value is an error.
Result<Summary> summarize(const std::vector<double>& values);

// mean(other) - mean(reference) and its 95% interval (Welch).
struct Difference {
  double diff = 0.0;
  std::optional<double> ci95_half;  // absent when either side has one value (no spread known)
  std::optional<double> df;         // Welch-Satterthwaite; absent with ci95_half or when both spreads are 0
};
Difference welch_difference(const Summary& reference, const Summary& other);

}  // namespace energy::cli
