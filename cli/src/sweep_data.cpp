#include "sweep_data.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace energy::cli {
namespace {

using nlohmann::json;

double number_or(const json& j, const char* key, double fallback) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return fallback;
  return j[key].get<double>();
}

const json& summary_of(const SweepRunRow& r) {
  static const json kNone = json::object();
  return r.run.is_object() && r.run.contains("summary") ? r.run["summary"] : kNone;
}

// Why a measure run is not counted; empty when it is.
std::string left_out_reason(const SweepRunRow& r) {
  if (r.run.value("state", "") != "stopped") return "run " + r.run.value("state", std::string("?"));
  const json& tags = r.run.value("tags", json::object());
  if (tags.is_object() && tags.contains("exit_status") && tags["exit_status"] != "0")
    return "the command failed (exit status " + tags["exit_status"].get<std::string>() + ")";
  const json& q = r.run.value("quality", json());
  if (q.is_object() && q.value("verdict", "") == "fail") {
    std::string failed;
    for (const auto& f : q.value("failed", json::array())) {
      if (f.is_string()) failed += (failed.empty() ? "" : ", ") + f.get<std::string>();
    }
    return "failed its quality gate (" + (failed.empty() ? std::string("see its report") : failed) + ")";
  }
  const json& s = summary_of(r);
  if (!(number_or(s, "energy_j", 0) > 0)) return "no energy known for the run";
  if (!(number_or(s, "duration_s", 0) > 0)) return "no duration";
  return "";
}

SweepRunRow row_of(const json& j) {
  SweepRunRow r;
  r.run_id = j.value("run_id", int64_t{0});
  r.point = j.value("point", int64_t{0});
  r.repeat = j.value("repeat", int64_t{0});
  r.role = j.value("role", "");
  r.cooldown_ms = j.value("cooldown_ms", json());
  r.run = j.value("run", json::object());
  return r;
}

// The idle power of the newest baseline of the sweep that started before `run`.
std::optional<double> idle_power_before(const std::vector<SweepRunRow>& rows, const SweepRunRow& run) {
  std::optional<double> power;
  int64_t newest = INT64_MIN;
  int64_t start = run.run.value("start_wall_ns", int64_t{0});
  for (const auto& b : rows) {
    int64_t at = b.run.value("start_wall_ns", int64_t{0});
    if (b.role != "baseline" || !b.left_out.empty() || at >= start || at < newest) continue;
    double w = number_or(summary_of(b), "avg_power_w", -1);
    if (w < 0) continue;
    newest = at;
    power = w;
  }
  return power;
}

// energy - idle; a difference within the rounding of the two (1e-12 of the
// energy) is 0, so that a run at exactly the idle power does not read -7e-18.
double net_energy(double energy_j, double idle_j) {
  double net = energy_j - idle_j;
  return std::fabs(net) < 1e-12 * std::fabs(energy_j) ? 0.0 : net;
}

bool every_counted_has_items(const std::vector<SweepRunRow>& rows) {
  return std::all_of(rows.begin(), rows.end(), [](const SweepRunRow& r) {
    return r.role != "measure" || !r.left_out.empty() || number_or(r.run, "items", 0) >= 1;
  });
}

// Notes on the runs that were run again after failing their gate, and on
// counted runs that carry no verdict (stopped before energyd judged runs).
void note_quality(SweepResults& out) {
  std::string rerun;
  std::string failed;
  size_t unjudged = 0;
  for (const auto& r : out.runs) {
    if (r.role == "measure" && r.left_out.rfind("failed its quality gate", 0) == 0) {
      failed += (failed.empty() ? "" : ", ") + std::to_string(r.run_id) + " (point " + std::to_string(r.point) +
                ", repeat " + std::to_string(r.repeat + 1) + ")";
    }
    if (r.role == "rejected") {
      rerun += (rerun.empty() ? "" : ", ") + std::to_string(r.run_id) + " (point " + std::to_string(r.point) +
               ", repeat " + std::to_string(r.repeat + 1) + ")";
    }
    if (r.role == "measure" && r.left_out.empty() && !r.run.value("quality", json()).is_object()) ++unjudged;
  }
  if (!rerun.empty()) out.notes.push_back("re-run after failing their quality gate, not counted: runs " + rerun);
  if (!failed.empty()) {
    out.notes.push_back("failed their quality gate on every try, left out of the figures: runs " + failed +
                        " (energyctl show RUN says why)");
  }
  if (unjudged > 0) {
    out.notes.push_back(std::to_string(unjudged) +
                        " counted runs have no stored quality verdict (energyctl show RUN judges one)");
  }
}

void sample_runs(SweepResults& out) {
  for (auto& r : out.runs) {
    if (r.role == "measure" || r.role == "baseline") r.left_out = left_out_reason(r);
  }
  note_quality(out);
  if (!every_counted_has_items(out.runs)) {
    out.unit = "run";
    out.notes.push_back("not every counted run has an item count (of at least 1): figures are per run");
  }
  for (auto& r : out.runs) {
    if (r.role != "measure" || !r.left_out.empty()) continue;
    const json& s = summary_of(r);
    double energy = s["energy_j"].get<double>(), duration = s["duration_s"].get<double>();
    double items = out.unit == "item" ? r.run["items"].get<double>() : 1.0;
    std::optional<double> idle = idle_power_before(out.runs, r);
    std::optional<double> net;
    if (idle) net = net_energy(energy, *idle * duration);
    r.sample = RunSample{energy / items, net ? std::optional<double>(*net / items) : std::nullopt, duration / items,
                         energy / duration};
    const json tags = r.run.value("tags", json::object());
    const json p = tags.is_object() ? tags.value("energyd.precision_j", json()) : json();
    if (p.is_string()) {
      const std::string text = p.get<std::string>();
      char* end = nullptr;
      double v = std::strtod(text.c_str(), &end);
      if (!text.empty() && end == text.c_str() + text.size() && std::isfinite(v) && v >= 0) r.precision = v / items;
    }
  }
}

