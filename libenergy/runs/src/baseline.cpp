#include "energy/baseline.h"

#include <charconv>
#include <cstdio>

namespace energy {
namespace {

double seconds(int64_t ns) { return static_cast<double>(ns) / 1e9; }

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string run_text(const RunRecord& r) { return "baseline run " + std::to_string(r.id) + " (" + r.name + ")"; }

// Age as people read it: "45 s", "3.2 h", "2.0 days".
std::string age_text(int64_t ns) {
  double s = seconds(ns);
  if (s < 120) return fixed(s, 0) + " s";
  if (s < 7200) return fixed(s / 60, 1) + " min";
  if (s < 172800) return fixed(s / 3600, 1) + " h";
  return fixed(s / 86400, 1) + " days";
}

std::optional<int64_t> parse_id(const std::string& text) {
  int64_t id = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || p != text.data() + text.size() || id <= 0) return std::nullopt;
  return id;
}

nlohmann::json baseline_section(const BaselineUse& use) {
  nlohmann::json rails = nlohmann::json::array();
  for (const auto& [label, w] : use.rail_avg_w) rails.push_back({{"label", label}, {"avg_power_w", w}});
  return {{"run", use.run.id},
          {"name", use.run.name},
          {"start_wall_ns", use.run.start_wall_ns},
          {"duration_s", use.duration_s},
          {"age_s", seconds(use.age_ns)},
          {"same_boot", use.same_boot},
          {"rails", std::move(rails)},
          {"total", {{"avg_power_w", use.total_avg_w}}}};
}

// idle_j and net_j on one statistics object of the report JSON.
void add_idle(nlohmann::json& stats, double avg_w, double duration_s) {
  double idle = avg_w * duration_s;
  stats["idle_j"] = idle;
  stats["net_j"] = stats.value("energy_j", 0.0) - idle;
}

const double* rail_power(const BaselineUse& use, const std::string& label) {
  for (const auto& [l, w] : use.rail_avg_w) {
    if (l == label) return &w;
  }
  return nullptr;
}

void add_use_notes(const BaselineUse& use, nlohmann::json& out) {
  if (!use.open_during.empty()) {
    std::string ids;
    for (int64_t id : use.open_during) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
    add_report_note(out, "runs open while " + run_text(use.run) + " was measured (" + ids +
                             "): the board may not have been idle, so idle energy may be too high");
  }
  if (!use.same_boot) {
    add_report_note(out, run_text(use.run) + " was measured in an earlier boot: idle power may have changed since");
  }
  if (use.age_ns > kBaselineStaleNs) {
    add_report_note(out, run_text(use.run) + " is " + age_text(use.age_ns) +
                             " older than this run; 'energyctl baseline' measures a fresh one");
  }
}

// The baseline named by the run's tag, or a note saying why it cannot be used.
Result<std::optional<RunRecord>> tagged_baseline(Store& store, const std::string& tag, nlohmann::json& out) {
  auto id = parse_id(tag);
  std::optional<RunRecord> none;
  if (!id) {
    add_report_note(out, std::string("tag ") + kRunBaselineTag + "='" + tag + "' is not a run id: no idle energy");
    return none;
  }
  auto rec = store.runs().by_id(*id);
  if (!rec) return rec.take_error();
  std::string why;
  if (!rec->has_value())
    why = "does not exist";
  else if (!is_baseline_run(**rec))
    why = "is not a baseline (no tag " + std::string(kRunKindTag) + "=baseline)";
  else if ((*rec)->state != RunState::kStopped)
    why = std::string("is ") + run_state_name((*rec)->state);
  if (why.empty()) return rec;
  add_report_note(out, "baseline run " + tag + " " + why + ": no idle energy");
  return none;
}

Result<std::optional<RunRecord>> find_baseline(Store& store, const RunRecord& run, nlohmann::json& out) {
  if (auto tag = run_tag(run, kRunBaselineTag)) return tagged_baseline(store, *tag, out);
  return store.runs().latest_tagged_before(run, kRunKindTag, kBaselineKind);
}

Result<BaselineUse> measure_use(Store& store, const RunRecord& run, const RunRecord& bl, const RunReport& bl_report) {
  BaselineUse use = baseline_from_report(bl_report);
  use.same_boot = bl.boot == run.boot;
  int64_t stop_ns = bl.stop_ns.value_or(bl.start_ns);
  use.age_ns = use.same_boot ? run.start_ns - stop_ns : run.start_wall_ns - bl.stop_wall_ns.value_or(bl.start_wall_ns);
  auto others = store.runs().overlapping(bl.boot, EnergyWindow{bl.start_ns, stop_ns}, bl.id);
  if (!others) return others.take_error();
  for (const auto& o : *others) use.open_during.push_back(o.id);
  return use;
}

}  // namespace

