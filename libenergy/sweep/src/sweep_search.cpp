#include "energy/sweep_search.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

namespace energy {
namespace {

constexpr double kGoldenFraction = 0.381966;  // (3 - sqrt 5) / 2

// Every point within +-1 position on each axis, except `p` itself.
std::vector<GridIndex> neighbours(const GridIndex& p, const std::vector<size_t>& sizes) {
  std::vector<GridIndex> out{p};
  for (size_t axis = 0; axis < p.size(); ++axis) {
    std::vector<GridIndex> grown;
    for (const GridIndex& q : out) {
      for (int step = -1; step <= 1; ++step) {
        if ((step < 0 && q[axis] == 0) || (step > 0 && q[axis] + 1 >= sizes[axis])) continue;
        GridIndex r = q;
        r[axis] = static_cast<size_t>(static_cast<long>(q[axis]) + step);
        grown.push_back(r);
      }
    }
    out.swap(grown);
  }
  out.erase(std::remove(out.begin(), out.end(), p), out.end());
  return out;
}

class Searcher {
 public:
  Searcher(const SearchOptions& options, const MeasureFn& measure) : opt_(options), measure_(measure) {}

  GridIndex search(const GridIndex& start, int& fallbacks);
  std::optional<GridIndex> better_neighbour(const GridIndex& cur);
  GridIndex best_measured() const;
  GridIndex polish(const GridIndex& cur);
  Result<SearchResult> finish(GridIndex best) const;

 private:
  GridIndex coordinate_search(GridIndex cur);
  bool measure_once(const GridIndex& p);
  void ensure(const GridIndex& p, size_t n);
  SampleSummary energy(const GridIndex& p) const;
  int compare(const GridIndex& a, const GridIndex& b);
  size_t line_search(const GridIndex& p, size_t axis);
  size_t best_in(GridIndex p, size_t axis, size_t lo, size_t hi);

