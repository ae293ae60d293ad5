#include "run_reports.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "energy/baseline.h"
#include "energy/quality.h"
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
                             seconds_text(rep.total.largest_gap_ns) + "); energy there is bridged linearly");
  }
}

std::string gap_cause_text(const RunGap& g) {
  switch (g.cause) {
    case GapCause::kReadErrors: {
      std::string rails;
      for (const auto& r : g.rails) rails += (rails.empty() ? "" : ", ") + r;
      return std::to_string(g.failed_reads) + " failed read" + (g.failed_reads == 1 ? "" : "s") + " on " + rails;
    }
    case GapCause::kEnergydStopped: return "energyd was not running";
    case GapCause::kSamplerStalled:
      return "the sampler stalled (energyd was running but took no reading: its process stopped or starved of CPU)";
  }
  return "";
}

// One note per listed gap: where it is in the run, how long, and why.
void add_gap_notes(const RunReport& rep, const Quality& q, nlohmann::json& out) {
  for (const auto& g : q.gaps) {
    add_report_note(out, "gap of " + seconds_text(g.end_ns - g.begin_ns) + " at +" +
                             seconds_text(g.begin_ns - rep.window.begin_ns) + ": " + gap_cause_text(g));
  }
  if (q.gaps_not_listed > 0) {
    add_report_note(out, std::to_string(q.gaps_not_listed) + " more gaps are not listed");
  }
}

Result<std::vector<RunOverlap>> overlaps_of(Store& store, const RunReport& rep) {
  std::vector<RunOverlap> out;
  auto others = store.runs().overlapping(rep.run.boot, rep.window, rep.run.id);
  if (!others) return others.take_error();
  for (const auto& o : *others) {
    int64_t end = std::min(rep.window.end_ns, o.stop_ns.value_or(rep.window.end_ns));
    int64_t begin = std::max(rep.window.begin_ns, o.start_ns);
    if (end <= begin) continue;
    out.push_back(RunOverlap{o.id, o.name, end - begin, o.state == RunState::kOpen});
  }
  return out;
}

int64_t external_clock_changes(const nlohmann::json& clocks, EnergyWindow w) {
  if (!clocks.is_object()) return 0;
  auto it = clocks.find("clock_events");
  if (it == clocks.end() || !it->is_array()) return 0;
  int64_t n = 0;
  for (const auto& e : *it) {
    if (!e.is_object() || e.value("kind", "") != "external_change") continue;
    auto t = e.value("boot_ns", int64_t{0});
    if (t >= w.begin_ns && t <= w.end_ns) ++n;
  }
  return n;
}

// The verdict on the report's figures (quality.h), from the run's own
// period and gate where it recorded them.
Result<Quality> judge(Store& store, const RunReport& rep, int64_t period_ns, bool period_recorded,
                      const nlohmann::json& clocks, nlohmann::json& out) {
  QualityInputs in;
  in.period_ns = period_ns;
  in.period_recorded = period_recorded;
  auto gate = gate_from_tags(rep.run);
  if (gate) {
    in.gate = *gate;
  } else {
    add_report_note(out, gate.error().message + "; the default gate judged it");
  }
  auto overlaps = overlaps_of(store, rep);
  if (!overlaps) return overlaps.take_error();
  in.overlaps = std::move(overlaps).value();
  in.external_clock_changes = external_clock_changes(clocks, rep.window);
  in.averaging_window_ns = recorded_averaging_window_ns(rep.run);
  Quality q = judge_run(rep, in);
  if (!period_recorded) {
    add_report_note(out,
                    "the run has no recorded sampling period (tag energyd.period_ms: it was started by an "
                    "older energyd): today's period, " +
                        seconds_text(period_ns) + ", judged its gaps");
  }
  return q;
}

