#include "energy/integrate.h"

#include <algorithm>
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

double fluctuation_bound(const std::vector<const PowerPoint*>& v, EnergyWindow w) {
  double sum_sq = 0;
  for (size_t i = 0; i + 1 < v.size(); ++i) {
    int64_t h = overlap(v[i]->t_ns, v[i + 1]->t_ns, w);
    if (h <= 0) continue;
    double worst_uj = static_cast<double>(h) / 1e9 * spread_around(v, i, w.end_ns) / 2.0;
    sum_sq += worst_uj * worst_uj;
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

void add_error_bound(EnergyStats& s, const std::vector<PowerPoint>& points, EnergyWindow w) {
  auto v = valid_points(points);
  s.fluctuation_bound_uj = fluctuation_bound(v, w);
  s.resolution_bound_uj = reading_step_uw(v, w) / 2.0 * s.integrated_ns / 1e9;
}

}  // namespace

EnergyStats integrate_power(const std::vector<PowerPoint>& points, EnergyWindow w, int64_t gap_threshold_ns) {
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
  add_error_bound(s, points, w);
  return s;
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
