// Text form of a run report: one row per rail, then the module total.
#include <sstream>

#include "command.h"
#include "table.h"

namespace energy::cli {
namespace {

std::vector<std::string> stats_row(const std::string& name, const nlohmann::json& s) {
  return {name,
          fixed(s.value("energy_j", 0.0), 4),
          fixed(s.value("avg_power_w", 0.0), 3),
          fixed(s.value("peak_power_w", 0.0), 3),
          std::to_string(s.value("samples", 0)),
          percent(s.value("coverage", 0.0)),
          fixed(static_cast<double>(s.value("largest_gap_ns", int64_t{0})) / 1e6, 1)};
}

}  // namespace

std::string render_report(const nlohmann::json& rep) {
  std::ostringstream out;
  const auto& run = member(rep, "run");
  out << "run " << run.value("id", 0) << " (" << run.value("name", "") << ") " << run.value("state", "")
      << " after " << duration_text(rep.value("duration_s", 0.0)) << "\n\n";
  Table t({{"RAIL"}, {"ENERGY J", Align::kRight}, {"AVG W", Align::kRight}, {"PEAK W", Align::kRight},
           {"SAMPLES", Align::kRight}, {"COVERAGE", Align::kRight}, {"MAX GAP ms", Align::kRight}});
  for (const auto& r : member(rep, "rails")) {
    t.add_row(stats_row(r.value("label", "") + (r.value("in_total", false) ? " *" : ""), r));
  }
  t.add_row(stats_row("TOTAL", member(rep, "total")));
  out << t.render() << "\n* = in total: " << rep.value("total_rule", "") << "\n";
  for (const auto& m : member(rep, "missing_rails")) out << "missing: " << m.get<std::string>() << " has no readings in this run\n";
  return out.str();
}

}  // namespace energy::cli
