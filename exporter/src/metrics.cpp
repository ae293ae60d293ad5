#include "metrics.h"

#include <algorithm>
#include <set>

#include "exposition.h"

namespace energy::exporter {

namespace {

using nlohmann::json;
using Samples = std::vector<MetricSample>;
constexpr MetricType kCounter = MetricType::kCounter;
constexpr MetricType kGauge = MetricType::kGauge;

// A number field of `j`, or nullopt when absent or not a number.
std::optional<double> number(const json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string text(const json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// A member of `j` (a copy), or null when `j` is no object or lacks it.
json member(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it != j.end() ? *it : json();
}

const json& array(const json& j, const char* key) {
  static const json empty = json::array();
  if (!j.is_object()) return empty;
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : empty;
}

// One sample per element of `items` that has `field`, labelled by `label_key`.
Samples per_item(const json& items, const char* label_name, const char* label_key, const char* field,
                 double scale = 1.0) {
  Samples out;
  for (const auto& it : items) {
    auto v = number(it, field);
    if (v) out.push_back({{{label_name, text(it, label_key)}}, *v * scale});
  }
  return out;
}

void energy_counters(Exposition& e, const json& c, CounterGuard& guard) {
  std::string id = text(c, "counters_id");
  if (id.empty()) return;
  Samples rails;
  for (const auto& r : array(c, "rails")) {
    auto j = number(r, "energy_j");
    if (j) rails.push_back({{{"rail", text(r, "label")}}, guard.serve("rail:" + text(r, "label"), id, *j)});
  }
  e.family("energyd_energy_joules_total", kCounter,
           "Energy of each rail since the counters were created, in joules (downtime adds nothing).", rails);
  if (auto total = number(member(c, "total"), "energy_j")) {
    e.single("energyd_module_energy_joules_total", kCounter,
             "Energy of the module total (the rails of energyd_board_info's total_rails), in joules.",
             guard.serve("total", id, *total));
  }
  auto created = number(c, "created_wall_ns");
  e.family("energyd_energy_counters_created_timestamp_seconds", kGauge,
           "When the energy counters started from zero (Unix time); counters_id changes with it.",
           {{{{"counters_id", id}}, created.value_or(0) / 1e9}});
}

void rail_gauges(Exposition& e, const json& status) {
  const json& rails = array(status, "rails");
  e.family("energyd_power_watts", kGauge, "Latest power of each rail, in watts.",
           per_item(rails, "rail", "label", "power_w"));
  e.family("energyd_voltage_volts", kGauge, "Latest bus voltage of each rail, in volts.",
           per_item(rails, "rail", "label", "voltage_v"));
  e.family("energyd_current_amperes", kGauge, "Latest current of each rail, in amperes.",
           per_item(rails, "rail", "label", "current_a"));
  e.family("energyd_rail_read_errors_total", kCounter, "Failed reads of each rail since energyd started.",
           per_item(rails, "rail", "label", "read_errors"));
  Samples up;
  for (const auto& r : rails) up.push_back({{{"rail", text(r, "label")}}, r.contains("errno") ? 0.0 : 1.0});
  e.family("energyd_rail_up", kGauge, "1 when the rail's latest read succeeded, 0 when it failed.", up);
  if (auto p = number(member(status, "total"), "power_w")) {
    e.single("energyd_module_power_watts", kGauge, "Latest power of the module total, in watts.", *p);
  }
}

void sampler_health(Exposition& e, const json& status) {
  const json s = member(status, "sampler");
  auto put = [&](const char* name, MetricType t, const char* help, const char* field, double scale) {
    if (auto v = number(s, field)) e.single(name, t, help, *v * scale);
  };
  put("energyd_sampler_ticks_total", kCounter, "Sampling ticks since energyd started.", "ticks", 1);
  put("energyd_sampler_missed_ticks_total", kCounter, "Ticks missed because a sweep overran.", "missed_ticks", 1);
  put("energyd_sampler_stalls_total", kCounter, "Reads that blocked past the stall limit.", "stalls", 1);
  put("energyd_sampler_lateness_p99_seconds", kGauge, "99th percentile of tick lateness since start, in seconds.",
      "lateness_p99_ns", 1e-9);
  put("energyd_sampler_max_lateness_seconds", kGauge, "Largest tick lateness since start, in seconds.",
      "max_lateness_ns", 1e-9);
  put("energyd_sampler_period_seconds", kGauge, "The sampling period, in seconds.", "period_ms", 1e-3);
}

void storage_health(Exposition& e, const json& status) {
  const json s = member(status, "storage");
  auto put = [&](const char* name, MetricType t, const char* help, const char* field) {
    if (auto v = number(s, field)) e.single(name, t, help, *v);
  };
  if (s.contains("healthy") && s["healthy"].is_boolean()) {
    e.single("energyd_storage_healthy", kGauge, "1 while the database takes commits, else 0.",
             s["healthy"].get<bool>() ? 1 : 0);
  }
  put("energyd_storage_failed_commits_total", kCounter, "Database transactions that failed.", "failed_commits");
  put("energyd_storage_dropped_samples_total", kCounter, "Sweeps lost to the memory bound while storage failed.",
      "dropped_samples");
  put("energyd_storage_queued_samples", kGauge, "Sweeps not yet committed.", "queued_samples");
}

void runs(Exposition& e, const json& status) {
  const json& open = array(status, "open_runs");
  e.single("energyd_open_runs", kGauge, "Runs started and not yet stopped.", static_cast<double>(open.size()));
  std::map<std::string, double> by_name;
  for (const auto& r : open) ++by_name[text(r, "name")];
  Samples named;
  for (const auto& [name, n] : by_name) {
    if (named.size() == kMaxRunNames) break;
    named.push_back({{{"run", name}}, n});
  }
  e.family("energyd_open_runs_by_name", kGauge, "Open runs per run name (at most 32 names, sorted).", named);
}

// The newest stopped run of each name among the newest kMaxRunNames
// (runs.list is newest first, so the first of a name wins).
void last_runs(Exposition& e, const json& stopped) {
  std::set<std::string> seen;
  Samples energy, ended;
  for (const auto& r : array(stopped, "runs")) {
    std::string name = text(r, "name");
    if (seen.size() == kMaxRunNames || !seen.insert(name).second) continue;
    auto j = number(member(r, "summary"), "energy_j");
    auto stop = number(r, "stop_wall_ns");
    if (j) energy.push_back({{{"run", name}}, *j});
    if (stop) ended.push_back({{{"run", name}}, *stop / 1e9});
  }
  e.family("energyd_last_run_energy_joules", kGauge,
           "Module energy of the newest stopped run of each name (names of the 32 newest stopped runs).", energy);
  e.family("energyd_last_run_stop_timestamp_seconds", kGauge, "When that run stopped (Unix time).", ended);
}

void info(Exposition& e, const json& status, const std::string& exporter_version) {
  e.family("energyd_build_info", kGauge, "energyd's and the exporter's versions; always 1.",
           {{{{"version", text(status, "version")}, {"exporter_version", exporter_version}}, 1}});
  const json board = member(status, "board");
  std::string total;
  const json total_obj = member(status, "total");
  for (const auto& r : array(total_obj, "rails")) {
    if (r.is_string()) total += (total.empty() ? "" : "+") + r.get<std::string>();
  }
  e.family(
      "energyd_board_info", kGauge, "The board energyd measures; always 1.",
      {{{{"model", text(board, "model")}, {"l4t_release", text(board, "l4t_release")}, {"total_rails", total}}, 1}});
  if (auto up = number(status, "uptime_s"))
    e.single("energyd_uptime_seconds", kGauge, "Time since energyd started.", *up);
}

// The domains some active lease pins, with the earliest lease's creation.
std::map<std::string, double> pinned_since(const json& leases) {
  std::map<std::string, double> out;
  for (const auto& l : array(leases, "leases")) {
    auto created = number(l, "created_wall_ns");
    for (const auto& d : array(l, "domains")) {
      std::string name = text(d, "domain");
      double t = created.value_or(0) / 1e9;
      auto it = out.find(name);
      if (it == out.end() || t < it->second) out[name] = t;
    }
  }
  return out;
}

void clocks(Exposition& e, const json& clocks, const json& leases) {
  const json& domains = array(clocks, "domains");
  e.family("energyd_clock_hertz", kGauge, "Current frequency of each clock domain, in hertz.",
           per_item(domains, "domain", "name", "cur_hz"));
  auto pins = pinned_since(leases);
  Samples infos, pinned, since;
  for (const auto& d : domains) {
    std::string name = text(d, "name");
    bool is_pinned = pins.count(name) > 0;
    infos.push_back({{{"domain", name}, {"kind", text(d, "kind")}, {"governor", text(d, "governor")}}, 1});
    pinned.push_back({{{"domain", name}}, is_pinned ? 1.0 : 0.0});
    if (is_pinned) since.push_back({{{"domain", name}}, pins[name]});
  }
  e.family("energyd_clock_info", kGauge, "Each clock domain's kind and governor; always 1.", infos);
  e.family("energyd_clock_pinned", kGauge, "1 while an energyd lease pins the domain.", pinned);
  e.family("energyd_clock_pinned_since_timestamp_seconds", kGauge,
           "When the oldest lease pinning the domain was created (Unix time).", since);
  e.family("energyd_temperature_celsius", kGauge, "Temperature of each thermal zone, in degrees Celsius.",
           per_item(array(clocks, "thermal"), "zone", "type", "temp_c"));
}

}  // namespace

double CounterGuard::serve(const std::string& key, const std::string& counters_id, double value) {
  auto it = held_.find(key);
  if (it == held_.end() || it->second.counters_id != counters_id || value >= it->second.value) {
    held_[key] = Held{counters_id, value};
    return value;
  }
  return it->second.value;
}

std::string render_metrics(const EnergydAnswers& a, CounterGuard& guard, const std::string& exporter_version) {
  Exposition e;
  e.single("energyd_up", kGauge, "1 when energyd answered this scrape, else 0.", a.up ? 1 : 0);
  e.single("energyd_exporter_query_seconds", kGauge, "Time the exporter's queries to energyd took.", a.scrape_seconds);
  if (!a.up) return e.text();
  info(e, a.status, exporter_version);
  if (a.counters.is_object()) energy_counters(e, a.counters, guard);
  rail_gauges(e, a.status);
  sampler_health(e, a.status);
  storage_health(e, a.status);
  runs(e, a.status);
  if (a.stopped_runs.is_object()) last_runs(e, a.stopped_runs);
  if (a.clocks.is_object()) clocks(e, a.clocks, a.leases);
  return e.text();
}

}  // namespace energy::exporter