Status group_points(SweepResults& out) {
  std::map<int64_t, std::vector<RunSample>> by_point;
  std::map<int64_t, std::vector<std::optional<double>>> precision;
  for (const auto& r : out.runs) {
    if (!r.sample) continue;
    by_point[r.point].push_back(*r.sample);
    precision[r.point].push_back(r.precision);
  }
  for (const auto& [point, samples] : by_point) {
    auto stats = point_stats(samples);
    if (!stats) return stats.take_error();
    PointResult p{static_cast<size_t>(point), std::move(stats).value(), std::nullopt};
    const auto& ps = precision[point];
    if (std::all_of(ps.begin(), ps.end(), [](const std::optional<double>& v) { return v.has_value(); })) {
      double sum = 0;
      for (const auto& v : ps) sum += *v;
      p.precision = sum / static_cast<double>(ps.size());
    }
    out.points.push_back(p);
  }
  return ok_status();
}

std::vector<PointStats> stats_of(const SweepResults& r) {
  std::vector<PointStats> out;
  for (const auto& p : r.points) out.push_back(p.stats);
  return out;
}

bool is_dvfs(const SweepResults& r, size_t i) {
  return r.layout && r.points[i].point < r.layout->points.size() && r.layout->points[r.points[i].point].dvfs;
}

std::vector<std::string> params_of(const SweepResults& r, size_t i) {
  if (!r.layout || r.points[i].point >= r.layout->points.size()) return {};
  return r.layout->points[r.points[i].point].params;
}

// For each DVFS point: the clock point of the same parameters with the least energy.
void compare_with_dvfs(SweepResults& r) {
  for (size_t d = 0; d < r.points.size(); ++d) {
    if (!is_dvfs(r, d)) continue;
    std::optional<size_t> best;
    for (size_t i = 0; i < r.points.size(); ++i) {
      if (is_dvfs(r, i) || params_of(r, i) != params_of(r, d)) continue;
      if (!best || r.points[i].stats.energy.mean < r.points[*best].stats.energy.mean) best = i;
    }
    if (!best) continue;
    DvfsComparison c{d, *best, saving_against(r.points[*best].stats, r.points[d].stats), std::nullopt};
    const auto& a = r.points[*best].precision;
    const auto& b = r.points[d].precision;
    if (a && b) c.combined_precision = std::hypot(*a, *b);
    r.dvfs.push_back(c);
  }
}

void find_extremes(SweepResults& r) {
  if (r.points.empty()) return;
  auto stats = stats_of(r);
  if (auto m = minimum_energy(stats, EnergyKind::kTotal)) r.minimum = *m;
  if (auto m = minimum_energy(stats, EnergyKind::kNet)) r.minimum_net = *m;
  if (auto f = fastest_point(stats)) r.fastest = *f;
  r.pareto = pareto_front(stats);
  if (auto e = edp_minimum(stats)) r.edp = *e;
  compare_with_dvfs(r);
}

void note_coverage(SweepResults& r) {
  size_t left_out = 0;
  for (const auto& run : r.runs) left_out += run.role == "measure" && !run.left_out.empty() ? 1u : 0u;
  if (left_out > 0) r.notes.push_back(std::to_string(left_out) + " measure run(s) not counted (see the runs)");
  if (!r.minimum_net && !r.points.empty())
    r.notes.push_back("no net energy: the sweep has no idle baseline run before its measured runs");
}

}  // namespace

Result<SweepResults> sweep_results_from(const json& show_reply) {
  const json& sweep = show_reply.is_object() ? show_reply.value("sweep", json()) : json();
  if (!sweep.is_object()) return make_error(ErrorCode::kProtocol, "sweep.show's reply has no \"sweep\" object");
  SweepResults out;
  out.sweep = sweep;
  out.sweep.erase("runs");
  const json spec = sweep.value("spec", json());
  out.search = spec.is_object() && spec.value("search", json()).is_object();
  auto layout = sweep_layout(sweep.value("spec", json()));
  if (layout) {
    out.planned_points = layout->points.size();
    out.layout = std::move(layout).value();
  } else {
    out.notes.push_back(layout.error().message + "; points are shown by number");
  }
  for (const auto& j : sweep.value("runs", json::array())) out.runs.push_back(row_of(j));
  sample_runs(out);
  if (auto st = group_points(out); !st) return st.take_error();
  find_extremes(out);
  note_coverage(out);
  return out;
}

std::string result_label(const SweepResults& r, size_t i) {
  size_t point = r.points[i].point;
  return r.layout ? point_label(*r.layout, point) : "point " + std::to_string(point);
}

}  // namespace energy::cli
