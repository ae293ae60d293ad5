#include "report_sections.h"

#include <cstdio>

#include "command.h"
#include "table.h"
#include "terminal_text.h"

namespace energy::cli {
namespace {

std::string idle_w(const nlohmann::json& baseline, const std::string& label) {
  for (const auto& r : member(baseline, "rails")) {
    if (r.value("label", "") == label) return number_text(member(r, "avg_power_w"), 3);
  }
  return "-";
}

std::string age_text(double seconds) {
  if (seconds < 0) return "after this run started";
  return duration_text(seconds) + " before this run";
}

std::string baseline_table(const nlohmann::json& rep) {
  const auto& bl = member(rep, "baseline");
  Table t({{"RAIL"},
           {"IDLE W", Align::kRight},
           {"ENERGY J", Align::kRight},
           {"IDLE J", Align::kRight},
           {"NET J", Align::kRight}});
  for (const auto& r : member(rep, "rails")) {
    std::string label = r.value("label", "");
    t.add_row({label + (r.value("in_total", false) ? " *" : ""), idle_w(bl, label),
               number_text(member(r, "energy_j"), 4), number_text(member(r, "idle_j"), 4),
               number_text(member(r, "net_j"), 4)});
  }
  const auto& total = member(rep, "total");
  t.add_row({"TOTAL", number_text(member(member(bl, "total"), "avg_power_w"), 3),
             number_text(member(total, "energy_j"), 4), number_text(member(total, "idle_j"), 4),
             number_text(member(total, "net_j"), 4)});
  return t.render();
}

// A number as short as it is exact enough for a gate: 2, 2.5, 100.
std::string short_number(const nlohmann::json& j) {
  if (!j.is_number()) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", j.get<double>());
  return buf;
}

}  // namespace

std::string verdict_word(const std::string& verdict) {
  if (verdict == "pass") return "PASS";
  if (verdict == "warn") return "WARN";
  if (verdict == "fail") return "FAIL";
  return verdict.empty() ? "-" : verdict;
}

bool is_baseline_report(const nlohmann::json& rep) {
  const auto& kind = member(member(member(rep, "run"), "tags"), "energyd.kind");
  return kind.is_string() && kind.get<std::string>() == "baseline";
}

std::string baseline_text(const nlohmann::json& rep) {
  if (is_baseline_report(rep)) {
    return "\nthis run is an idle baseline: later runs report idle and net energy against it\n";
  }
  const auto& bl = member(rep, "baseline");
  if (!bl.is_object()) {
    return "\nno idle baseline: net energy unknown ('energyctl baseline' measures the idle power)\n";
  }
  return "\nidle baseline: run " + std::to_string(bl.value("run", 0)) + " (" + safe_text(bl, "name") + "), " +
         duration_text(bl.value("duration_s", 0.0)) + ", measured " + age_text(bl.value("age_s", 0.0)) +
         "; idle J = idle W x duration, net J = energy - idle\n" + baseline_table(rep);
}

std::string items_text(double items) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", items);  // 64, 0.5, 1e+12: as given, without padding
  return buf;
}

std::string per_item_text(const nlohmann::json& rep) {
  const auto& total = member(rep, "total");
  const auto& items = member(member(rep, "run"), "items");
  if (!items.is_number() || !total.contains("energy_per_item_j")) return "";
  std::string out = "\nitems: " + items_text(items.get<double>()) + "; energy per item " +
                    fixed(total["energy_per_item_j"].get<double>(), 6) + " J";
  if (total.contains("net_per_item_j")) out += ", net " + fixed(total["net_per_item_j"].get<double>(), 6) + " J";
  return out + "\n";
}

std::string quality_text(const nlohmann::json& rep) {
  const auto& q = member(rep, "quality");
  if (!q.is_object()) return "";
  const auto& gate = member(q, "gate");
  std::string out = "\nquality: " + verdict_word(safe_text(q, "verdict"));
  if (!q.value("final", true)) out += " so far (the run is open)";
  out += " (gate: coverage >= " + percent(number_of(member(gate, "min_coverage")).value_or(0.0)) + ", no gap over " +
         short_number(member(gate, "max_gap_periods")) + " periods of " + short_number(member(q, "period_ms")) + " ms" +
         (member(gate, "exclusive") == true ? ", exclusive" : "") + ")\n";
  for (const auto& c : member(q, "checks")) {
    if (!c.is_object()) continue;
    std::string outcome = c.value("outcome", "");
    if (outcome == "pass") continue;
    out +=
        "  " + verdict_word(terminal_safe(outcome)) + " " + safe_text(c, "name") + ": " + safe_text(c, "detail") + "\n";
  }
  for (const auto& o : member(q, "overlaps")) {
    if (!o.is_object()) continue;
    out += "  overlapped by run " + std::to_string(o.value("id", 0)) + " (" + safe_text(o, "name") + ") for " +
           duration_text(o.value("overlap_s", 0.0)) + "\n";
  }
  return out;
}

std::string attribution_text(const nlohmann::json& rep) {
  const auto& a = member(rep, "attribution");
  if (!a.is_object()) return "";
  std::string pid = std::to_string(a.value("pid", int64_t{0}));
  if (member(a, "available") != true) {
    return "\nCPU attribution (processes of pid " + pid + "): not available: " + safe_text(a, "reason") + "\n";
  }
  std::string rails;
  for (const auto& r : member(a, "cpu_rails")) {
    if (r.is_string()) rails += (rails.empty() ? "" : ", ") + terminal_safe(r.get<std::string>());
  }
  return "\nCPU attribution (processes of pid " + pid + "): " + number_text(member(a, "attributed_j"), 4) + " J of " +
         rails + "'s " + number_text(member(a, "cpu_rails_j"), 4) + " J, by CPU time (" +
         number_text(member(a, "cpu_time_s"), 3) + " s of the board's " +
         number_text(member(a, "board_cpu_time_s"), 3) +
         " s busy); shared with whatever else ran: " + number_text(member(a, "shared_j"), 4) +
         " J (GPU, memory and module energy are never split: Jetson has no per-process GPU time)\n";
}

std::string notes_text(const nlohmann::json& rep) {
  std::string out;
  for (const auto& n : member(rep, "notes")) {
    if (n.is_string()) out += "note: " + terminal_safe(n.get<std::string>()) + "\n";
  }
  return out;
}

}  // namespace energy::cli
