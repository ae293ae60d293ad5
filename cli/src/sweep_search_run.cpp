#include "sweep_search_run.h"

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

int run_search(const Context& ctx, Sweep& s, const SignalBlock& block, SweepLoop& loop, Progress& progress) {
  const SearchSpec& spec = *s.spec.search;
  SearchOptions options;
  for (const auto& axis : s.spec.axes.clocks) options.axis_sizes.push_back(axis.hz.size());
  options.repeats = spec.repeats;
  options.max_repeats = spec.max_repeats;
  options.max_runs = spec.max_runs;
  size_t grid = grid_index(s, {}) + 1;
  for (size_t n : options.axis_sizes) grid *= n;
  loop.total = spec.max_runs > 0 ? spec.max_runs : grid * static_cast<size_t>(spec.repeats);
  SearchRun sr{ctx, s, block, loop, progress, {}, kExitOk};
  auto found = search_minimum(options, [&](const GridIndex& p) { return next_sample(sr, grid_index(s, p)); });
  if (sr.code != kExitOk) return sr.code;
  if (!found) return interrupted(ctx, s, report_failure(found.error()), "the search failed", progress);
  for (int k = 0; s.spec.dvfs && k < spec.repeats; ++k) {
    if (!next_sample(sr, grid)) return sr.code;  // the DVFS point follows the grid
  }
  progress.finish();
  print_search_end(s, *found);
  return kExitOk;
}

}  // namespace energy::cli
