// energyctl status: board, rails with live readings, sampling and storage.
#include <iostream>

#include "command.h"
#include "table.h"

namespace energy::cli {
namespace {

std::string rail_reading(const nlohmann::json& r, const char* key, int decimals) {
  if (r.contains("errno")) return "-";
  return fixed(r.value(key, 0.0), decimals);
}

std::string rail_monitors_table(const nlohmann::json& st) {
  Table t({{"RAIL"},
           {"DRIVER"},
           {"DEVICE"},
           {"CH", Align::kRight},
           {"V", Align::kRight},
           {"A", Align::kRight},
           {"W", Align::kRight},
           {"STATE"}});
  std::vector<std::string> in_total;
  for (const auto& n : member(member(st, "total"), "rails")) in_total.push_back(n.get<std::string>());
  for (const auto& r : member(st, "rails")) {
    std::string label = r.value("label", "");
    bool total = std::find(in_total.begin(), in_total.end(), label) != in_total.end();
    std::string state = r.contains("errno") ? "read failed: " + r.value("error", "") : "ok";
    t.add_row({label + (total ? " *" : ""), r.value("driver", ""), r.value("device", ""),
               std::to_string(r.value("channel", 0)), rail_reading(r, "voltage_v", 3), rail_reading(r, "current_a", 3),
               rail_reading(r, "power_w", 3), state});
  }
  return t.render();
}

// What a chip's averaging is and who set it.
std::string averaging_text(const nlohmann::json& m) {
  const bool failed = m.contains("error");
  if (m.value("set_by_energyd", false)) {
    return "set by energyd (own " + std::to_string(m.value("own_samples", 0)) + " samples, " +
           std::to_string(m.value("own_update_interval_ms", 0)) + " ms)" + (failed ? "; a write failed" : "");
  }
  if (failed) return "its own (energyd's write failed)";
  if (m.value("driver", "") == "ina3221") return "its own";
  return m.value("averaging_source", "");
}

std::string count_or_dash(const nlohmann::json& m, const char* key) {
  int64_t v = m.value(key, int64_t{0});
  return v > 0 ? std::to_string(v) : "-";
}

// Per chip: samples, update_interval and the filter the integration corrects for.
void print_monitors(const nlohmann::json& st) {
  const auto& monitors = member(st, "monitors");
  if (monitors.empty()) return;
  Table t({{"MONITOR"},
           {"DRIVER"},
           {"SAMPLES", Align::kRight},
           {"CONV_US", Align::kRight},
           {"UPDATE_MS", Align::kRight},
           {"FILTER_MS", Align::kRight},
           {"AVERAGING"}});
  for (const auto& m : monitors) {
    t.add_row({m.value("device", ""), m.value("driver", ""), count_or_dash(m, "samples"),
               count_or_dash(m, "conversion_us"), count_or_dash(m, "update_interval_ms"),
               fixed(static_cast<double>(m.value("filter_ns", int64_t{0})) / 1e6, 3), averaging_text(m)});
  }
  std::cout << "sensor averaging: " << safe_text(st, "sensor_averaging", "?") << "\n" << t.render();
  for (const auto& m : monitors) {
    if (m.contains("error")) std::cout << "monitor " << safe_text(m, "device") << ": " << safe_text(m, "error") << "\n";
  }
  std::cout << "\n";
}

void print_board(const nlohmann::json& st) {
  const auto& b = member(st, "board");
  std::string model = safe_text(b, "model");
  std::string l4t = safe_text(b, "l4t_release");
  std::cout << "energyd " << safe_text(st, "version", "?") << ", pid " << st.value("pid", 0) << ", up "
            << duration_text(st.value("uptime_s", 0.0)) << "\n";
  std::cout << "board:   " << (model.empty() ? "unknown" : model) << (l4t.empty() ? "" : ", L4T R" + l4t) << " (root "
            << safe_text(st, "root", "/") << ")\n";
}

void print_total(const nlohmann::json& st) {
  const auto& total = member(st, "total");
  std::cout << "total:   ";
  if (total.contains("power_w"))
    std::cout << fixed(total["power_w"].get<double>(), 3) << " W";
  else
    std::cout << "unavailable";
  std::cout << " (* = in total: " << safe_text(total, "rule") << ")\n";
}

// A nanosecond field of `j` as milliseconds with three decimals.
std::string ms(const nlohmann::json& j, const char* key) {
  return fixed(static_cast<double>(j.value(key, int64_t{0})) / 1e6, 3);
}

void print_health(const nlohmann::json& st) {
  const auto& s = member(st, "sampler");
  const auto& d = member(st, "storage");
  std::cout << "sampler: every " << s.value("period_ms", 0) << " ms, " << s.value("ticks", 0) << " ticks, "
            << s.value("missed_ticks", 0) << " missed; lateness p50 " << ms(s, "lateness_p50_ns") << " p99 "
            << ms(s, "lateness_p99_ns") << " max " << ms(s, "max_lateness_ns") << " ms; sweep p50 "
            << ms(s, "read_p50_ns") << " max " << ms(s, "max_read_ns") << " ms; " << s.value("stalls", 0)
            << " stalled reads\n";
  const auto& p = member(st, "period");
  if (p.is_object()) {
    std::cout << "period:  " << p.value("period_ms", 0) << " ms, " << safe_text(p, "source") << "; "
              << safe_text(p, "reason") << "; recommended " << p.value("recommended_ms", 0) << " ms\n";
  }
  std::cout << "storage: " << d.value("samples_written", 0) << " sweeps written, " << d.value("queued_samples", 0)
            << " queued, " << d.value("dropped_samples", 0) << " dropped"
            << (d.value("healthy", true) ? "" : ", FAILING: " + safe_text(d, "last_error")) << " ("
            << safe_text(d, "database") << ")\n";
}

void print_extras(const nlohmann::json& st) {
  for (const auto& s : member(st, "skipped_channels")) {
    std::cout << "skipped: " << safe_text(s, "device") << " channel " << s.value("channel", 0) << ": "
              << safe_text(s, "reason") << "\n";
  }
  for (const auto& n : member(st, "notes")) std::cout << "note:    " << terminal_safe(n.get<std::string>()) << "\n";
  for (const auto& r : member(st, "open_runs")) {
    std::cout << "open run " << r.value("id", 0) << ": " << safe_text(r, "name") << "\n";
  }
}

}  // namespace

int cmd_status(const Context& ctx, const Args& args) {
  if (auto st = no_words(args, "status"); !st) return usage_error(ctx, st.error().message);
  auto out = call_daemon(ctx, "status", nlohmann::json::object());
  if (out.exit_code != kExitOk) return out.exit_code;
  if (ctx.json) {
    print_json(out.result);
    return kExitOk;
  }
  print_board(out.result);
  std::cout << "\n" << rail_monitors_table(out.result) << "\n";
  print_monitors(out.result);
  print_total(out.result);
  print_health(out.result);
  print_extras(out.result);
  return kExitOk;
}

}  // namespace energy::cli
