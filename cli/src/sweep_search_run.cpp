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

// A clock point's index in plan_points' layout (the last axis varying fastest).
size_t grid_index(const Sweep& s, const GridIndex& point) {
  size_t index = 0;
  for (size_t k = 0; k < point.size(); ++k) index = index * s.spec.axes.clocks[k].hz.size() + point[k];
  return index;
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

// The DVFS reference's runs not yet stored (it follows the grid's points).
size_t dvfs_runs_left(const Sweep& s, size_t dvfs_point) {
  size_t left = 0;
  for (int k = 0; s.spec.dvfs && k < s.spec.search->repeats; ++k) left += s.store.finished.count({dvfs_point, k}) == 0;
  return left;
}

void print_search_end(const Sweep& s, const SearchResult& r) {
  double pct = r.grid_runs > 0 ? 100.0 * static_cast<double>(r.runs) / static_cast<double>(r.grid_runs) : 0.0;
  std::fprintf(stderr,
               "energyctl: the search assumed energy per item is unimodal along each clock axis; it measured %zu "
               "points in %zu runs against the full grid's %zu runs (%s%%)%s; %d fallback(s) (a neighbour of the "
               "result was better, against the assumption)%s; best: %s\n",
               r.points, r.runs, r.grid_runs, fixed(pct, 1).c_str(), s.spec.dvfs ? ", plus the DVFS reference" : "",
               r.fallbacks,
               r.budget_exhausted ? "; the --max-runs budget ran out, the best point so far is reported" : "",
               point_label(s.spec, s.points[grid_index(s, r.best)]).c_str());
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
  const SearchSpec& spec = *s.spec.search;
  SearchOptions options;
  for (const auto& axis : s.spec.axes.clocks) options.axis_sizes.push_back(axis.hz.size());
  options.repeats = spec.repeats;
  options.max_repeats = spec.max_repeats;
  options.max_runs = spec.max_runs;
  size_t grid = grid_index(s, {}) + 1;
  for (size_t n : options.axis_sizes) grid *= n;
  // An estimate, less the runs a resumed search takes from the store (progress_state keeps it above `done`).
  size_t expected = estimated_search_runs(options.axis_sizes, spec.repeats, spec.max_runs) + dvfs_runs_left(s, grid);
  loop.total = expected > s.store.finished.size() ? expected - s.store.finished.size() : 0;
  loop.total_estimated = true;
  SearchRun sr{ctx, s, block, loop, progress, {}, kExitOk};
  auto found = search_minimum(options, [&](const GridIndex& p) { return next_sample(sr, grid_index(s, p)); });
  if (sr.code != kExitOk) return sr.code;
  if (!found) return interrupted(ctx, s, report_failure(found.error()), "the search failed", progress);
  loop.total = loop.done + dvfs_runs_left(s, grid);  // exact from here on
  loop.total_estimated = false;
  for (int k = 0; s.spec.dvfs && k < spec.repeats; ++k) {
    if (!next_sample(sr, grid)) return sr.code;  // the DVFS point follows the grid
  }
  progress.finish();
  print_search_end(s, *found);
  return kExitOk;
}

}  // namespace energy::cli
