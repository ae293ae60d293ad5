#include "info_verbs.h"

#include <unistd.h>

#include <chrono>
#include <cstring>

#include "energy/rail_total.h"
#include "energy/report.h"

#ifndef ENERGYD_VERSION
#define ENERGYD_VERSION "unknown"
#endif

namespace energy::daemon {
namespace {

nlohmann::json board_json(const BoardIdentity& b) {
  return {{"known", b.known},
          {"model", b.model},
          {"compatible", b.compatible},
          {"l4t_release", b.l4t_release},
          {"l4t_board", b.l4t_board}};
}

template <typename T>
T at_or_zero(const std::vector<T>& v, size_t i) {
  return i < v.size() ? v[i] : T{};
}

nlohmann::json rail_json(const RailInfo& info, const RailValue& v, const SamplerStats& st, size_t i) {
  nlohmann::json j = {{"label", info.label},
                      {"driver", driver_name(info.driver)},
                      {"device", info.device},
                      {"channel", info.channel},
                      {"read_errors", at_or_zero(st.read_errors, i)},
                      {"last_read_ns", at_or_zero(st.rail_last_read_ns, i)},
                      {"max_read_ns", at_or_zero(st.rail_max_read_ns, i)}};
  if (v.err != 0) {
    j["errno"] = v.err;
    j["error"] = std::strerror(v.err);
    return j;
  }
  j["voltage_v"] = v.voltage_mv / 1e3;
  j["current_a"] = v.current_ma / 1e3;
  j["power_w"] = static_cast<double>(v.power_uw) / 1e6;
  return j;
}

nlohmann::json rails_json(const SensorInventory& inv, const Sample& latest, const SamplerStats& st) {
  nlohmann::json rails = nlohmann::json::array();
  for (size_t i = 0; i < inv.rails.size(); ++i) {
    if (i >= latest.values.size()) {
      rails.push_back({{"label", inv.rails[i].label},
                       {"driver", driver_name(inv.rails[i].driver)},
                       {"device", inv.rails[i].device},
                       {"channel", inv.rails[i].channel},
                       {"errno", 0},
                       {"error", "no reading yet"},
                       {"read_errors", 0}});
      continue;
    }
    rails.push_back(rail_json(inv.rails[i], latest.values[i], st, i));
  }
  return rails;
}

nlohmann::json total_json(const SensorInventory& inv, const Sample& latest) {
  std::vector<std::string> labels;
  for (const auto& r : inv.rails) labels.push_back(r.label);
  TotalRule rule = select_total_rails(labels);
  nlohmann::json names = nlohmann::json::array();
  int64_t sum = 0;
  bool complete = !rule.rail_indices.empty();
  for (size_t i : rule.rail_indices) {
    names.push_back(labels[i]);
    bool ok = i < latest.values.size() && latest.values[i].err == 0;
    complete = complete && ok;
    if (ok) sum += latest.values[i].power_uw;
  }
  nlohmann::json j = {{"rails", names}, {"rule", rule.explanation}};
  if (complete) j["power_w"] = static_cast<double>(sum) / 1e6;
  return j;
}

nlohmann::json skipped_json(const SensorInventory& inv) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : inv.skipped) {
    out.push_back({{"device", s.device}, {"channel", s.channel}, {"label", s.label}, {"reason", s.reason}});
  }
  return out;
}

const ChipAveraging* averaging_of(const std::vector<ChipAveraging>& averaging, const std::string& device) {
  for (const auto& a : averaging) {
    if (a.device == device) return &a;
  }
  return nullptr;
}

