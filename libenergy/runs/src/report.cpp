#include "energy/report.h"

#include <algorithm>
#include <cmath>

#include "energy/averaging_correction.h"
#include "energy/rail_total.h"
#include "energy/uncertainty.h"

namespace energy {
namespace {

struct Bounds {
  double precision_uj = 0;
  double calibration_uj = 0;
  double accuracy_uj() const { return precision_uj + calibration_uj; }
};

// error_bound_j is accuracy_j (docs/PROTOCOL.md, "Error bound").
nlohmann::json stats_to_json(const EnergyStats& s, Tier resolution, Bounds b) {
  return {{"energy_j", s.energy_uj / 1e6},
          {"resolution", tier_name(resolution)},
          {"error_bound_j", b.accuracy_uj() / 1e6},
          {"precision_j", b.precision_uj / 1e6},
          {"calibration_j", b.calibration_uj / 1e6},
          {"accuracy_j", b.accuracy_uj() / 1e6},
          {"precision_parts_j",
           {{"sampling", s.fluctuation_bound_uj / 1e6},
            {"resolution", s.resolution_bound_uj / 1e6},
            {"averaging", s.filter_bound_uj / 1e6},
            {"product", s.product_bound_uj / 1e6},
            {"tiers", (b.precision_uj - s.raw_error_bound_uj()) / 1e6}}},
          {"avg_power_w", s.average_power_uw() / 1e6},
          {"peak_power_w", static_cast<double>(s.peak_power_uw) / 1e6},
          {"min_power_w", static_cast<double>(s.min_power_uw) / 1e6},
          {"filter_correction_j", s.filter_correction_uj / 1e6},
          {"product_correction_j", s.product_correction_uj / 1e6},
          {"samples", s.samples},
          {"failed_samples", s.failed_samples},
          {"coverage", s.coverage()},
          {"largest_gap_ns", s.largest_gap_ns},
          {"gap_ns", s.gap_ns}};
}

struct RailSeries {
  StoredRail rail;
  std::vector<PowerPoint> points;
};

bool raw_covers(const std::vector<PowerPoint>& pts, EnergyWindow w) {
  for (const auto& p : pts) {
    if (p.valid) return p.t_ns <= w.begin_ns;
  }
  return false;
}

// Figures of two adjoining stretches of one window.
EnergyStats join(const EnergyStats& a, const EnergyStats& b, int64_t window_ns) {
  EnergyStats s;
  s.window_ns = window_ns;
  s.energy_uj = a.energy_uj + b.energy_uj;
  s.covered_ns = a.covered_ns + b.covered_ns;
  s.integrated_ns = a.integrated_ns + b.integrated_ns;
  s.largest_gap_ns = std::max(a.largest_gap_ns, b.largest_gap_ns);
  s.gap_ns = a.gap_ns + b.gap_ns;
  s.samples = a.samples + b.samples;
  s.failed_samples = a.failed_samples + b.failed_samples;
  s.has_data = a.has_data || b.has_data;
  s.fluctuation_bound_uj = std::hypot(a.fluctuation_bound_uj, b.fluctuation_bound_uj);  // independent stretches
  s.resolution_bound_uj = a.resolution_bound_uj + b.resolution_bound_uj;
  s.filter_correction_uj = a.filter_correction_uj + b.filter_correction_uj;
  s.filter_bound_uj = a.filter_bound_uj + b.filter_bound_uj;
  s.product_correction_uj = a.product_correction_uj + b.product_correction_uj;
  s.product_bound_uj = a.product_bound_uj + b.product_bound_uj;
  s.peak_power_uw = !b.has_data   ? a.peak_power_uw
                    : !a.has_data ? b.peak_power_uw
                                  : std::max(a.peak_power_uw, b.peak_power_uw);
  s.min_power_uw = !b.has_data   ? a.min_power_uw
                   : !a.has_data ? b.min_power_uw
                                 : std::min(a.min_power_uw, b.min_power_uw);
  return s;
}

// Adds the averaging correction (averaging_correction.h). Edges whose reading is unknown
// are not corrected; the correction there is at most K x the readings' range.
void add_filter(EnergyStats& s, const StoredRail& rail, int64_t boot, EnergyWindow w,
                const std::function<std::optional<double>(int64_t)>& power_at) {
  FilterCorrection c = filter_correction(rail, boot, w, power_at);
  s.energy_uj += c.energy_uj;
  s.filter_correction_uj += c.energy_uj;
  s.filter_bound_uj += c.unknown_k_ns / 1e9 * static_cast<double>(s.peak_power_uw - s.min_power_uw);
}

// The product-of-averages term (integrate.h). From the raw readings only: a tier keeps no voltage.
void add_product_term(EnergyStats& s, const std::vector<PowerPoint>& points, EnergyWindow w, int64_t gap_threshold_ns,
                      Averaging averaging) {
  ProductTerm p = product_correction(points, w, gap_threshold_ns, averaging);
  s.energy_uj += p.energy_uj;
  s.product_correction_uj += p.energy_uj;
  s.product_bound_uj += p.bound_uj;
}

// precision + calibration (uncertainty.h) = the error bound.
void set_bounds(RailEnergyReport& r, const RailSeries& s, EnergyWindow w) {
  r.precision_uj = r.tier_bound_uj + r.stats.raw_error_bound_uj();
  r.calibration_uj = calibration_bound_uj(calibration_for_driver(s.rail.driver), r.stats.energy_uj,
                                          mean_bus_mv(s.points, w), r.stats.integrated_ns);
  r.error_bound_uj = r.precision_uj + r.calibration_uj;
}

RailEnergyReport raw_rail(const RailSeries& s, int64_t boot, EnergyWindow w, int64_t gap_threshold_ns) {
  Averaging averaging{s.rail.filter_at(boot, w.end_ns)};
  EnergyStats stats = integrate_power(s.points, w, gap_threshold_ns, averaging);
  add_filter(stats, s.rail, boot, w, [&s](int64_t t) { return power_at(s.points, t); });
  add_product_term(stats, s.points, w, gap_threshold_ns, averaging);
  RailEnergyReport r{s.rail.label, false, stats};
  set_bounds(r, s, w);
  return r;
}

// A rail whose raw readings no longer reach the window's start: buckets up
// to where the raw tier takes over, the readings after, and the energy from
// the running energy with its bound.
Result<RailEnergyReport> rail_from_tiers(Store& store, const RunRecord& run, const RailSeries& s, EnergyWindow w,
                                         int64_t gap_threshold_ns) {
  auto h = store.tiers().rail_history(run.boot, s.rail.id, w);
  if (!h) return h.take_error();
  if (h->buckets.empty()) {  // nothing downsampled: the window starts before the rail's first reading
    return raw_rail(s, run.boot, w, gap_threshold_ns);
  }
  int64_t split = std::min(w.end_ns, h->raw_from_ns);
  EnergyStats tiers = summarize_buckets(h->buckets, {w.begin_ns, split}, gap_threshold_ns);
  Averaging averaging{s.rail.filter_at(run.boot, w.end_ns)};
  EnergyStats raw =
      split < w.end_ns ? integrate_power(s.points, {split, w.end_ns}, gap_threshold_ns, averaging) : EnergyStats{};
  RailEnergyReport r{s.rail.label, false, join(tiers, raw, w.end_ns - w.begin_ns), h->coarsest};
  auto e = store.readings().energy(run.boot, s.rail.id, w);
  if (!e) return e.take_error();
  if (e->has_value()) {
    const EnergyAnswer& a = **e;
    r.stats.energy_uj = a.energy_uj;
    r.stats.filter_correction_uj = 0;
    r.stats.filter_bound_uj = 0;
    r.tier_bound_uj = a.error_bound_uj;
    add_filter(r.stats, s.rail, run.boot, w, [&](int64_t t) -> std::optional<double> {
      if (t == w.begin_ns) return a.begin_power_uw;
      if (t == w.end_ns) return a.end_power_uw;
      auto p = store.readings().power_at(run.boot, s.rail.id, t);
      return p ? *p : std::nullopt;
    });
    // A tier's edge power is its bucket's mean: off by up to the bucket's range.
    int64_t k = std::max(s.rail.filter_ns, s.rail.filter_before_ns);
    r.stats.filter_bound_uj += static_cast<double>(k) / 1e9 * a.edge_spread_uw;
  }
  set_bounds(r, s, w);
  return r;
}

Result<RailEnergyReport> rail_report(Store& store, const RunRecord& run, const RailSeries& s, EnergyWindow w,
                                     int64_t gap_threshold_ns) {
  if (raw_covers(s.points, w)) return raw_rail(s, run.boot, w, gap_threshold_ns);
  return rail_from_tiers(store, run, s, w, gap_threshold_ns);
}

Result<std::vector<RailSeries>> load_series(Store& store, const RunRecord& run, EnergyWindow w) {
  auto rails = store.rails();
  if (!rails) return rails.take_error();
  std::vector<RailSeries> out;
  for (const auto& r : *rails) {
    auto pts = store.readings().rail_points(run.boot, r.id, w);
    if (!pts) return pts.take_error();
    out.push_back(RailSeries{r, std::move(pts).value()});
  }
  return out;
}

// From the raw tier the total integrates the summed readings; once a total
// rail is downsampled it is the sum of the rails' figures (peak: the sum of
// their peaks, an upper bound).
EnergyStats summed(const std::vector<const RailEnergyReport*>& rails) {
  EnergyStats s = rails.front()->stats;
  for (size_t i = 1; i < rails.size(); ++i) {
    const EnergyStats& o = rails[i]->stats;
    s.energy_uj += o.energy_uj;
    s.peak_power_uw += o.peak_power_uw;
    s.min_power_uw += o.min_power_uw;
    s.samples = std::min(s.samples, o.samples);
    s.failed_samples = std::max(s.failed_samples, o.failed_samples);
    s.covered_ns = std::min(s.covered_ns, o.covered_ns);
    s.integrated_ns = std::min(s.integrated_ns, o.integrated_ns);
    s.gap_ns = std::max(s.gap_ns, o.gap_ns);
    s.largest_gap_ns = std::max(s.largest_gap_ns, o.largest_gap_ns);
    s.fluctuation_bound_uj += o.fluctuation_bound_uj;  // rails follow one load: no cancelling
    s.resolution_bound_uj += o.resolution_bound_uj;
    s.filter_correction_uj += o.filter_correction_uj;
    s.filter_bound_uj += o.filter_bound_uj;
    s.product_correction_uj += o.product_correction_uj;
    s.product_bound_uj += o.product_bound_uj;
  }
  return s;
}

// The longest averaging of the total's rails (the summed readings are as smooth as the least smoothed one
// and lag as the most: the curvature model holds for the shortest, the check of gaps for the longest).
Averaging total_averaging(const RunReport& rep, const std::vector<RailSeries>& series) {
  Averaging a;
  for (const auto& label : rep.total_rails) {
    for (const auto& s : series) {
      if (s.rail.label == label) a.k_ns = std::max(a.k_ns, s.rail.filter_at(rep.run.boot, rep.window.end_ns));
    }
  }
  return a;
}

void add_total(RunReport& rep, const std::vector<RailSeries>& series, int64_t gap_threshold_ns) {
  std::vector<std::string> labels;
  for (const auto& r : rep.rails) labels.push_back(r.label);
  TotalRule rule = select_total_rails(labels);
  rep.total_rule = rule.explanation;
  std::vector<std::vector<PowerPoint>> parts;
  std::vector<const RailEnergyReport*> in_total;
  for (size_t i : rule.rail_indices) {
    rep.rails[i].in_total = true;
    rep.total_rails.push_back(rep.rails[i].label);
    in_total.push_back(&rep.rails[i]);
    rep.total_resolution = std::max(rep.total_resolution, rep.rails[i].resolution);
    rep.total_precision_uj += rep.rails[i].tier_bound_uj;
    rep.total_calibration_uj += rep.rails[i].calibration_uj;
    for (const auto& s : series) {
      if (s.rail.label == rep.rails[i].label) parts.push_back(s.points);
    }
  }
  if (rep.total_resolution != Tier::kRaw && !in_total.empty()) {
    rep.total = summed(in_total);
  } else {
    rep.total = integrate_power(sum_series(parts), rep.window, gap_threshold_ns, total_averaging(rep, series));
    // Each rail's readings carry their own rounding; the sum's smallest step says nothing about it.
    // Each rail has its own averaging correction.
    rep.total.resolution_bound_uj = 0;
    for (const auto* r : in_total) {
      rep.total.resolution_bound_uj += r->stats.resolution_bound_uj;
      rep.total.energy_uj += r->stats.filter_correction_uj;
      rep.total.filter_correction_uj += r->stats.filter_correction_uj;
      rep.total.filter_bound_uj += r->stats.filter_bound_uj;
      rep.total.energy_uj += r->stats.product_correction_uj;
      rep.total.product_correction_uj += r->stats.product_correction_uj;
      rep.total.product_bound_uj += r->stats.product_bound_uj;
    }
  }
  rep.total_precision_uj += rep.total.raw_error_bound_uj();
  rep.total_error_bound_uj = rep.total_precision_uj + rep.total_calibration_uj;
}

// Failed reads of `rails` strictly inside (a, b), and which rails they were on.
void failed_reads_in(const std::vector<const RailSeries*>& rails, int64_t a, int64_t b, RunGap& gap) {
  for (const RailSeries* s : rails) {
    int64_t n = 0;
    for (const auto& p : s->points) {
      if (!p.valid && p.t_ns > a && p.t_ns < b) ++n;
    }
    if (n == 0) continue;
    gap.failed_reads += n;
    gap.rails.push_back(s->rail.label);
  }
}

// The total's stretches without a valid reading longer than the threshold,
// each with its cause: failed reads in it, else energyd's restart (its board
// context closed there), else a sampler that took no sweep.
Status find_gaps(Store& store, RunReport& rep, const std::vector<RailSeries>& series, int64_t gap_threshold_ns) {
  if (rep.total_resolution != Tier::kRaw || rep.total_rails.empty()) return ok_status();
  std::vector<const RailSeries*> rails;
  std::vector<std::vector<PowerPoint>> parts;
  for (const auto& label : rep.total_rails) {
    for (const auto& s : series) {
      if (s.rail.label != label) continue;
      rails.push_back(&s);
      parts.push_back(s.points);
    }
  }
  const EnergyWindow w = rep.window;
  std::vector<int64_t> valid = {w.begin_ns};
  for (const auto& p : sum_series(parts)) {
    if (p.valid && p.t_ns > w.begin_ns && p.t_ns < w.end_ns) valid.push_back(p.t_ns);
  }
  valid.push_back(w.end_ns);
  for (size_t i = 1; i < valid.size(); ++i) {
    if (valid[i] - valid[i - 1] <= gap_threshold_ns) continue;
    if (rep.gaps.size() >= kMaxListedGaps) {
      ++rep.gaps_not_listed;
      continue;
    }
    RunGap gap{valid[i - 1], valid[i], GapCause::kSamplerStalled, {}, 0};
    failed_reads_in(rails, gap.begin_ns, gap.end_ns, gap);
    if (gap.failed_reads > 0) {
      gap.cause = GapCause::kReadErrors;
    } else {
      auto restarted = store.context().restart_between(rep.run.boot, gap.begin_ns, gap.end_ns);
      if (!restarted) return restarted.take_error();
      if (*restarted) gap.cause = GapCause::kEnergydStopped;
    }
    rep.gaps.push_back(std::move(gap));
  }
  return ok_status();
}

}  // namespace

Result<RunReport> build_run_report(Store& store, const RunRecord& run, int64_t end_ns, int64_t gap_threshold_ns) {
  RunReport rep;
  rep.run = run;
  rep.window = EnergyWindow{run.start_ns, end_ns};
  auto series = load_series(store, run, rep.window);
  if (!series) return series.take_error();
  for (const auto& s : *series) {
    auto r = rail_report(store, run, s, rep.window, gap_threshold_ns);
    if (!r) return r.take_error();
    if (!r->stats.has_data) rep.missing_rails.push_back(s.rail.label);
    if (r->stats.has_data) rep.rails.push_back(std::move(r).value());
  }
  if (rep.rails.empty()) {
    return make_error(ErrorCode::kNotFound, "run " + std::to_string(run.id) + " (" + run.name +
                                                ") has no power readings: no energy can be reported");
  }
  add_total(rep, *series, gap_threshold_ns);
  if (auto st = find_gaps(store, rep, *series, gap_threshold_ns); !st) return st.take_error();
  ContextSummary context(rep.window);
  auto scanned = store.context().scan(run.boot, rep.window, context);
  if (!scanned) return scanned.take_error();
  rep.context = context.finish();
  return rep;
}

nlohmann::json run_to_json(const RunRecord& run) {
  nlohmann::json j = {{"id", run.id},
                      {"name", run.name},
                      {"state", run_state_name(run.state)},
                      {"start_ns", run.start_ns},
                      {"start_wall_ns", run.start_wall_ns}};
  j["tags"] = nlohmann::json::parse(run.tags_json, nullptr, false);
  if (j["tags"].is_discarded()) j["tags"] = nlohmann::json::object();
  if (run.stop_ns) j["stop_ns"] = *run.stop_ns;
  if (run.stop_wall_ns) j["stop_wall_ns"] = *run.stop_wall_ns;
  if (run.items) j["items"] = *run.items;
  return j;
}

nlohmann::json report_to_json(const RunReport& rep) {
  nlohmann::json rails = nlohmann::json::array();
  for (const auto& r : rep.rails) {
    nlohmann::json j = stats_to_json(r.stats, r.resolution, Bounds{r.precision_uj, r.calibration_uj});
    j["label"] = r.label;
    j["in_total"] = r.in_total;
    rails.push_back(std::move(j));
  }
  nlohmann::json j = {{"run", run_to_json(rep.run)},
                      {"duration_s", static_cast<double>(rep.window.end_ns - rep.window.begin_ns) / 1e9},
                      {"rails", std::move(rails)},
                      {"missing_rails", rep.missing_rails},
                      {"total", stats_to_json(rep.total, rep.total_resolution,
                                              Bounds{rep.total_precision_uj, rep.total_calibration_uj})},
                      {"total_rails", rep.total_rails},
                      {"total_rule", rep.total_rule}};
  j["clocks"] = clocks_to_json(rep.context);
  j["thermal"] = thermal_to_json(rep.context);
  return j;
}

}  // namespace energy
