#include "sweep_export.h"

#include <cmath>

#include "command.h"
#include "terminal_text.h"

namespace energy::cli {
namespace {

using nlohmann::json;

json summary_json(const SampleSummary& s) {
  return {{"n", s.n},
          {"mean", s.mean},
          {"ci95_half", s.ci95_half ? json(*s.ci95_half) : json()},
          {"stddev", s.stddev ? json(*s.stddev) : json()}};
}

const LayoutPoint* layout_point(const SweepResults& r, int64_t point) {
  if (!r.layout || point < 0 || static_cast<size_t>(point) >= r.layout->points.size()) return nullptr;
  return &r.layout->points[static_cast<size_t>(point)];
}

// {"clocks": {domain: hz}, "params": {name: value}, "dvfs"} of a point.
json point_values(const SweepResults& r, int64_t point) {
  json clocks = json::object(), params = json::object();
  const LayoutPoint* p = layout_point(r, point);
  if (p == nullptr) return {{"clocks", clocks}, {"params", params}, {"dvfs", nullptr}};
  for (size_t i = 0; i < p->hz.size(); ++i) clocks[r.layout->domains[i]] = p->hz[i];
  for (size_t i = 0; i < p->params.size(); ++i) params[r.layout->params[i]] = p->params[i];
  return {{"clocks", clocks}, {"params", params}, {"dvfs", p->dvfs}};
}

json point_json(const SweepResults& r, size_t i) {
  const PointStats& s = r.points[i].stats;
  json j = point_values(r, static_cast<int64_t>(r.points[i].point));
  j["point"] = r.points[i].point;
  j["label"] = result_label(r, i);
  j["energy_j"] = summary_json(s.energy);
  j["net_energy_j"] = s.net ? summary_json(*s.net) : json();
  j["time_s"] = summary_json(s.time);
  j["power_w"] = summary_json(s.power);
  return j;
}

json point_ref(const SweepResults& r, std::optional<size_t> i) { return i ? json(r.points[*i].point) : json(); }

json minimum_json(const SweepResults& r, const std::optional<MinimumSet>& m) {
  if (!m) return nullptr;
  json tied = json::array();
  for (size_t i : m->tied) tied.push_back(r.points[i].point);
  return {{"point", r.points[m->best].point}, {"indistinguishable", tied}};
}

json dvfs_json(const SweepResults& r, const DvfsComparison& c) {
  const Saving& s = c.saving;
  return {
      {"dvfs_point", r.points[c.dvfs].point},
      {"point", r.points[c.best].point},
      {"saving_j", s.energy_j.mean},
      {"saving_ci95_half_j", s.energy_j.ci95_half ? json(*s.energy_j.ci95_half) : json()},
      {"saving_relative", s.relative},
      {"saving_relative_ci95_half", s.relative_ci95_half ? json(*s.relative_ci95_half) : json()},
      {"significant", significant(s.energy_j)},
      {"combined_precision_j", c.combined_precision ? json(*c.combined_precision) : json()},
      {"exceeds_precision", c.combined_precision ? json(std::fabs(s.energy_j.mean) > *c.combined_precision) : json()},
      {"time_cost_s", s.time_s.mean},
      {"time_cost_relative", s.time_relative}};
}

json run_fields(const SweepResults& r, const SweepRunRow& row) {
  json j = point_values(r, row.point);
  const json& run = row.run;
  const json& summary = run.value("summary", json::object());
  const json& tags = run.value("tags", json::object());
  j.update({{"sweep_id", r.sweep.value("id", int64_t{0})},
            {"run_id", row.run_id},
            {"point", row.point},
            {"repeat", row.repeat},
            {"role", row.role},
            {"counted", row.sample.has_value()},
            {"left_out", row.left_out.empty() ? json() : json(row.left_out)},
            {"quality", run.value("quality", json()).is_object() ? run["quality"].value("verdict", json()) : json()},
            {"cooldown_ms", row.cooldown_ms},
            {"state", run.value("state", json())},
            {"exit_status", tags.value("exit_status", json())},
            {"start_wall_ns", run.value("start_wall_ns", json())},
            {"items", run.value("items", json())},
            {"energy_j", summary.value("energy_j", json())},
            {"duration_s", summary.value("duration_s", json())},
            {"avg_power_w", summary.value("avg_power_w", json())}});
  j["energy_per_" + r.unit + "_j"] = row.sample ? json(row.sample->energy_per_item_j) : json();
  j["net_energy_per_" + r.unit + "_j"] = row.sample ? json_or_null(row.sample->net_energy_per_item_j) : json();
  j["time_per_" + r.unit + "_s"] = row.sample ? json(row.sample->time_per_item_s) : json();
  return j;
}

std::vector<std::string> csv_columns(const SweepResults& r) {
  std::vector<std::string> cols = {"sweep_id", "run_id",   "point",   "repeat", "role",
                                   "counted",  "left_out", "quality", "dvfs"};
  if (r.layout) {
    for (const auto& d : r.layout->domains) cols.push_back(d + "_hz");
    for (const auto& p : r.layout->params) cols.push_back("param_" + p);
  }
  for (const char* c :
       {"cooldown_ms", "state", "exit_status", "start_wall_ns", "items", "energy_j", "duration_s", "avg_power_w"})
    cols.emplace_back(c);
  for (const char* c : {"energy_per_", "net_energy_per_"}) cols.push_back(c + r.unit + "_j");
  cols.push_back("time_per_" + r.unit + "_s");
  return cols;
}

// A field's CSV text: empty for null, numbers as JSON writes them (exact), text quoted as needed.
std::string csv_value(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return csv_field(v.get<std::string>());
  return v.dump();
}

std::string csv_line(const std::vector<std::string>& cols, const json& fields) {
  std::string line;
  for (size_t i = 0; i < cols.size(); ++i) {
    const std::string& c = cols[i];
    json v = fields.value(c, json());
    if (c.size() > 3 && c.compare(c.size() - 3, 3, "_hz") == 0)
      v = fields["clocks"].value(c.substr(0, c.size() - 3), json());
    if (c.rfind("param_", 0) == 0) v = fields["params"].value(c.substr(6), json());
    line += (i == 0 ? "" : ",") + csv_value(v);
  }
  return line + "\n";
}

}  // namespace

json sweep_results_json(const SweepResults& r) {
  json points = json::array(), dvfs = json::array(), pareto = json::array();
  for (size_t i = 0; i < r.points.size(); ++i) points.push_back(point_json(r, i));
  for (const auto& c : r.dvfs) dvfs.push_back(dvfs_json(r, c));
  for (size_t i : r.pareto) pareto.push_back(r.points[i].point);
  return {{"sweep", r.sweep},
          {"unit", r.unit},
          {"planned_points", r.planned_points},
          {"search", r.search},
          {"points", points},
          {"minimum", minimum_json(r, r.minimum)},
          {"minimum_net", minimum_json(r, r.minimum_net)},
          {"fastest", point_ref(r, r.fastest)},
          {"pareto", pareto},
          {"edp", point_ref(r, r.edp)},
          {"dvfs", dvfs},
          {"notes", r.notes}};
}

json sweep_export_json(const SweepResults& r) {
  json runs = json::array();
  for (const auto& row : r.runs) runs.push_back(run_fields(r, row));
  return {{"sweep", r.sweep}, {"runs", runs}, {"results", sweep_results_json(r)}};
}

std::string sweep_export_csv(const SweepResults& r) {
  auto cols = csv_columns(r);
  std::string out;
  for (size_t i = 0; i < cols.size(); ++i) out += (i == 0 ? "" : ",") + cols[i];
  out += "\n";
  for (const auto& row : r.runs) out += csv_line(cols, run_fields(r, row));
  return out;
}

}  // namespace energy::cli
