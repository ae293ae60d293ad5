#include "energy/integrate.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>

namespace energy {
namespace {

double lerp_power(const PowerPoint& a, const PowerPoint& b, int64_t t) {
  if (b.t_ns == a.t_ns) return static_cast<double>(a.power_uw);
  double f = static_cast<double>(t - a.t_ns) / static_cast<double>(b.t_ns - a.t_ns);
  return static_cast<double>(a.power_uw) + f * static_cast<double>(b.power_uw - a.power_uw);
}

void note_power(EnergyStats& s, double p_uw) {
  auto p = static_cast<int64_t>(p_uw);
  if (!s.has_data || p > s.peak_power_uw) s.peak_power_uw = p;
  if (!s.has_data || p < s.min_power_uw) s.min_power_uw = p;
  s.has_data = true;
}

// Adds the part of [a, b] that lies inside the window. A segment longer than
// the gap threshold is still integrated (bridged) but is a gap, not coverage.
void add_segment(EnergyStats& s, const PowerPoint& a, const PowerPoint& b, EnergyWindow w, int64_t threshold) {
  int64_t lo = std::max(a.t_ns, w.begin_ns);
  int64_t hi = std::min(b.t_ns, w.end_ns);
  if (hi < lo) return;
  double p_lo = lerp_power(a, b, lo);
  double p_hi = lerp_power(a, b, hi);
  s.energy_uj += (p_lo + p_hi) / 2.0 * static_cast<double>(hi - lo) / 1e9;
  s.integrated_ns += static_cast<double>(hi - lo);
  if (b.t_ns - a.t_ns <= threshold) s.covered_ns += hi - lo;
  note_power(s, p_lo);
  note_power(s, p_hi);
}

// Length of the part of [a, b] inside the window.
int64_t overlap(int64_t a, int64_t b, EnergyWindow w) {
  return std::max<int64_t>(0, std::min(b, w.end_ns) - std::max(a, w.begin_ns));
}

void count_points(EnergyStats& s, const std::vector<PowerPoint>& points, EnergyWindow w) {
  for (const auto& p : points) {
    if (p.t_ns < w.begin_ns || p.t_ns > w.end_ns) continue;
    if (p.valid) ++s.samples;
    if (!p.valid) ++s.failed_samples;
  }
}

void account_gap(EnergyStats& s, int64_t from, int64_t to, EnergyWindow w, int64_t threshold) {
  int64_t len = overlap(from, to, w);
  s.largest_gap_ns = std::max(s.largest_gap_ns, len);
  if (to - from > threshold) s.gap_ns += len;
}

// ---- error bound (integrate.h) ----------------------------------------------

std::vector<const PowerPoint*> valid_points(const std::vector<PowerPoint>& points) {
  std::vector<const PowerPoint*> v;
  for (const auto& p : points) {
    if (p.valid) v.push_back(&p);
  }
  return v;
}

// Spread of the readings around the stretch v[i] .. v[i + 1]: those two, the
// one before and the one after unless it lies beyond the window's end.
double spread_around(const std::vector<const PowerPoint*>& v, size_t i, int64_t end_ns) {
  int64_t lo = std::min(v[i]->power_uw, v[i + 1]->power_uw);
  int64_t hi = std::max(v[i]->power_uw, v[i + 1]->power_uw);
  auto widen = [&lo, &hi](const PowerPoint* p) {
    lo = std::min(lo, p->power_uw);
    hi = std::max(hi, p->power_uw);
  };
  if (i > 0) widen(v[i - 1]);
  if (i + 2 < v.size() && v[i + 2]->t_ns <= end_ns) widen(v[i + 2]);
  return static_cast<double>(hi - lo);
}

// The worst case of a stretch of snapshot readings: h s / 2.
double snapshot_part_uj(const std::vector<const PowerPoint*>& v, size_t i, EnergyWindow w, int64_t h) {
  return static_cast<double>(h) / 1e9 * spread_around(v, i, w.end_ns) / 2.0;
}

// The readings' second difference at v[j] (uW): the change of slope between
// the stretches on either side, over their mean length. nullopt without a
// valid reading on each side, or if the one after lies beyond `limit_ns`.
std::optional<double> second_difference(const std::vector<const PowerPoint*>& v, size_t j, int64_t limit_ns) {
  if (j == 0 || j + 1 >= v.size() || v[j + 1]->t_ns > limit_ns) return std::nullopt;
  auto h0 = static_cast<double>(v[j]->t_ns - v[j - 1]->t_ns);
  auto h1 = static_cast<double>(v[j + 1]->t_ns - v[j]->t_ns);
  if (h0 <= 0 || h1 <= 0) return std::nullopt;
  double s0 = static_cast<double>(v[j]->power_uw - v[j - 1]->power_uw) / h0;
  double s1 = static_cast<double>(v[j + 1]->power_uw - v[j]->power_uw) / h1;
  return std::abs(s1 - s0) * (h0 + h1) / 2.0;
}

// Running means (time constant k): between load steps the readings follow a
// smooth curve, and the trapezoids' errors over a window telescope
// (Euler-Maclaurin): -h^2/12 x (slope at the end - slope at the start), the
// edge term. A load step of size D puts a kink in the curve, a jump J = D / k
// of its slope, a fraction theta of a stretch after a reading; the
// trapezoids then miss J h^2 (theta (1 - theta) / 2 - 1/12) beyond the edge
// term: zero on average over theta, a standard deviation of J h^2 /
// sqrt(720) (0.0373 J h^2). The kink shows in the second differences at the
// stretch's two ends as J h (1 - theta) and J h theta, whose squares average
// 2/3 (J h)^2; so the kinks' part has a standard deviation of
// kKinkSd x h x sqrt(sum of squared second differences), kKinkSd =
// 0.0373 x sqrt(3/2). Curvature that is not a kink adds to the sum and
// only makes it larger. Kinks fall independently of the sampling (the
// assumption of integrate.h).
constexpr double kKinkSd = 0.0457;

struct SamplingParts {
  double kink_sq = 0;      // sum of (h x second difference)^2, uW s
  double snapshot_sq = 0;  // sum of squared worst cases of stretches the averaging cannot smooth
};

// Stretch i can be judged by its curvature: both readings close enough for the averaging to have smoothed.
bool smoothed(const std::vector<const PowerPoint*>& v, size_t i, Averaging averaging) {
  return v[i + 1]->t_ns - v[i]->t_ns <= 2 * averaging.k_ns;
}

SamplingParts averaged_parts(const std::vector<const PowerPoint*>& v, EnergyWindow w, Averaging averaging) {
  SamplingParts parts;
  for (size_t i = 0; i + 1 < v.size(); ++i) {
    int64_t h = overlap(v[i]->t_ns, v[i + 1]->t_ns, w);
    if (h <= 0) continue;
    if (!smoothed(v, i, averaging)) {
      double worst = snapshot_part_uj(v, i, w, h);
      parts.snapshot_sq += worst * worst;
      continue;
    }
    // The second difference at the stretch's start; the one at its end is the next stretch's start, or the
    // last reading's (not beyond the window's end, so a stopped run's bound does not change).
    // Without a reading before, the stretch's whole change stands in for the second difference.
    double step = static_cast<double>(std::abs(v[i + 1]->power_uw - v[i]->power_uw));
    double hd =
        static_cast<double>(v[i + 1]->t_ns - v[i]->t_ns) / 1e9 * second_difference(v, i, INT64_MAX).value_or(step);
    parts.kink_sq += hd * hd;
    bool last = i + 2 >= v.size() || overlap(v[i + 1]->t_ns, v[i + 2]->t_ns, w) <= 0;
    if (last) {
      double e =
          static_cast<double>(v[i + 1]->t_ns - v[i]->t_ns) / 1e9 * second_difference(v, i + 1, w.end_ns).value_or(step);
      parts.kink_sq += e * e;
    }
  }
  return parts;
}

// The largest |slope| (uW/s) of the stretch holding t and its neighbours
// (`after` of them after it: none at a window's end, so a stopped run's bound
// does not change).
double slope_near(const std::vector<const PowerPoint*>& v, int64_t t, size_t after) {
  if (v.size() < 2) return 0;
  size_t m = 0;
  while (m + 2 < v.size() && v[m + 1]->t_ns < t) ++m;
  double most = 0;
  for (size_t i = m > 0 ? m - 1 : 0; i <= m + after && i + 1 < v.size(); ++i) {
    double h = static_cast<double>(v[i + 1]->t_ns - v[i]->t_ns) / 1e9;
    if (h > 0) most = std::max(most, std::abs(static_cast<double>(v[i + 1]->power_uw - v[i]->power_uw)) / h);
  }
  return most;
}

// The Euler-Maclaurin edge term, at most: h^2 / 12 x (|slope| near the start + near the end).
double edge_term_uj(const std::vector<const PowerPoint*>& v, EnergyWindow w) {
  double h_max = 0;
  for (size_t i = 0; i + 1 < v.size(); ++i) {
    if (overlap(v[i]->t_ns, v[i + 1]->t_ns, w) > 0)
      h_max = std::max(h_max, static_cast<double>(v[i + 1]->t_ns - v[i]->t_ns) / 1e9);
  }
  return h_max * h_max / 12.0 * (slope_near(v, w.begin_ns, 1) + slope_near(v, w.end_ns, 0));
}

// The averaging correction multiplies the power at each window edge by k.
// An edge between two readings takes it by linear interpolation, and the
// running mean can bend away from the line by up to half the larger second
// difference at the stretch's ends (a kink: J h / 4 at most, while the larger
// second difference is at least J h / 2). An edge at a reading takes that
// reading, which is off the running mean of the load by the chip's own
// noise: it converts the current during one short window of each cycle, so
// what the load does between conversions reaches the register as noise,
// which the second difference at the reading (or, at a run's end, at the one
// before) shows too. Half the larger second difference around the edge,
// else half the spread around its stretch. The two edges count as
// independent.
double edge_value_error_uw(const std::vector<const PowerPoint*>& v, int64_t t, EnergyWindow w) {
  if (v.size() < 2) return 0;
  size_t m = 0;
  while (m + 2 < v.size() && v[m + 1]->t_ns <= t) ++m;
  double most = 0;
  bool known = false;
  for (size_t j = m > 0 ? m - 1 : 0; j <= m + 1; ++j) {
    if (auto d2 = second_difference(v, j, w.end_ns)) most = std::max(most, *d2), known = true;
  }
  return known ? most / 2.0 : spread_around(v, m, w.end_ns) / 2.0;
}

double edge_values_uj(const std::vector<const PowerPoint*>& v, EnergyWindow w, Averaging averaging) {
  double k_s = static_cast<double>(averaging.k_ns) / 1e9;
  return k_s * std::hypot(edge_value_error_uw(v, w.begin_ns, w), edge_value_error_uw(v, w.end_ns, w));
}

double fluctuation_bound(const std::vector<const PowerPoint*>& v, EnergyWindow w, Averaging averaging) {
  if (averaging.k_ns > 0) {
    SamplingParts p = averaged_parts(v, w, averaging);
    double kink_sd = kKinkSd * std::sqrt(p.kink_sq);
    return kFluctuationSigmas * std::sqrt(kink_sd * kink_sd + p.snapshot_sq) + edge_term_uj(v, w) +
           edge_values_uj(v, w, averaging);
  }
  double sum_sq = 0;
  for (size_t i = 0; i + 1 < v.size(); ++i) {
    int64_t h = overlap(v[i]->t_ns, v[i + 1]->t_ns, w);
    if (h <= 0) continue;
    double part_uj = snapshot_part_uj(v, i, w, h);
    sum_sq += part_uj * part_uj;
  }
  return kFluctuationSigmas * std::sqrt(sum_sq);
}

// The smallest difference between two distinct readings of the stretches
// that overlap the window: the sensor's resolution at that level, as far as
// the readings show it (0 when they are all equal).
double reading_step_uw(const std::vector<const PowerPoint*>& v, EnergyWindow w) {
  std::vector<int64_t> values;
  int64_t max_mv = 0;
  for (size_t i = 0; i + 1 < v.size(); ++i) {
    if (overlap(v[i]->t_ns, v[i + 1]->t_ns, w) <= 0) continue;
    values.push_back(v[i]->power_uw);
    values.push_back(v[i + 1]->power_uw);
    max_mv = std::max<int64_t>({max_mv, v[i]->voltage_mv, v[i + 1]->voltage_mv});
  }
  std::sort(values.begin(), values.end());
  int64_t step = 0;
  for (size_t i = 1; i < values.size(); ++i) {
    int64_t d = values[i] - values[i - 1];
    if (d > 0 && (step == 0 || d < step)) step = d;
  }
  if (step == 0) step = max_mv * kCoarsestCurrentStepMa;  // mV x mA = uW
  return static_cast<double>(step);
}

void add_error_bound(EnergyStats& s, const std::vector<PowerPoint>& points, EnergyWindow w, Averaging averaging) {
  auto v = valid_points(points);
  s.fluctuation_bound_uj = fluctuation_bound(v, w, averaging);
  s.resolution_bound_uj = reading_step_uw(v, w) / 2.0 * s.integrated_ns / 1e9;
}

}  // namespace

EnergyStats integrate_power(const std::vector<PowerPoint>& points, EnergyWindow w, int64_t gap_threshold_ns) {
  return integrate_power(points, w, gap_threshold_ns, Averaging{0});
}

EnergyStats integrate_power(const std::vector<PowerPoint>& points, EnergyWindow w, int64_t gap_threshold_ns,
                            Averaging averaging) {
  EnergyStats s;
  s.window_ns = std::max<int64_t>(0, w.end_ns - w.begin_ns);
  count_points(s, points, w);
  const PowerPoint* prev = nullptr;
  for (const auto& p : points) {
    if (!p.valid) continue;
    if (prev != nullptr) {
      add_segment(s, *prev, p, w, gap_threshold_ns);
      account_gap(s, prev->t_ns, p.t_ns, w, gap_threshold_ns);
    } else {
      account_gap(s, w.begin_ns, p.t_ns, w, -1);  // window starts before any reading
    }
    prev = &p;
  }
  int64_t tail_from = prev != nullptr ? prev->t_ns : w.begin_ns;
  account_gap(s, tail_from, w.end_ns, w, -1);  // window ends after the last reading
  add_error_bound(s, points, w, averaging);
  return s;
}

// Per stretch: k dV dI / (2 tanh(h / 2k) m(h / k)). For a joint step at a
// reading the running means' increments shrink by exp(-h/k) a stretch, and
// the sum of dV dI over the stretches after it is dV dI tanh(h / 2k) of the
// step's, while the energy missing is dV dI k / 2 (integrate.h). A step a
// fraction of a stretch before a reading leaves a smaller sum: m(x), the
// mean over where the step falls, is the share that remains on average
// (0.93 at x = 0.23, 0.80 at x = 1), and the estimate is divided by it. Where
// the step falls is unknown: the term is off by up to 1/m - 1 of itself one
// way (a step at a reading) and less the other (at most 1 - 0.57/0.75 up to
// x = 2); 0.1 more covers rounding and steps that are not sharp
// (kProductResidual). A stretch partly in the window counts in proportion.
double step_phase_mean(double x) {
  double t = std::tanh(x / 2.0);
  double b1 = (1.0 - std::exp(-x)) / x;
  double b2 = (1.0 - std::exp(-2.0 * x)) / (2.0 * x);
  return (1.0 - 2.0 * b1 + b2) / t + b2;
}

ProductTerm product_correction(const std::vector<PowerPoint>& points, EnergyWindow w, int64_t gap_threshold_ns,
                               Averaging averaging) {
  ProductTerm out;
  if (averaging.k_ns <= 0) return out;
  const double k_s = static_cast<double>(averaging.k_ns) / 1e9;
  const PowerPoint* prev = nullptr;
  for (const auto& p : points) {
    if (!p.valid || p.voltage_mv <= 0) continue;
    int64_t h = prev != nullptr ? p.t_ns - prev->t_ns : 0;
    int64_t inside = prev != nullptr ? overlap(prev->t_ns, p.t_ns, w) : 0;
    if (h > 0 && h <= gap_threshold_ns && inside > 0) {
      double dv_mv = static_cast<double>(p.voltage_mv - prev->voltage_mv);
      double di_ma = static_cast<double>(p.power_uw) / static_cast<double>(p.voltage_mv) -
                     static_cast<double>(prev->power_uw) / static_cast<double>(prev->voltage_mv);
      double h_s = static_cast<double>(h) / 1e9;
      double x = h_s / k_s, m = step_phase_mean(x);
      double term_uj =
          k_s * dv_mv * di_ma / (2.0 * std::tanh(x / 2.0) * m) * (static_cast<double>(inside) / static_cast<double>(h));
      out.energy_uj += term_uj;
      out.bound_uj += (1.0 / m - 1.0 + kProductResidual) * std::abs(term_uj);
    }
    prev = &p;
  }
  return out;
}

std::optional<double> power_at(const std::vector<PowerPoint>& points, int64_t t_ns) {
  const PowerPoint* before = nullptr;
  for (const auto& p : points) {
    if (!p.valid) continue;
    if (p.t_ns == t_ns) return static_cast<double>(p.power_uw);
    if (p.t_ns < t_ns) before = &p;
    if (p.t_ns > t_ns) return before != nullptr ? std::optional<double>(lerp_power(*before, p, t_ns)) : std::nullopt;
  }
  return std::nullopt;
}

std::vector<PowerPoint> sum_series(const std::vector<std::vector<PowerPoint>>& series) {
  std::map<int64_t, std::pair<int64_t, size_t>> by_time;  // t -> (sum, valid count)
  for (const auto& one : series) {
    for (const auto& p : one) {
      auto& slot = by_time[p.t_ns];
      if (p.valid) slot.first += p.power_uw;
      if (p.valid) ++slot.second;
    }
  }
  std::vector<PowerPoint> out;
  out.reserve(by_time.size());
  for (const auto& [t, slot] : by_time) out.push_back(PowerPoint{t, slot.first, slot.second == series.size()});
  return out;
}

}  // namespace energy
