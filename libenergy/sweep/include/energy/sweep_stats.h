// Statistics of a sweep's repeats: Student t quantiles (exact, for any
// degrees of freedom, so n = 3 gets t(0.975, 2) = 4.303 and not the normal
// 1.96), the mean and 95% confidence interval of a sample, the
// Welch-Satterthwaite interval of a difference of two means, and the
// "repeat until the CI half-width is under a target" decision.
//
// Units are the caller's. Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "energy/result.h"

namespace energy {

// The p-quantile (0.5 < p < 1) of Student's t distribution with `df` > 0
// degrees of freedom (need not be whole: Welch's df is not).
double student_t_quantile(double p, double df);

// P(T <= t) for Student's t with `df` > 0 degrees of freedom.
double student_t_cdf(double t, double df);

struct SampleSummary {
  size_t n = 0;
  double mean = 0.0;
  std::optional<double> stddev;     // sample standard deviation; absent for n = 1
  std::optional<double> ci95_half;  // t(0.975, n-1) * stddev / sqrt(n); absent for n = 1
  double low() const { return mean - ci95_half.value_or(0.0); }
  double high() const { return mean + ci95_half.value_or(0.0); }
};

// Errors: no values, or a value that is not finite.
Result<SampleSummary> summarize_sample(const std::vector<double>& values);

// a.mean - b.mean with its 95% CI half-width (Welch-Satterthwaite degrees of
// freedom); the half-width is absent unless both have n >= 2.
struct Difference {
  double mean = 0.0;
  std::optional<double> ci95_half;
  std::optional<double> df;
};
Difference welch_difference(const SampleSummary& a, const SampleSummary& b);

// True when the difference's 95% CI excludes 0.
bool significant(const Difference& d);

// "Repeat until the 95% CI half-width is under the target": true once n >= 2
// and ci95_half <= relative_target x |mean| (relative_target e.g. 0.01).
bool ci_target_met(const SampleSummary& s, double relative_target);

}  // namespace energy
