#include "energy/sweep_results.h"

#include <algorithm>
#include <cmath>

namespace energy {
namespace {

const SampleSummary& energy_of(const PointStats& p, EnergyKind kind) {
  return kind == EnergyKind::kNet ? *p.net : p.energy;
}

bool overlaps(const SampleSummary& a, const SampleSummary& b) { return a.low() <= b.high() && b.low() <= a.high(); }

Result<SampleSummary> summary_of(const std::vector<RunSample>& samples, double (*pick)(const RunSample&)) {
  std::vector<double> v;
  v.reserve(samples.size());
  for (const RunSample& s : samples) v.push_back(pick(s));
  return summarize_sample(v);
}

std::optional<SampleSummary> net_summary(const std::vector<RunSample>& samples) {
  std::vector<double> v;
  for (const RunSample& s : samples) {
    if (!s.net_energy_per_item_j) return std::nullopt;
    v.push_back(*s.net_energy_per_item_j);
  }
  auto r = summarize_sample(v);
  return r ? std::optional<SampleSummary>(*r) : std::nullopt;
}

// The index minimising key(point); points must not be empty.
template <typename Key>
size_t argmin(const std::vector<PointStats>& points, Key key) {
  size_t best = 0;
  for (size_t i = 1; i < points.size(); ++i) {
    if (key(points[i]) < key(points[best])) best = i;
  }
  return best;
}

bool dominates(const PointStats& a, const PointStats& b) {
  const bool no_worse = a.energy.mean <= b.energy.mean && a.time.mean <= b.time.mean;
  return no_worse && (a.energy.mean < b.energy.mean || a.time.mean < b.time.mean);
}

Error no_points() { return make_error(ErrorCode::kInvalid, "the sweep has no measured points"); }

}  // namespace

Result<RunSample> make_run_sample(double energy_j, std::optional<double> net_energy_j, double duration_s,
                                  int64_t items) {
  if (items < 1)
    return make_error(ErrorCode::kInvalid, "a run's item count must be at least 1, got " + std::to_string(items));
  if (!std::isfinite(energy_j) || energy_j <= 0)
    return make_error(ErrorCode::kInvalid, "a run's energy must be above 0 J");
  if (!std::isfinite(duration_s) || duration_s <= 0)
    return make_error(ErrorCode::kInvalid, "a run's duration must be above 0 s");
  if (net_energy_j && !std::isfinite(*net_energy_j))
    return make_error(ErrorCode::kInvalid, "a run's net energy is not finite");
  const auto n = static_cast<double>(items);
  RunSample s{energy_j / n, std::nullopt, duration_s / n, energy_j / duration_s};
  if (net_energy_j) s.net_energy_per_item_j = *net_energy_j / n;
  return s;
}

Result<PointStats> point_stats(const std::vector<RunSample>& samples) {
  auto energy = summary_of(samples, [](const RunSample& s) { return s.energy_per_item_j; });
  if (!energy) return energy.take_error();
  auto time = summary_of(samples, [](const RunSample& s) { return s.time_per_item_s; });
  if (!time) return time.take_error();
  auto power = summary_of(samples, [](const RunSample& s) { return s.power_w; });
  if (!power) return power.take_error();
  return PointStats{*energy, net_summary(samples), *time, *power};
}

Result<MinimumSet> minimum_energy(const std::vector<PointStats>& points, EnergyKind kind) {
  if (points.empty()) return no_points();
  if (kind == EnergyKind::kNet &&
      std::any_of(points.begin(), points.end(), [](const PointStats& p) { return !p.net; })) {
    return make_error(ErrorCode::kInvalid, "net energy needs an idle baseline for every point");
  }
  MinimumSet m;
  m.best = argmin(points, [kind](const PointStats& p) { return energy_of(p, kind).mean; });
  for (size_t i = 0; i < points.size(); ++i) {
    if (overlaps(energy_of(points[i], kind), energy_of(points[m.best], kind))) m.tied.push_back(i);
  }
  return m;
}

Result<size_t> fastest_point(const std::vector<PointStats>& points) {
  if (points.empty()) return no_points();
  return argmin(points, [](const PointStats& p) { return p.time.mean; });
}

std::vector<size_t> pareto_front(const std::vector<PointStats>& points) {
  std::vector<size_t> front;
  for (size_t i = 0; i < points.size(); ++i) {
    auto beats = [&](const PointStats& other) { return dominates(other, points[i]); };
    if (std::none_of(points.begin(), points.end(), beats)) front.push_back(i);
  }
  std::sort(front.begin(), front.end(), [&](size_t a, size_t b) { return points[a].time.mean < points[b].time.mean; });
  return front;
}

Result<size_t> edp_minimum(const std::vector<PointStats>& points) {
  if (points.empty()) return no_points();
  return argmin(points, [](const PointStats& p) { return p.energy.mean * p.time.mean; });
}

Saving saving_against(const PointStats& point, const PointStats& dvfs) {
  Saving s;
  s.energy_j = welch_difference(dvfs.energy, point.energy);
  s.relative = s.energy_j.mean / dvfs.energy.mean;
  if (s.energy_j.ci95_half) s.relative_ci95_half = *s.energy_j.ci95_half / dvfs.energy.mean;
  s.time_s = welch_difference(point.time, dvfs.time);
  s.time_relative = s.time_s.mean / dvfs.time.mean;
  return s;
}

}  // namespace energy