  const SearchOptions& opt_;
  const MeasureFn& measure_;
  std::map<GridIndex, std::vector<RunSample>> data_;
  size_t runs_ = 0;
  bool stopped_ = false;
  std::optional<Error> error_;
};

bool Searcher::measure_once(const GridIndex& p) {
  if (opt_.max_runs != 0 && runs_ >= opt_.max_runs) stopped_ = true;
  if (stopped_) return false;
  Result<RunSample> s = measure_(p);
  if (!s) {
    error_ = s.take_error();
    stopped_ = true;
    return false;
  }
  if (opt_.kind == EnergyKind::kNet && !s->net_energy_per_item_j) {
    error_ = make_error(ErrorCode::kInvalid, "--search on net energy needs an idle baseline for every run");
    stopped_ = true;
    return false;
  }
  data_[p].push_back(*s);
  ++runs_;
  return true;
}

void Searcher::ensure(const GridIndex& p, size_t n) {
  while (data_[p].size() < n && measure_once(p)) {
  }
}

SampleSummary Searcher::energy(const GridIndex& p) const {
  auto it = data_.find(p);
  if (it == data_.end() || it->second.empty()) return SampleSummary{};
  auto stats = point_stats(it->second);
  if (!stats) return SampleSummary{};
  return opt_.kind == EnergyKind::kNet && stats->net ? *stats->net : stats->energy;
}

// -1: a uses less energy, 1: b does, 0: the runs cannot tell them apart.
int Searcher::compare(const GridIndex& a, const GridIndex& b) {
  ensure(a, static_cast<size_t>(opt_.repeats));
  ensure(b, static_cast<size_t>(opt_.repeats));
  for (;;) {
    Difference d = welch_difference(energy(a), energy(b));
    if (significant(d)) return d.mean < 0 ? -1 : 1;
    const GridIndex& fewer = data_[a].size() <= data_[b].size() ? a : b;
    if (data_[fewer].size() >= static_cast<size_t>(opt_.max_repeats) || !measure_once(fewer)) return 0;
  }
}

// The position of the lowest mean energy among lo..hi on `axis`.
size_t Searcher::best_in(GridIndex p, size_t axis, size_t lo, size_t hi) {
  size_t best = lo;
  double best_mean = 0.0;
  for (size_t i = lo; i <= hi; ++i) {
    p[axis] = i;
    ensure(p, static_cast<size_t>(opt_.repeats));
    const double m = energy(p).mean;
    if (i == lo || m < best_mean) {
      best = i;
      best_mean = m;
    }
  }
  return best;
}

// Golden-section search on table positions; undecided comparisons keep the
// span between the two probes.
size_t Searcher::line_search(const GridIndex& p, size_t axis) {
  size_t lo = 0;
  size_t hi = opt_.axis_sizes[axis] - 1;
  while (hi - lo > 3 && !stopped_) {
    size_t x1 = lo + static_cast<size_t>(std::llround(static_cast<double>(hi - lo) * kGoldenFraction));
    size_t x2 = lo + hi - x1;
    if (x1 >= x2) x1 = x2 - 1;
    GridIndex a = p;
    GridIndex b = p;
    a[axis] = x1;
    b[axis] = x2;
    const int c = compare(a, b);
    if (c <= 0) hi = x2;
    if (c >= 0) lo = x1;
  }
  return best_in(p, axis, lo, hi);
}

GridIndex Searcher::coordinate_search(GridIndex cur) {
  for (int cycle = 0; cycle < opt_.max_cycles && !stopped_; ++cycle) {
    bool moved = false;
    for (size_t axis = 0; axis < cur.size(); ++axis) {
      const size_t next = line_search(cur, axis);
      moved = moved || next != cur[axis];
      cur[axis] = next;
    }
    if (!moved) break;
  }
  return cur;
}

// The neighbour that is significantly better than `cur` with the lowest mean, if any.
std::optional<GridIndex> Searcher::better_neighbour(const GridIndex& cur) {
  std::optional<GridIndex> best;
  for (const GridIndex& q : neighbours(cur, opt_.axis_sizes)) {
    if (compare(q, cur) < 0 && (!best || energy(q).mean < energy(*best).mean)) best = q;
  }
  return best;
}

// The measured point with the lowest mean (what a search cut short reports).
GridIndex Searcher::best_measured() const {
  GridIndex best;
  double best_mean = 0.0;
  for (const auto& [p, runs] : data_) {
    const double m = energy(p).mean;
    if (!runs.empty() && (best.empty() || m < best_mean)) {
      best = p;
      best_mean = m;
    }
  }
  return best;
}

// The final choice among `cur` and its neighbours: those whose CI overlaps
// cur's are run up to max_repeats, then the lowest mean wins. Near the
// minimum, energy is flat and differences are of the order of the noise:
// more runs there are where they change the answer.
GridIndex Searcher::polish(const GridIndex& cur) {
  std::vector<GridIndex> tied{cur};
  for (const GridIndex& q : neighbours(cur, opt_.axis_sizes)) {
    const SampleSummary e = energy(q);
    if (e.n > 0 && e.low() <= energy(cur).high()) tied.push_back(q);
  }
  GridIndex best = cur;
  for (const GridIndex& q : tied) {
    ensure(q, static_cast<size_t>(opt_.max_repeats));
    if (energy(q).mean < energy(best).mean) best = q;
  }
  return best;
}

// Coordinate search, then neighbour checks: a significantly better
// neighbour restarts the coordinate search from there (the better of where
// it ends and the neighbour is kept). Back at an earlier result, the
// contradiction was noise, not another valley: stop.
GridIndex Searcher::search(const GridIndex& start, int& fallbacks) {
  GridIndex cur = coordinate_search(start);
  std::set<GridIndex> results{cur};
  while (fallbacks < opt_.max_fallbacks && !stopped_) {
    std::optional<GridIndex> next = better_neighbour(cur);
    if (!next) break;
    ++fallbacks;
    GridIndex found = coordinate_search(*next);
    cur = energy(found).mean <= energy(*next).mean ? found : *next;
    if (!results.insert(cur).second) break;
  }
  return polish(cur);
}

Result<SearchResult> Searcher::finish(GridIndex best) const {
  if (error_) return *error_;
  if (stopped_) best = best_measured();
  auto it = data_.find(best);
  if (it == data_.end() || it->second.empty()) {
    return make_error(ErrorCode::kInvalid, "--search: the run limit ended the search before a point was measured");
  }
  SearchResult r;
  r.best = best;
  auto stats = point_stats(it->second);
  if (!stats) return stats.take_error();
  r.best_stats = *stats;
  r.runs = runs_;
  r.points = static_cast<size_t>(
      std::count_if(data_.begin(), data_.end(), [](const auto& entry) { return !entry.second.empty(); }));
  r.budget_exhausted = stopped_;
  return r;
}

Status check_options(const SearchOptions& o) {
  if (o.axis_sizes.empty()) return make_error(ErrorCode::kInvalid, "--search needs at least one clock axis");
  for (size_t s : o.axis_sizes) {
    if (s == 0) return make_error(ErrorCode::kInvalid, "--search: a clock axis has no values");
  }
  if (o.repeats < 2)
    return make_error(ErrorCode::kInvalid, "--search needs at least 2 repeats per point to compare by CI");
  if (o.max_repeats < o.repeats) return make_error(ErrorCode::kInvalid, "--search: max repeats below repeats");
  if (o.max_cycles < 1 || o.max_fallbacks < 0)
    return make_error(ErrorCode::kInvalid, "--search: bad cycle or fallback limit");
  return ok_status();
}

size_t grid_runs(const SearchOptions& o) {
  size_t n = static_cast<size_t>(o.repeats);
  for (size_t s : o.axis_sizes) n *= s;
  return n;
}

}  // namespace

Result<SearchResult> search_minimum(const SearchOptions& options, const MeasureFn& measure) {
  if (Status s = check_options(options); !s) return s.take_error();
  Searcher searcher(options, measure);
  GridIndex cur;
  for (size_t s : options.axis_sizes) cur.push_back((s - 1) / 2);
  int fallbacks = 0;
  cur = searcher.search(cur, fallbacks);
  auto result = searcher.finish(cur);
  if (!result) return result;
  result->fallbacks = fallbacks;
  result->grid_runs = grid_runs(options);
  return result;
}

}  // namespace energy
