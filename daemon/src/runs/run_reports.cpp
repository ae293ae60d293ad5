#include "run_reports.h"

#include <cstdio>

#include "energy/baseline.h"
#include "energy/report.h"

namespace energy::daemon {
namespace {

std::string seconds_text(int64_t ns) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(ns) / 1e9);
  return buf;
}

// How complete the figures are: a run still open, one cut short by a
// reboot, time without readings (e.g. while energyd was down).
void add_state_notes(const RunReport& rep, nlohmann::json& out) {
  const RunRecord& run = rep.run;
  if (run.state == RunState::kOpen) {
    add_report_note(out, "run " + std::to_string(run.id) + " is still open: figures up to its newest stored reading");
    out["until_ns"] = rep.window.end_ns;
  }
  if (run.state == RunState::kInterrupted) {
    add_report_note(out, "run " + std::to_string(run.id) +
                             " was interrupted: the board rebooted while it was open; it ends at its boot's last "
                             "stored reading");
  }
  if (rep.total.gap_ns > 0) {
    add_report_note(out, seconds_text(rep.total.gap_ns) + " of the run had no readings (largest gap " +
                             seconds_text(rep.total.largest_gap_ns) +
                             ", e.g. while energyd was stopped); energy there is bridged linearly");
  }
}

// A run with items: the total's energy (and net energy, with a baseline) per item.
void add_per_item(const RunRecord& run, nlohmann::json& out) {
  if (!run.items) return;
  nlohmann::json& total = out["total"];
  total["energy_per_item_j"] = total.value("energy_j", 0.0) / *run.items;
  if (total.contains("net_j")) total["net_per_item_j"] = total["net_j"].get<double>() / *run.items;
}

}  // namespace

nlohmann::json stored_clocks(const RunRecord& run) {
  if (!run.clocks_json) return nullptr;
  auto j = nlohmann::json::parse(*run.clocks_json, nullptr, false);
  return j.is_object() ? j : nlohmann::json();
}

Result<nlohmann::json> run_report_json(Store& store, const RunRecord& run, int64_t end_ns, int64_t gap_threshold_ns,
                                       const nlohmann::json& clocks) {
  auto report = build_run_report(store, run, end_ns, gap_threshold_ns);
  if (!report) return report.take_error();
  nlohmann::json out = report_to_json(*report);
  add_state_notes(*report, out);
  auto st = apply_baseline(store, *report, gap_threshold_ns, out);
  if (!st) return st.take_error();
  add_per_item(run, out);
  for (const char* key : {"clock_pins", "clock_events"}) {
    if (clocks.is_object() && clocks.contains(key)) out[key] = clocks[key];
  }
  return out;
}

}  // namespace energy::daemon
