#include "energy/report.h"

namespace energy {
namespace {

nlohmann::json stats_to_json(const EnergyStats& s) {
  return {{"energy_j", s.energy_uj / 1e6},
          {"avg_power_w", s.average_power_uw() / 1e6},
          {"peak_power_w", static_cast<double>(s.peak_power_uw) / 1e6},
          {"min_power_w", static_cast<double>(s.min_power_uw) / 1e6},
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

Result<std::vector<RailSeries>> load_series(Store& store, const RunRecord& run, EnergyWindow w) {
  auto rails = store.rails();
  if (!rails) return rails.take_error();
  std::vector<RailSeries> out;
  for (const auto& r : *rails) {
    auto pts = store.rail_points(run.boot, r.id, w);
    if (!pts) return pts.take_error();
    out.push_back(RailSeries{r, std::move(pts).value()});
  }
  return out;
}

void add_total(RunReport& rep, const std::vector<RailSeries>& series, int64_t gap_threshold_ns) {
  std::vector<std::string> labels;
  for (const auto& r : rep.rails) labels.push_back(r.label);
  TotalRule rule = select_total_rails(labels);
  rep.total_rule = rule.explanation;
  std::vector<std::vector<PowerPoint>> parts;
  for (size_t i : rule.rail_indices) {
    rep.rails[i].in_total = true;
    rep.total_rails.push_back(rep.rails[i].label);
    for (const auto& s : series) {
      if (s.rail.label == rep.rails[i].label) parts.push_back(s.points);
    }
  }
  rep.total = integrate_power(sum_series(parts), rep.window, gap_threshold_ns);
}

}  // namespace

Result<RunReport> build_run_report(Store& store, const RunRecord& run, int64_t end_ns, int64_t gap_threshold_ns) {
  RunReport rep;
  rep.run = run;
  rep.window = EnergyWindow{run.start_ns, end_ns};
  auto series = load_series(store, run, rep.window);
  if (!series) return series.take_error();
  for (const auto& s : *series) {
    EnergyStats st = integrate_power(s.points, rep.window, gap_threshold_ns);
    if (!st.has_data) rep.missing_rails.push_back(s.rail.label);
    if (st.has_data) rep.rails.push_back(RailEnergyReport{s.rail.label, false, st});
  }
  if (rep.rails.empty()) {
    return make_error(ErrorCode::kNotFound, "run " + std::to_string(run.id) + " (" + run.name +
                                                ") has no power readings: no energy can be reported");
  }
  add_total(rep, *series, gap_threshold_ns);
  return rep;
}

nlohmann::json run_to_json(const RunRecord& run) {
  nlohmann::json j = {{"id", run.id},           {"name", run.name},
                      {"state", run_state_name(run.state)}, {"start_ns", run.start_ns},
                      {"start_wall_ns", run.start_wall_ns}};
  j["tags"] = nlohmann::json::parse(run.tags_json, nullptr, false);
  if (j["tags"].is_discarded()) j["tags"] = nlohmann::json::object();
  if (run.stop_ns) j["stop_ns"] = *run.stop_ns;
  if (run.stop_wall_ns) j["stop_wall_ns"] = *run.stop_wall_ns;
  return j;
}

nlohmann::json report_to_json(const RunReport& rep) {
  nlohmann::json rails = nlohmann::json::array();
  for (const auto& r : rep.rails) {
    nlohmann::json j = stats_to_json(r.stats);
    j["label"] = r.label;
    j["in_total"] = r.in_total;
    rails.push_back(std::move(j));
  }
  return {{"run", run_to_json(rep.run)},
          {"duration_s", static_cast<double>(rep.window.end_ns - rep.window.begin_ns) / 1e9},
          {"rails", std::move(rails)},
          {"missing_rails", rep.missing_rails},
          {"total", stats_to_json(rep.total)},
          {"total_rails", rep.total_rails},
          {"total_rule", rep.total_rule}};
}

}  // namespace energy
