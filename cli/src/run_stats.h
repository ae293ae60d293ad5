// Statistics over the repeats of `energyctl run --repeat K`: mean, sample
// standard deviation and a two-sided 95% confidence interval of the mean
// (Student t with n-1 degrees of freedom).
//
// Units are the caller's (J, s, W, J/item); the functions are pure.
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

// The two-sided 95% critical value of Student's t distribution, t(0.975, df),
// exact to the 3 decimals of the usual tables; df must be >= 1.
double student_t95(size_t degrees_of_freedom);

// Summary of `values`; an empty list or a non-finite value is an error.
Result<Summary> summarize(const std::vector<double>& values);

}  // namespace energy::cli
