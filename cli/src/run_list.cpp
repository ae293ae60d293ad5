#include "run_list.h"

#include "command.h"
#include "table.h"
#include "time_arg.h"

namespace energy::cli {
namespace {

std::string number(const nlohmann::json& v, int decimals) {
  return v.is_number() ? fixed(v.get<double>(), decimals) : "-";
}

std::string name_text(const nlohmann::json& run) {
  const auto& kind = member(member(run, "tags"), "energyd.kind");
  std::string name = run.value("name", "");
  if (kind.is_string() && kind.get<std::string>() == "baseline") name += " [baseline]";
  return name;
}

}  // namespace

std::string render_run_list(const nlohmann::json& runs) {
  if (!runs.is_array() || runs.empty()) return "no runs match\n";
  Table t({{"ID", Align::kRight},
           {"NAME"},
           {"STATE"},
           {"START"},
           {"DURATION", Align::kRight},
           {"ENERGY J", Align::kRight},
           {"AVG W", Align::kRight}});
  for (const auto& r : runs) {
    const auto& s = member(r, "summary");
    const auto& duration = member(s, "duration_s");
    t.add_row({std::to_string(r.value("id", int64_t{0})), name_text(r), r.value("state", ""),
               format_local_ns(r.value("start_wall_ns", int64_t{0})),
               duration.is_number() ? duration_text(duration.get<double>()) : "-", number(member(s, "energy_j"), 4),
               number(member(s, "avg_power_w"), 3)});
  }
  return t.render();
}

}  // namespace energy::cli
