#include "sweep_search_run.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "energy/sweep_search.h"
#include "sweep_run_step.h"
#include "table.h"

namespace energy::cli {
namespace {

// --search: measure(point) is the point's next repeat, a stored run first (a
// resumed search retraces its steps without running anything twice), else a
// new run. `code` is what stopped it (the sweep then is interrupted).
struct SearchRun {
  const Context& ctx;
  Sweep& s;
  const SignalBlock& block;
  SweepLoop& loop;
  Progress& progress;
  std::map<size_t, int> calls;
  int code = kExitOk;
};

// A point's index in plan_points' layout: the clock axes, then the
// parameter axes, the last varying fastest.
size_t point_index(const Sweep& s, const GridIndex& clock, const std::vector<size_t>& params) {
  size_t index = 0;
  for (size_t k = 0; k < clock.size(); ++k) index = index * s.spec.axes.clocks[k].hz.size() + clock[k];
  for (size_t k = 0; k < params.size(); ++k) index = index * s.spec.axes.params[k].values.size() + params[k];
  return index;
}

// Each combination of parameter values, in plan_points' order (one, empty,
// without --param): the clock points of each are searched on their own.
std::vector<std::vector<size_t>> param_combos(const Sweep& s) {
  std::vector<std::vector<size_t>> out;
  for (const SweepPoint& p : s.points) {
    bool first_clock = std::all_of(p.clock.begin(), p.clock.end(), [](size_t i) { return i == 0; });
    if (!p.dvfs && first_clock) out.push_back(p.param);
  }
  return out;
}

size_t clock_points(const Sweep& s) {
  return static_cast<size_t>(
      std::count_if(s.points.begin(), s.points.end(), [](const SweepPoint& p) { return !p.dvfs; }));
}

Result<RunSample> next_sample(SearchRun& sr, size_t index) {
  int repeat = sr.calls[index]++;
  std::pair<size_t, int> key{index, repeat};
  if (sr.s.store.finished.count(key) == 0) {
    Repeat r;
    sr.code = one_run(sr.ctx, sr.s, ScheduledRun{index, repeat}, 0, sr.block, sr.loop, sr.progress, r);
    if (sr.code != kExitOk) return make_error(ErrorCode::kState, "the sweep stopped");
    ++sr.loop.done;
    sr.progress.show(progress_state(sr.s, ScheduledRun{index, repeat}, sr.loop));
  }
  auto stored = sr.s.store.runs.find(key);
  if (stored != sr.s.store.runs.end()) return stored->second;
  std::string why = "run " + std::to_string(repeat + 1) + " of " + point_label(sr.s.spec, sr.s.points[index]) +
                    " failed or has no energy; the search needs every measurement";
  sr.code = interrupted(sr.ctx, sr.s, kExitFailed, why, sr.progress);
  return make_error(ErrorCode::kState, why);
}

// Golden-section search on n positions: about log_phi(n) + 1 measured points, at most n.
size_t line_search_points(size_t n) {
  const double log_golden = std::log((1.0 + std::sqrt(5.0)) / 2.0);
  auto points = static_cast<size_t>(std::ceil(std::log(static_cast<double>(n)) / log_golden)) + 1;
  return std::min(points, n);
}

// The DVFS references' runs not yet stored (they follow the clock points, one per combination).
size_t dvfs_runs_left(const Sweep& s) {
  size_t left = 0;
  for (size_t point = clock_points(s); s.spec.dvfs && point < s.points.size(); ++point) {
    for (int k = 0; k < s.spec.search->repeats; ++k) left += s.store.finished.count({point, k}) == 0;
  }
  return left;
}

SearchOptions search_options(const Sweep& s) {
  SearchOptions options;
  for (const auto& axis : s.spec.axes.clocks) options.axis_sizes.push_back(axis.hz.size());
  options.repeats = s.spec.search->repeats;
  options.max_repeats = s.spec.search->max_repeats;
  options.max_runs = s.spec.search->max_runs;
  return options;
}

// The progress total: every search's estimate and the DVFS runs, less what
// a resumed sweep has stored (progress_state keeps it above the runs made).
size_t expected_runs(const Sweep& s, const SearchOptions& options, size_t searches) {
  size_t expected =
      searches * estimated_search_runs(options.axis_sizes, options.repeats, options.max_runs) + dvfs_runs_left(s);
  return expected > s.store.finished.size() ? expected - s.store.finished.size() : 0;
}

void print_search_end(const Sweep& s, const SearchResult& r, const std::vector<size_t>& params) {
  double pct = r.grid_runs > 0 ? 100.0 * static_cast<double>(r.runs) / static_cast<double>(r.grid_runs) : 0.0;
  std::fprintf(stderr,
               "energyctl: the search assumed energy per item is unimodal along each clock axis; it measured %zu "
               "points in %zu runs against the full grid's %zu runs (%s%%)%s; %d fallback(s) (a neighbour of the "
               "result was better, against the assumption)%s; best: %s\n",
               r.points, r.runs, r.grid_runs, fixed(pct, 1).c_str(), s.spec.dvfs ? ", plus the DVFS reference" : "",
               r.fallbacks,
               r.budget_exhausted ? "; the --max-runs budget ran out, the best point so far is reported" : "",
               point_label(s.spec, s.points[point_index(s, r.best, params)]).c_str());
}

}  // namespace

size_t estimated_search_runs(const std::vector<size_t>& axis_sizes, int repeats, size_t max_runs) {
  size_t first_cycle = 0;
  size_t confirm = 0;
  size_t grid = 1;
  size_t neighbourhood = 1;
  for (size_t n : axis_sizes) {
    n = std::max<size_t>(n, 1);
    first_cycle += line_search_points(n);
    confirm += std::min<size_t>(2, n - 1);
    grid *= n;
    neighbourhood *= std::min<size_t>(3, n);
  }
  size_t points = std::min(first_cycle + confirm + (neighbourhood - 1), grid);
  size_t runs = points * static_cast<size_t>(std::max(repeats, 1));
  return max_runs > 0 ? std::min(runs, max_runs) : runs;
}

int run_search(const Context& ctx, Sweep& s, const SignalBlock& block, SweepLoop& loop, Progress& progress) {
  const SearchOptions options = search_options(s);
  const auto combos = param_combos(s);
  loop.total = expected_runs(s, options, combos.size());
  loop.total_estimated = true;
  SearchRun sr{ctx, s, block, loop, progress, {}, kExitOk};
  std::vector<SearchResult> found;
  for (const auto& params : combos) {
    auto one = search_minimum(options, [&](const GridIndex& p) { return next_sample(sr, point_index(s, p, params)); });
    if (sr.code != kExitOk) return sr.code;
    if (!one) return interrupted(ctx, s, report_failure(one.error()), "the search failed", progress);
    found.push_back(std::move(one).value());
  }
  loop.total = loop.done + dvfs_runs_left(s);  // exact from here on
  loop.total_estimated = false;
  for (size_t point = clock_points(s); s.spec.dvfs && point < s.points.size(); ++point) {
    for (int k = 0; k < options.repeats; ++k) {
      if (!next_sample(sr, point)) return sr.code;
    }
  }
  progress.finish();
  for (size_t c = 0; c < combos.size(); ++c) print_search_end(s, found[c], combos[c]);
  return kExitOk;
}

}  // namespace energy::cli