// Per chip: its averaging as measured with, and what energyd did to it.
nlohmann::json monitors_json(const SensorInventory& inv, const std::vector<ChipAveraging>& averaging) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : inv.chips) {
    nlohmann::json j = {{"device", c.device},       {"driver", driver_name(c.driver)},
                        {"samples", c.samples},     {"update_interval_ms", c.update_interval_ms},
                        {"channels", c.channels},   {"conversion_us", c.conversion_us},
                        {"filter_ns", c.filter_ns}, {"averaging_source", c.averaging},
                        {"set_by_energyd", false}};
    const ChipAveraging* a = averaging_of(averaging, c.device);
    if (a != nullptr && a->changed) {
      j["set_by_energyd"] = true;
      j["own_samples"] = a->original_samples;
      j["own_update_interval_ms"] = a->original_interval_ms;
    }
    if (a != nullptr && !a->error.empty()) j["error"] = a->error;
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::json sampler_json(const SamplerStats& st, int64_t period_ms) {
  return {{"period_ms", period_ms},
          {"ticks", st.ticks},
          {"missed_ticks", st.missed_ticks},
          {"extra_samples", st.extra_samples},
          {"max_lateness_ns", st.max_lateness_ns},
          {"last_lateness_ns", st.last_lateness_ns},
          {"lateness_p50_ns", st.lateness_p50_ns},
          {"lateness_p99_ns", st.lateness_p99_ns},
          {"last_read_ns", st.last_read_ns},
          {"max_read_ns", st.max_read_ns},
          {"read_p50_ns", st.read_p50_ns},
          {"read_p99_ns", st.read_p99_ns},
          {"sweeps", st.sweeps},
          {"stalls", st.stalls}};
}

nlohmann::json tier_json(const TierFootprint& t) {
  auto opt = [](const std::optional<int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  return {{"tier", tier_name(t.tier)},
          {"rows", t.rows},
          {"data_bytes", t.data_bytes},
          {"oldest_wall_ns", opt(t.oldest_wall_ns)},
          {"newest_wall_ns", opt(t.newest_wall_ns)}};
}

nlohmann::json retention_json(const RetentionStats& r, const DaemonConfig& c) {
  nlohmann::json j = {{"raw_retention_hours", c.raw_retention_hours},
                      {"second_retention_days", c.second_retention_days},
                      {"minute_retention_days", c.minute_retention_days},
                      {"disk_budget_bytes", retention_policy(c).disk_budget_bytes},
                      {"budget_bytes_used", r.budget_bytes_used},
                      {"over_budget", r.over_budget},
                      {"passes", r.passes},
                      {"steps", r.steps},
                      {"raw_chunks_downsampled", r.raw_chunks_downsampled},
                      {"second_rows_downsampled", r.second_rows_downsampled},
                      {"minute_rows_deleted", r.minute_rows_deleted},
                      {"errors", r.errors},
                      {"tiers", nlohmann::json::array()}};
  if (r.footprint) {
    for (const auto& t : r.footprint->tiers) j["tiers"].push_back(tier_json(t));
    j["file_bytes"] = r.footprint->file_bytes;
    j["free_bytes"] = r.footprint->free_bytes;
    j["wal_bytes"] = r.footprint->wal_bytes;
  }
  if (r.footprint_at) {
    auto age =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - *r.footprint_at);
    j["footprint_age_ms"] = age.count();
  }
  if (!r.last_error.empty()) j["last_error"] = r.last_error;
  return j;
}

nlohmann::json storage_json(const WriterStats& w, const DaemonConfig& c) {
  nlohmann::json j = {{"database", database_path(c)},
                      {"samples_written", w.samples_written},
                      {"commits", w.commits},
                      {"queued_samples", w.queued},
                      {"dropped_samples", w.dropped_samples},
                      {"failed_commits", w.failed_commits},
                      {"flush_interval_ms", c.flush_interval_ms},
                      {"open", w.open},
                      {"healthy", w.open && w.last_error.empty()},
                      {"retention", retention_json(w.retention, c)}};
  if (!w.last_error.empty()) j["last_error"] = w.last_error;
  if (!w.ring_path.empty()) {
    j["ring"] = {{"path", w.ring_path},
                 {"capacity", w.ring_capacity},
                 {"locked", w.ring_locked},
                 {"recovered_samples", w.recovered_samples}};
  } else {
    j["ring"] = {{"off", w.ring_off}};
  }
  j["losses"] = nlohmann::json::array();
  for (const auto& l : w.losses) {
    j["losses"].push_back({{"kind", l.kind}, {"message", l.message}, {"evidence", l.evidence}});
  }
  return j;
}

// The sensors' notes, then what the database lost (energyctl status prints notes).
nlohmann::json notes_json(const StatusSources& src, const WriterStats& w) {
  nlohmann::json notes = src.inventory.notes;
  auto warning = period_warning(src.config.sample_period_ms, src.period);
  if (!warning.empty()) notes.push_back(warning);
  for (const auto& l : w.losses) notes.push_back("storage: " + l.message);
  return notes;
}

nlohmann::json optional_json(const std::optional<int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

// The sampling period, where it comes from, and what the monitors' averaging asks of it.
nlohmann::json period_json(const StatusSources& src) {
  const PeriodAdvice& a = src.period;
  auto warning = period_warning(src.config.sample_period_ms, a);
  return {{"period_ms", src.config.sample_period_ms},
          {"source", src.config.sample_period_given ? "configured" : "derived"},
          {"averaging_window_ms", a.window_ms > 0 ? nlohmann::json(a.window_ms) : nlohmann::json()},
          {"recommended_ms", a.recommended_ms},
          {"reason", a.reason},
          {"warning", warning.empty() ? nlohmann::json() : nlohmann::json(warning)}};
}

nlohmann::json domain_json(const ClockDomain& d, const DomainState& s) {
  nlohmann::json j = {{"kind", domain_kind_name(d.kind)},
                      {"name", d.name},
                      {"dir", d.dir},
                      {"available_hz", d.available_hz},
                      {"governors", d.governors},
                      {"writable", d.writable},
                      {"cur_hz", optional_json(s.cur_hz)},
                      {"min_hz", optional_json(s.min_hz)},
                      {"max_hz", optional_json(s.max_hz)},
                      {"governor", s.governor}};
  if (d.kind == DomainKind::kCpu) {
    j["cpus"] = d.cpus;
    j["online_cpus"] = s.online_cpus;
  }
  if (!d.load_file.empty()) j["load_permille"] = optional_json(s.load_permille);
  if (!s.error.empty()) j["error"] = s.error;
  return j;
}

}  // namespace

nlohmann::json rails_verb_json(const StatusSources& src, const Sampler& sampler) {
  Sample latest = sampler.latest();
  SamplerStats st = sampler.stats();
  nlohmann::json rails = rails_json(src.inventory, latest, st);
  for (size_t i = 0; i < rails.size() && i < src.inventory.rails.size(); ++i) {
    const RailInfo& r = src.inventory.rails[i];
    rails[i]["files"] = {{"voltage", r.voltage_file}, {"current", r.current_file}, {"power", r.power_file}};
  }
  return {{"rails", rails},
          {"total", total_json(src.inventory, latest)},
          {"skipped_channels", skipped_json(src.inventory)},
          {"sensor_update_interval_ms", src.inventory.max_update_interval_ms},
          {"notes", src.inventory.notes}};
}

nlohmann::json clocks_verb_json(const ClockInventory& inv, const std::vector<DomainState>& states,
                                const std::vector<ThermalReading>& thermal) {
  nlohmann::json domains = nlohmann::json::array();
  for (size_t i = 0; i < inv.domains.size() && i < states.size(); ++i) {
    domains.push_back(domain_json(inv.domains[i], states[i]));
  }
  nlohmann::json zones = nlohmann::json::array();
  for (const auto& t : thermal) {
    nlohmann::json z = {{"type", t.type}, {"gated", t.gated}};
    z["temp_c"] = t.temp_mc && !t.gated ? nlohmann::json(static_cast<double>(*t.temp_mc) / 1000.0) : nlohmann::json();
    if (!t.temp_mc) z["error"] = "read failed";
    zones.push_back(std::move(z));
  }
  return {{"domains", domains}, {"thermal", zones}, {"notes", inv.notes}};
}

nlohmann::json status_json(const StatusSources& src, const Sampler& sampler, const StorageWriter& writer,
                           const std::vector<RunRecord>& open_runs, const Clock& clock) {
  Sample latest = sampler.latest();
  SamplerStats st = sampler.stats();
  WriterStats stored = writer.stats();
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : open_runs) runs.push_back(run_to_json(r));
  return {{"version", ENERGYD_VERSION},
          {"pid", static_cast<int64_t>(::getpid())},
          {"uptime_s", static_cast<double>(clock.boot_ns() - src.started_boot_ns) / 1e9},
          {"root", src.config.root},
          {"board", board_json(src.board)},
          {"rails", rails_json(src.inventory, latest, st)},
          {"total", total_json(src.inventory, latest)},
          {"skipped_channels", skipped_json(src.inventory)},
          {"sensor_averaging", sensor_averaging_name(src.config.sensor_averaging)},
          {"monitors", monitors_json(src.inventory, src.averaging)},
          {"notes", notes_json(src, stored)},
          {"sampler", sampler_json(st, src.config.sample_period_ms)},
          {"period", period_json(src)},
          {"storage", storage_json(stored, src.config)},
          {"open_runs", std::move(runs)}};
}

}  // namespace energy::daemon