// A run that names its processes: its CPU attribution as stored at its stop.
void add_attribution(const RunRecord& run, nlohmann::json& out) {
  auto pid = run_tag(run, kRunPidTag);
  if (!pid) return;
  auto stored = run_tag(run, kRunCpuAttributionTag);
  std::optional<CpuAttribution> a;
  if (stored) a = attribution_from_json(nlohmann::json::parse(*stored, nullptr, false));
  if (!a) {
    a = CpuAttribution{};
    a->reason = run.state == RunState::kOpen ? "computed when the run stops" : "not recorded with the run";
  }
  a->pid = std::strtoll(pid->c_str(), nullptr, 10);
  out["attribution"] = attribution_to_json(*a, out.value("total", nlohmann::json::object()).value("energy_j", 0.0));
}

// A run with items: the total's energy (and net energy, with a baseline) per item.
void add_per_item(const RunRecord& run, nlohmann::json& out) {
  if (!run.items) return;
  nlohmann::json& total = out["total"];
  total["energy_per_item_j"] = total.value("energy_j", 0.0) / *run.items;
  if (total.contains("net_j")) total["net_per_item_j"] = total["net_j"].get<double>() / *run.items;
}

}  // namespace

CpuAttribution cpu_attribution(Store& store, const RunRecord& run, const std::vector<CpuSnapshot>& snapshots) {
  CpuAttribution a;
  auto rails = store.rails();
  if (!rails) {
    a.reason = rails.error().describe();
    return a;
  }
  std::vector<std::string> labels;
  for (const auto& r : *rails) labels.push_back(r.label);
  auto cpu = cpu_rail_labels(labels);
  if (cpu.empty()) {
    auto shared = shared_cpu_rail_labels(labels);
    a.reason = shared.empty() ? "the board has no CPU rail"
                              : "the CPU shares its rail (" + shared.front() +
                                    ") with the GPU or the vision accelerators: its energy cannot be split by CPU time";
    return a;
  }
  auto energy = [&](EnergyWindow w) -> Result<double> {
    double j = 0;
    for (const auto& r : *rails) {
      if (std::find(cpu.begin(), cpu.end(), r.label) == cpu.end()) continue;
      auto e = store.readings().energy(run.boot, r.id, w);
      if (!e) return e.take_error();
      if (!e->has_value()) return make_error(ErrorCode::kNotFound, "no stored energy of " + r.label);
      j += (*e)->energy_uj / 1e6;
    }
    return j;
  };
  auto got = attribute_cpu(snapshots, run.id, EnergyWindow{run.start_ns, run.stop_ns.value_or(run.start_ns)}, energy);
  if (!got) {
    a.reason = got.error().describe();
    return a;
  }
  a = *got;
  a.cpu_rails = cpu;
  return a;
}

nlohmann::json stored_clocks(const RunRecord& run) {
  if (!run.clocks_json) return nullptr;
  auto j = nlohmann::json::parse(*run.clocks_json, nullptr, false);
  return j.is_object() ? j : nlohmann::json();
}

Result<nlohmann::json> run_report_json(Store& store, const RunRecord& run, int64_t end_ns, int64_t daemon_period_ns,
                                       const nlohmann::json& clocks) {
  auto recorded = recorded_period_ns(run);
  const int64_t period_ns = recorded.value_or(daemon_period_ns);
  const int64_t gap_threshold_ns = gap_threshold_for(period_ns);
  auto report = build_run_report(store, run, end_ns, gap_threshold_ns);
  if (!report) return report.take_error();
  nlohmann::json out = report_to_json(*report);
  add_state_notes(*report, out);
  auto q = judge(store, *report, period_ns, recorded.has_value(), clocks, out);
  if (!q) return q.take_error();
  add_gap_notes(*report, *q, out);
  out["quality"] = quality_to_json(*q);
  add_attribution(run, out);
  auto st = apply_baseline(store, *report, gap_threshold_ns, out);
  if (!st) return st.take_error();
  add_per_item(run, out);
  for (const char* key : {"clock_pins", "clock_events"}) {
    if (clocks.is_object() && clocks.contains(key)) out[key] = clocks[key];
  }
  return out;
}

}  // namespace energy::daemon
