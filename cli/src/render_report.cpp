// Text form of a run report: one row per rail, then the module total.
#include <sstream>

#include "command.h"
#include "pin_args.h"
#include "render_context.h"
#include "report_sections.h"
#include "table.h"

namespace energy::cli {
namespace {

// "+-X" for a bound; "-" when the report has none (an older energyd has no precision_j).
std::string bound_cell(const nlohmann::json& s, const char* key) {
  const auto& v = member(s, key);
  return v.is_number() ? "+-" + fixed(v.get<double>(), 4) : "-";
}

std::vector<std::string> stats_row(const std::string& name, const nlohmann::json& s) {
  return {name,
          fixed(s.value("energy_j", 0.0), 4),
          bound_cell(s, "precision_j"),
          bound_cell(s, "error_bound_j"),
          fixed(s.value("avg_power_w", 0.0), 3),
          fixed(s.value("peak_power_w", 0.0), 3),
          std::to_string(s.value("samples", 0)),
          percent(s.value("coverage", 0.0)),
          fixed(static_cast<double>(s.value("largest_gap_ns", int64_t{0})) / 1e6, 1)};
}

std::string lease_text(const nlohmann::json& pin) {
  std::string text = std::to_string(pin.value("lease", 0));
  if (pin.contains("run")) text += " (this run)";
  return text;
}

// The clocks pinned during the run (mark.stop's clock_pins); empty when none.
std::string clock_pins_text(const nlohmann::json& pins) {
  if (!pins.is_array() || pins.empty()) return "";
  Table t({{"CLOCK"}, {"LEASE"}, {"REQUESTED MHz", Align::kRight}, {"ACHIEVED MHz", Align::kRight}, {"GOVERNOR"}});
  for (const auto& p : pins) {
    for (const auto& d : member(p, "domains")) {
      std::string gov = d.value("achieved_governor", "");
      std::string asked = d.value("requested_governor", "");
      if (!asked.empty() && asked != gov) gov += " (asked " + asked + ")";
      t.add_row({d.value("domain", ""), lease_text(p),
                 range_text(member(d, "requested_min_hz"), member(d, "requested_max_hz")),
                 range_text(member(d, "achieved_min_hz"), member(d, "achieved_max_hz")), gov});
    }
  }
  return "\nclocks pinned during the run (achieved = read back after the pin):\n" + t.render();
}

}  // namespace

std::string render_report(const nlohmann::json& rep) {
  std::ostringstream out;
  const auto& run = member(rep, "run");
  out << "run " << run.value("id", 0) << " (" << safe_text(run, "name") << ") " << safe_text(run, "state") << " after "
      << duration_text(rep.value("duration_s", 0.0)) << "\n\n";
  Table t({{"RAIL"},
           {"ENERGY J", Align::kRight},
           {"PRECISION J", Align::kRight},
           {"ACCURACY J", Align::kRight},
           {"AVG W", Align::kRight},
           {"PEAK W", Align::kRight},
           {"SAMPLES", Align::kRight},
           {"COVERAGE", Align::kRight},
           {"MAX GAP ms", Align::kRight}});
  for (const auto& r : member(rep, "rails")) {
    t.add_row(stats_row(r.value("label", "") + (r.value("in_total", false) ? " *" : ""), r));
  }
  t.add_row(stats_row("TOTAL", member(rep, "total")));
  out << t.render() << "\n* = in total: " << safe_text(rep, "total_rule") << "\n"
      << "PRECISION J: how far the energy can be from what the monitors' readings stand for (sampling,\n"
         "integration, resolution): compare runs on one board with it. ACCURACY J adds the monitors' gain and\n"
         "offset errors and the shunts' tolerance: the bound on the distance from the true energy\n"
         "(docs/PROTOCOL.md, \"Error bound\")\n";
  for (const auto& m : member(rep, "missing_rails"))
    out << "missing: " << terminal_safe(m.get<std::string>()) << " has no readings in this run\n";
  out << render_run_context(rep);
  out << clock_pins_text(member(rep, "clock_pins"));
  out << baseline_text(rep) << per_item_text(rep) << quality_text(rep) << attribution_text(rep) << notes_text(rep);
  return out.str();
}

}  // namespace energy::cli
