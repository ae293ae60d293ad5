#include "energy/sweep_plan.h"

#include <algorithm>
#include <random>

namespace energy {
namespace {

// A draw in [0, bound) without modulo bias: rejects the top partial block.
uint64_t bounded(std::mt19937_64& rng, uint64_t bound) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  uint64_t x = rng();
  while (x >= limit) x = rng();
  return x % bound;
}

// Each round's generator: the seed and the round mixed by splitmix64's
// finaliser, so neighbouring seeds or rounds give unrelated streams.
uint64_t round_seed(uint64_t seed, int round) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (static_cast<uint64_t>(round) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

Result<size_t> grid_size(const SweepAxes& axes) {
  if (axes.clocks.empty() && axes.params.empty())
    return make_error(ErrorCode::kInvalid, "a sweep needs at least one axis");
  size_t n = 1;
  auto multiply = [&n](size_t k, const std::string& name) -> Status {
    if (k == 0) return make_error(ErrorCode::kInvalid, "axis '" + name + "' has no values");
    if (n > kMaxPoints / k)
      return make_error(ErrorCode::kInvalid, "the grid has more than " + std::to_string(kMaxPoints) + " points");
    n *= k;
    return ok_status();
  };
  for (const ClockAxis& a : axes.clocks) {
    if (Status s = multiply(a.hz.size(), a.domain); !s) return s.take_error();
  }
  for (const ParamAxis& a : axes.params) {
    if (Status s = multiply(a.values.size(), a.name); !s) return s.take_error();
  }
  return n;
}

// Position `i` of the product of `sizes`, the last varying fastest.
std::vector<size_t> unflatten(size_t i, const std::vector<size_t>& sizes) {
  std::vector<size_t> out(sizes.size());
  for (size_t k = sizes.size(); k-- > 0;) {
    out[k] = i % sizes[k];
    i /= sizes[k];
  }
  return out;
}

std::vector<size_t> param_sizes(const SweepAxes& axes) {
  std::vector<size_t> sizes;
  for (const ParamAxis& a : axes.params) sizes.push_back(a.values.size());
  return sizes;
}

size_t product(const std::vector<size_t>& sizes) {
  size_t n = 1;
  for (size_t k : sizes) n *= k;
  return n;
}

}  // namespace

Result<std::vector<SweepPoint>> plan_points(const SweepAxes& axes, DvfsReference dvfs) {
  auto n = grid_size(axes);
  if (!n) return n.take_error();
  std::vector<size_t> sizes;
  for (const ClockAxis& a : axes.clocks) sizes.push_back(a.hz.size());
  const std::vector<size_t> psizes = param_sizes(axes);
  sizes.insert(sizes.end(), psizes.begin(), psizes.end());
  std::vector<SweepPoint> points;
  for (size_t i = 0; i < *n; ++i) {
    std::vector<size_t> at = unflatten(i, sizes);
    auto mid = at.begin() + static_cast<std::ptrdiff_t>(axes.clocks.size());
    points.push_back({std::vector<size_t>(at.begin(), mid), std::vector<size_t>(mid, at.end()), false});
  }
  if (dvfs == DvfsReference::kPerParamValue) {
    for (size_t i = 0; i < product(psizes); ++i) points.push_back({{}, unflatten(i, psizes), true});
  }
  return points;
}

std::vector<size_t> round_order(uint64_t seed, int round, size_t point_count) {
  std::vector<size_t> order(point_count);
  for (size_t i = 0; i < point_count; ++i) order[i] = i;
  std::mt19937_64 rng(round_seed(seed, round));
  for (size_t i = point_count; i > 1; --i) std::swap(order[i - 1], order[bounded(rng, i)]);
  return order;
}

Result<std::vector<ScheduledRun>> plan_schedule(size_t point_count, const PlanOptions& options) {
  if (point_count == 0) return make_error(ErrorCode::kInvalid, "a sweep needs at least one point");
  if (options.repeats < 1) return make_error(ErrorCode::kInvalid, "--repeat must be at least 1");
  if (options.warmups < 0) return make_error(ErrorCode::kInvalid, "--warmup must not be negative");
  std::vector<ScheduledRun> runs;
  runs.reserve(static_cast<size_t>(options.warmups) + static_cast<size_t>(options.repeats) * point_count);
  const std::vector<size_t> first = round_order(options.seed, 0, point_count);
  for (int w = 0; w < options.warmups; ++w) runs.push_back({first[static_cast<size_t>(w) % point_count], -1});
  for (int r = 0; r < options.repeats; ++r) {
    for (size_t p : round_order(options.seed, r, point_count)) runs.push_back({p, r});
  }
  return runs;
}

Result<std::vector<ScheduledRun>> remaining_schedule(size_t point_count, const PlanOptions& options,
                                                     const FinishedRuns& finished) {
  auto all = plan_schedule(point_count, options);
  if (!all) return all.take_error();
  std::vector<ScheduledRun> left;
  for (const ScheduledRun& run : *all) {
    if (run.warmup() || finished.count({run.point, run.repeat}) == 0) left.push_back(run);
  }
  const bool only_warmups = std::all_of(left.begin(), left.end(), [](const ScheduledRun& r) { return r.warmup(); });
  if (only_warmups) left.clear();
  return left;
}

std::vector<ParamValue> point_params(const SweepAxes& axes, const SweepPoint& point) {
  std::vector<ParamValue> out;
  for (size_t k = 0; k < axes.params.size() && k < point.param.size(); ++k) {
    out.push_back({axes.params[k].name, axes.params[k].values[point.param[k]]});
  }
  return out;
}

}  // namespace energy