std::optional<std::string> run_tag(const RunRecord& run, const std::string& key) {
  auto tags = nlohmann::json::parse(run.tags_json, nullptr, false);
  if (!tags.is_object()) return std::nullopt;
  auto it = tags.find(key);
  if (it == tags.end()) return std::nullopt;
  return it->is_string() ? it->get<std::string>() : it->dump();
}

bool is_baseline_run(const RunRecord& run) { return run_tag(run, kRunKindTag) == std::string(kBaselineKind); }

BaselineUse baseline_from_report(const RunReport& baseline) {
  BaselineUse use;
  use.run = baseline.run;
  use.duration_s = seconds(baseline.window.end_ns - baseline.window.begin_ns);
  for (const auto& r : baseline.rails) use.rail_avg_w.emplace_back(r.label, r.stats.average_power_uw() / 1e6);
  use.total_avg_w = baseline.total.average_power_uw() / 1e6;
  return use;
}

void add_baseline_json(const RunReport& report, const BaselineUse& use, nlohmann::json& out) {
  double duration_s = seconds(report.window.end_ns - report.window.begin_ns);
  out["baseline"] = baseline_section(use);
  for (auto& rail : out["rails"]) {
    std::string label = rail.value("label", "");
    if (const double* w = rail_power(use, label))
      add_idle(rail, *w, duration_s);
    else
      add_report_note(out, label + " has no reading in " + run_text(use.run) + ": no idle energy for it");
  }
  add_idle(out["total"], use.total_avg_w, duration_s);
  add_use_notes(use, out);
}

namespace {

// A baseline's own report says when other runs were open during it.
Status note_busy_baseline(Store& store, const RunReport& report, nlohmann::json& out) {
  auto others = store.runs().overlapping(report.run.boot, report.window, report.run.id);
  if (!others) return others.take_error();
  if (others->empty()) return ok_status();
  std::string ids;
  for (const auto& o : *others) ids += (ids.empty() ? "" : ", ") + std::to_string(o.id);
  add_report_note(out, "runs open while this baseline was measured (" + ids +
                           "): the board may not have been idle, so idle energy may be too high");
  return ok_status();
}

}  // namespace

Status apply_baseline(Store& store, const RunReport& report, int64_t gap_threshold_ns, nlohmann::json& out) {
  if (is_baseline_run(report.run)) return note_busy_baseline(store, report, out);
  auto bl = find_baseline(store, report.run, out);
  if (!bl) return bl.take_error();
  if (!bl->has_value()) return ok_status();
  const RunRecord& b = **bl;
  auto bl_report = build_run_report(store, b, b.stop_ns.value_or(b.start_ns), gap_threshold_ns);
  if (!bl_report) {
    if (bl_report.error().code != ErrorCode::kNotFound) return bl_report.take_error();
    add_report_note(out, run_text(b) + " has no power readings: no idle energy");
    return ok_status();
  }
  auto use = measure_use(store, report.run, b, *bl_report);
  if (!use) return use.take_error();
  add_baseline_json(report, *use, out);
  return ok_status();
}

void add_report_note(nlohmann::json& out, const std::string& note) {
  if (!out.contains("notes") || !out["notes"].is_array()) out["notes"] = nlohmann::json::array();
  out["notes"].push_back(note);
}

}  // namespace energy
