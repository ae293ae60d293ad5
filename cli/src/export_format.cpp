#include "export_format.h"

#include "command.h"
#include "terminal_text.h"
#include "time_arg.h"

namespace energy::cli {

std::string csv_header() { return "boot_id,t_ns,wall_time,rail,voltage_mv,current_ma,power_uw,errno\n"; }

std::string csv_row(const nlohmann::json& r) {
  std::string line = csv_field(r.value("boot_id", "")) + ',' + std::to_string(r.value("t_ns", int64_t{0})) + ',' +
                     format_wall_ns(r.value("wall_ns", int64_t{0})) + ',' + csv_field(r.value("rail", "")) + ',';
  if (r.contains("errno")) return line + ",,," + std::to_string(r["errno"].get<int>()) + '\n';
  return line + std::to_string(r.value("voltage_mv", 0)) + ',' + std::to_string(r.value("current_ma", 0)) + ',' +
         std::to_string(r.value("power_uw", int64_t{0})) + ",\n";
}

std::string downsampled_rows_note(const nlohmann::json& report) {
  std::string rails;
  if (report.contains("rails") && report["rails"].is_array()) {
    for (const auto& r : report["rails"]) {
      std::string res = r.value("resolution", "raw");
      if (res == "raw") continue;
      rails += (rails.empty() ? "" : ", ") + safe_text(r, "label", "?") + " (" + terminal_safe(res) + ")";
    }
  }
  if (rails.empty()) return {};
  return "retention has downsampled the readings of " + rails +
         " for part of this run: the rows hold only the raw readings still stored; the report's figures come "
         "from the buckets";
}

}  // namespace energy::cli
