#include "energy/integrate.h"

#include <algorithm>
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
  return s;
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
