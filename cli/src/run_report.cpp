#include "run_report.h"

#include <signal.h>

#include <sstream>

#include "command.h"
#include "run_stats.h"
#include "table.h"

namespace energy::cli {
namespace {

struct ReportMetric {
  const char* key;    // JSON key in the summary
  const char* title;  // row title in the text summary
  int decimals;
};
constexpr ReportMetric kReportEnergy{"energy_j", "ENERGY J", 4};
constexpr ReportMetric kReportDuration{"duration_s", "DURATION s", 3};
constexpr ReportMetric kReportPower{"avg_power_w", "AVG POWER W", 3};
constexpr ReportMetric kReportPerItem{"energy_per_item_j", "J PER ITEM", 6};
// With an idle baseline: what the workload added to the idle board.
constexpr ReportMetric kReportNet{"net_energy_j", "NET J", 4};
constexpr ReportMetric kReportNetPerItem{"net_energy_per_item_j", "NET J PER ITEM", 6};

// The value of one metric in one run's report; absent rather than zero.
std::optional<double> metric_of(const Repeat& r, const ReportMetric& m, std::optional<double> items) {
  if (!r.report) return std::nullopt;
  const auto& total = member(*r.report, "total");
  std::string key = m.key;
  if (key == kReportDuration.key) return number_of(member(*r.report, "duration_s"));
  if (key == kReportPower.key) return number_of(member(total, "avg_power_w"));
  const bool net = key == kReportNet.key || key == kReportNetPerItem.key;
  auto energy = number_of(member(total, net ? "net_j" : "energy_j"));
  if (key == kReportEnergy.key || key == kReportNet.key) return energy;
  if (!energy || !items) return std::nullopt;
  return *energy / *items;
}

// A run whose report failed its quality gate (docs/PROTOCOL.md "Quality").
bool failed_gate(const Repeat& r) {
  if (!r.report) return false;
  const auto& q = member(*r.report, "quality");
  return q.is_object() && q.value("verdict", "") == "fail";
}

// The summary rests on runs whose command succeeded and whose data passed its gate.
bool counts_in_summary(const Repeat& r) { return r.exit_status == 0 && r.report.has_value() && !failed_gate(r); }

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json summary_entry(const Summary& s) {
  bool spread = s.ci95_half.has_value();
  return {{"mean", s.mean},
          {"stddev", optional_json(s.stddev)},
          {"ci95_low", spread ? nlohmann::json(s.ci95_low()) : nlohmann::json()},
          {"ci95_high", spread ? nlohmann::json(s.ci95_high()) : nlohmann::json()},
          {"min", s.min},
          {"max", s.max}};
}

// Net figures when any run's report has them (its baseline applied).
bool any_net(const std::vector<Repeat>& repeats) {
  for (const auto& r : repeats) {
    if (r.report && number_of(member(member(*r.report, "total"), "net_j"))) return true;
  }
  return false;
}

std::vector<ReportMetric> metrics(const std::vector<Repeat>& repeats, std::optional<double> items) {
  std::vector<ReportMetric> out = {kReportEnergy, kReportDuration, kReportPower};
  if (items) out.push_back(kReportPerItem);
  if (!any_net(repeats)) return out;
  out.push_back(kReportNet);
  if (items) out.push_back(kReportNetPerItem);
  return out;
}

std::optional<Summary> summarize_metric(const std::vector<Repeat>& repeats, const ReportMetric& m,
                                        std::optional<double> items) {
  std::vector<double> values;
  for (const auto& r : repeats) {
    auto v = counts_in_summary(r) ? metric_of(r, m, items) : std::nullopt;
    if (v) values.push_back(*v);
  }
  auto s = summarize(values);
  if (!s) return std::nullopt;
  return *s;
}

std::string outcome_text(const Repeat& r) {
  if (!r.exec_error.empty()) return "not started: " + r.exec_error + " (status " + std::to_string(r.exit_status) + ")";
  if (r.died_of_signal != 0) {
    return "killed by " + signal_name(r.died_of_signal) + " (status " + std::to_string(r.exit_status) + ")";
  }
  return "exited with status " + std::to_string(r.exit_status);
}

nlohmann::json repeat_json(const Repeat& r, std::optional<double> items) {
  nlohmann::json j = {{"repeat", r.index}, {"run_id", r.run_id}, {"exit_status", r.exit_status}};
  if (r.died_of_signal != 0) j["signal"] = signal_name(r.died_of_signal);
  if (!r.exec_error.empty()) j["exec_error"] = r.exec_error;
  if (r.report) j["report"] = *r.report;
  if (!r.stop_error.empty()) j["error"] = r.stop_error;
  auto per_item = metric_of(r, kReportPerItem, items);
  if (per_item) j["energy_per_item_j"] = *per_item;
  return j;
}

std::string cell(const std::optional<double>& v, int decimals) { return v ? fixed(*v, decimals) : "-"; }

std::string runs_table(const RunDocument& doc) {
  Table t({{"RUN", Align::kRight},
           {"ID", Align::kRight},
           {"EXIT", Align::kRight},
           {"DURATION s", Align::kRight},
           {"ENERGY J", Align::kRight},
           {"AVG W", Align::kRight},
           {"J PER ITEM", Align::kRight}});
  for (const auto& r : doc.repeats) {
    t.add_row({std::to_string(r.index), std::to_string(r.run_id), std::to_string(r.exit_status),
               cell(metric_of(r, kReportDuration, doc.items), 3), cell(metric_of(r, kReportEnergy, doc.items), 4),
               cell(metric_of(r, kReportPower, doc.items), 3), cell(metric_of(r, kReportPerItem, doc.items), 6)});
  }
  return t.render();
}

std::string summary_table(const RunDocument& doc) {
  Table t({{"OVER RUNS"},
           {"MEAN", Align::kRight},
           {"STDDEV", Align::kRight},
           {"95% CI", Align::kRight},
           {"MIN", Align::kRight},
           {"MAX", Align::kRight}});
  for (const auto& m : metrics(doc.repeats, doc.items)) {
    auto s = summarize_metric(doc.repeats, m, doc.items);
    if (!s) continue;
    std::string ci = s->ci95_half ? fixed(s->ci95_low(), m.decimals) + " .. " + fixed(s->ci95_high(), m.decimals) : "-";
    t.add_row({m.title, fixed(s->mean, m.decimals), cell(s->stddev, m.decimals), ci, fixed(s->min, m.decimals),
               fixed(s->max, m.decimals)});
  }
  return t.render();
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

void render_single(const RunDocument& doc, std::ostringstream& out) {
  const Repeat& r = doc.repeats.front();
  if (r.report) out << render_report(*r.report);
  auto per_item = metric_of(r, kReportPerItem, doc.items);
  if (per_item) out << "energy per item: " << fixed(*per_item, 6) << " J (" << fixed(*doc.items, 0) << " items)\n";
  out << "command " << outcome_text(r) << "\n";
}

void render_several(const RunDocument& doc, std::ostringstream& out) {
  out << doc.repeats.size() << " of " << doc.repeat << " runs of '" << terminal_safe(doc.name) << "' ("
      << terminal_safe(command_line(doc.command)) << ")\n\n"
      << runs_table(doc) << "\n";
  if (doc.baseline_run) out << "idle baseline: run " << *doc.baseline_run << " (NET: energy above idle)\n\n";
  auto counted = summary_json(doc.repeats, doc.items);
  if (counted.is_null()) {
    out << "no run both succeeded and was measured: no summary\n";
    return;
  }
  out << summary_table(doc) << "\nsummary over " << counted["runs"].get<int>()
      << " runs whose command exited 0 and whose data passed its quality gate; 95% CI: Student t interval of the "
         "mean\n";
  for (const auto& r : doc.repeats) {
    if (r.exit_status == 0 && failed_gate(r))
      out << "run " << r.run_id << " failed its quality gate and is left out (energyctl show " << r.run_id << ")\n";
  }
  const Repeat& last = doc.repeats.back();
  if (last.exit_status != 0) out << "stopped after run " << last.index << ": command " << outcome_text(last) << "\n";
}

}  // namespace

std::string signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    case SIGKILL: return "SIGKILL";
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGPIPE: return "SIGPIPE";
    default: return "signal " + std::to_string(sig);
  }
}

