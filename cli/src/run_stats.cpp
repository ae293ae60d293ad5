#include "run_stats.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace energy::cli {
namespace {

// t(0.975, df) for df = 1..30 (standard tables).
constexpr double kT95[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                           2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                           2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};

// Beyond the table t is close to linear in 1/df; anchor points from the same tables.
struct Anchor {
  double df;
  double t;
};
constexpr Anchor kTail[] = {{30, 2.042}, {40, 2.021}, {60, 2.000}, {120, 1.980}, {INFINITY, 1.960}};

double interpolate_tail(double df) {
  for (size_t i = 1; i < std::size(kTail); ++i) {
    if (df > kTail[i].df) continue;
    double x0 = 1.0 / kTail[i - 1].df;
    double x1 = std::isinf(kTail[i].df) ? 0.0 : 1.0 / kTail[i].df;
    double w = (x0 - 1.0 / df) / (x0 - x1);
    return kTail[i - 1].t + w * (kTail[i].t - kTail[i - 1].t);
  }
  return kTail[std::size(kTail) - 1].t;
}

double sample_stddev(const std::vector<double>& v, double mean) {
  double sum_sq = 0.0;
  for (double x : v) sum_sq += (x - mean) * (x - mean);
  return std::sqrt(sum_sq / static_cast<double>(v.size() - 1));
}

}  // namespace

double student_t95(size_t df) {
  if (df == 0) return INFINITY;
  if (df <= std::size(kT95)) return kT95[df - 1];
  return interpolate_tail(static_cast<double>(df));
}

double student_t95_real(double df) {
  if (!(df >= 1.0)) return INFINITY;
  double lo = std::floor(df), hi = std::ceil(df);
  double t_lo = student_t95(static_cast<size_t>(lo)), t_hi = student_t95(static_cast<size_t>(hi));
  if (hi == lo) return t_lo;
  double w = (1.0 / lo - 1.0 / df) / (1.0 / lo - 1.0 / hi);
  return t_lo + w * (t_hi - t_lo);
}

Difference welch_difference(const Summary& reference, const Summary& other) {
  Difference d;
  d.diff = other.mean - reference.mean;
  if (!reference.stddev || !other.stddev) return d;
  double v1 = *reference.stddev * *reference.stddev / static_cast<double>(reference.n);
  double v2 = *other.stddev * *other.stddev / static_cast<double>(other.n);
  double se2 = v1 + v2;
  if (se2 == 0.0) {
    d.ci95_half = 0.0;  // both groups without spread: the difference is what it is
    return d;
  }
  double df = se2 * se2 / (v1 * v1 / static_cast<double>(reference.n - 1) + v2 * v2 / static_cast<double>(other.n - 1));
  d.df = df;
  d.ci95_half = student_t95_real(df) * std::sqrt(se2);
  return d;
}

Result<Summary> summarize(const std::vector<double>& values) {
  if (values.empty()) return make_error(ErrorCode::kInvalid, "no values to summarize");
  for (double x : values) {
    if (!std::isfinite(x)) return make_error(ErrorCode::kInvalid, "cannot summarize a non-finite value");
  }
  Summary s;
  s.n = values.size();
  double sum = 0.0;
  for (double x : values) sum += x;
  s.mean = sum / static_cast<double>(s.n);
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  s.min = *lo;
  s.max = *hi;
  if (s.n < 2) return s;
  s.stddev = sample_stddev(values, s.mean);
  s.ci95_half = student_t95(s.n - 1) * *s.stddev / std::sqrt(static_cast<double>(s.n));
  return s;
}

}  // namespace energy::cli
