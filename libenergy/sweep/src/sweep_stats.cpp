#include "energy/sweep_stats.h"

#include <cmath>

namespace energy {
namespace {

constexpr double kTiny = 1e-300;
constexpr double kEpsilon = 1e-15;
constexpr int kMaxTerms = 500;

// The j-th partial numerator (j >= 1) of the continued fraction of the
// regularised incomplete beta function.
double beta_cf_term(int j, double a, double b, double x) {
  const int m = j / 2;
  if (j % 2 == 0) return m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
  return -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
}

// 1 / (1 + d1 / (1 + d2 / (1 + ...))), by the modified Lentz method: the
// fraction b0 + a1 / (b1 + a2 / (b2 + ...)) with b0 = 0, a1 = 1, b_j = 1 and
// a_{j+1} = d_j.
double beta_continued_fraction(double a, double b, double x) {
  double f = kTiny;
  double c = f;
  double d = 0.0;
  for (int j = 1; j <= kMaxTerms; ++j) {
    const double num = j == 1 ? 1.0 : beta_cf_term(j - 1, a, b, x);
    d = 1.0 + num * d;
    d = 1.0 / (std::fabs(d) < kTiny ? kTiny : d);
    c = 1.0 + num / c;
    c = std::fabs(c) < kTiny ? kTiny : c;
    f *= c * d;
    if (std::fabs(c * d - 1.0) < kEpsilon) break;
  }
  return f;
}

// I_x(a, b), the regularised incomplete beta function, 0 <= x <= 1.
double incomplete_beta(double a, double b, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  // The fraction converges fast only below its mean; above it, use symmetry.
  if (x > (a + 1.0) / (a + b + 2.0)) return 1.0 - incomplete_beta(b, a, 1.0 - x);
  return std::exp(log_front) / a * beta_continued_fraction(a, b, x);
}

}  // namespace

double student_t_cdf(double t, double df) {
  const double tail = 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
  return t >= 0 ? 1.0 - tail : tail;
}

double student_t_quantile(double p, double df) {
  double lo = 0.0;
  double hi = 1.0;
  while (student_t_cdf(hi, df) < p && hi < 1e12) hi *= 2.0;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

Result<SampleSummary> summarize_sample(const std::vector<double>& values) {
  if (values.empty()) return make_error(ErrorCode::kInvalid, "no values to summarise");
  double sum = 0.0;
  for (double v : values) {
    if (!std::isfinite(v)) return make_error(ErrorCode::kInvalid, "a value to summarise is not finite");
    sum += v;
  }
  SampleSummary s;
  s.n = values.size();
  s.mean = sum / static_cast<double>(s.n);
  if (s.n < 2) return s;
  double squares = 0.0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  s.stddev = std::sqrt(squares / static_cast<double>(s.n - 1));
  s.ci95_half =
      student_t_quantile(0.975, static_cast<double>(s.n - 1)) * *s.stddev / std::sqrt(static_cast<double>(s.n));
  return s;
}

Difference welch_difference(const SampleSummary& a, const SampleSummary& b) {
  Difference d;
  d.mean = a.mean - b.mean;
  if (!a.stddev || !b.stddev) return d;
  const double va = *a.stddev * *a.stddev / static_cast<double>(a.n);
  const double vb = *b.stddev * *b.stddev / static_cast<double>(b.n);
  const double se = std::sqrt(va + vb);
  if (se == 0.0) {
    d.ci95_half = 0.0;
    return d;
  }
  d.df = (va + vb) * (va + vb) / (va * va / static_cast<double>(a.n - 1) + vb * vb / static_cast<double>(b.n - 1));
  d.ci95_half = student_t_quantile(0.975, *d.df) * se;
  return d;
}

bool significant(const Difference& d) { return d.ci95_half && std::fabs(d.mean) > *d.ci95_half; }

bool ci_target_met(const SampleSummary& s, double relative_target) {
  return s.n >= 2 && s.ci95_half && *s.ci95_half <= relative_target * std::fabs(s.mean);
}

}  // namespace energy