nlohmann::json summary_json(const std::vector<Repeat>& repeats, std::optional<double> items) {
  size_t runs = 0;
  for (const auto& r : repeats) {
    if (counts_in_summary(r)) ++runs;
  }
  if (runs == 0) return nullptr;
  nlohmann::json j = {{"runs", runs}};
  for (const auto& m : metrics(repeats, items)) {
    auto s = summarize_metric(repeats, m, items);
    j[m.key] = s ? summary_entry(*s) : nlohmann::json();
  }
  return j;
}

nlohmann::json run_document_json(const RunDocument& doc) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : doc.repeats) runs.push_back(repeat_json(r, doc.items));
  nlohmann::json j = {{"name", doc.name},
                      {"command", doc.command},
                      {"repeat", doc.repeat},
                      {"items", optional_json(doc.items)},
                      {"exit_status", doc.exit_status},
                      {"runs", runs},
                      {"summary", summary_json(doc.repeats, doc.items)}};
  if (!doc.interrupted_by.empty()) j["interrupted_by"] = doc.interrupted_by;
  if (doc.baseline_run) j["baseline_run"] = *doc.baseline_run;
  return j;
}

std::string render_run_text(const RunDocument& doc) {
  std::ostringstream out;
  if (doc.repeats.size() == 1 && doc.repeat == 1)
    render_single(doc, out);
  else if (!doc.repeats.empty())
    render_several(doc, out);
  if (!doc.interrupted_by.empty()) out << "interrupted by " << doc.interrupted_by << "\n";
  return out.str();
}

}  // namespace energy::cli
