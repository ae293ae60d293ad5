#include "live_view.h"

#include <algorithm>

#include "command.h"
#include "table.h"
#include "time_arg.h"

namespace energy::cli {
namespace {

nlohmann::json rail_entry(const nlohmann::json& r, const std::vector<std::string>& in_total) {
  std::string label = r.value("label", "");
  bool total = std::find(in_total.begin(), in_total.end(), label) != in_total.end();
  nlohmann::json j = {{"label", label}, {"in_total", total}};
  if (r.contains("errno")) {
    j["error"] = r.value("error", "read failed");
    return j;
  }
  for (const char* key : {"voltage_v", "current_a", "power_w"}) j[key] = member(r, key);
  return j;
}

nlohmann::json clock_entry(const nlohmann::json& d) {
  nlohmann::json j = {{"name", d.value("name", "")}, {"kind", d.value("kind", "")}, {"cur_hz", member(d, "cur_hz")}};
  if (d.contains("load_permille")) j["load_permille"] = d["load_permille"];
  return j;
}

std::string live_rails_table(const nlohmann::json& snap) {
  Table t({{"RAIL"}, {"V", Align::kRight}, {"A", Align::kRight}, {"W", Align::kRight}});
  for (const auto& r : member(snap, "rails")) {
    std::string label = r.value("label", "") + (r.value("in_total", false) ? " *" : "");
    if (r.contains("error"))
      t.add_row({label, "-", "-", "-  read failed: " + r.value("error", "")});
    else
      t.add_row({label, number_text(member(r, "voltage_v"), 3), number_text(member(r, "current_a"), 3),
                 number_text(member(r, "power_w"), 3)});
  }
  return t.render();
}

std::string clocks_table(const nlohmann::json& snap) {
  Table t({{"CLOCK"}, {"CUR MHz", Align::kRight}, {"LOAD", Align::kRight}});
  for (const auto& c : member(snap, "clocks")) {
    const auto& hz = member(c, "cur_hz");
    const auto& load = member(c, "load_permille");
    t.add_row({c.value("name", ""), hz.is_number() ? fixed(hz.get<double>() / 1e6, 1) : "-",
               load.is_number() ? fixed(load.get<double>() / 10.0, 1) + "%" : ""});
  }
  return t.render();
}

std::string live_thermal_table(const nlohmann::json& snap) {
  Table t({{"ZONE"}, {"TEMP C", Align::kRight}});
  for (const auto& z : member(snap, "thermal")) t.add_row({z.value("type", ""), number_text(member(z, "temp_c"), 1)});
  return t.render();
}

}  // namespace

nlohmann::json live_snapshot(const nlohmann::json& status, const nlohmann::json& clocks, int64_t wall_ns) {
  std::vector<std::string> in_total;
  for (const auto& n : member(member(status, "total"), "rails")) in_total.push_back(n.get<std::string>());
  nlohmann::json rails = nlohmann::json::array(), domains = nlohmann::json::array(), zones = nlohmann::json::array();
  for (const auto& r : member(status, "rails")) rails.push_back(rail_entry(r, in_total));
  for (const auto& d : member(clocks, "domains")) domains.push_back(clock_entry(d));
  for (const auto& z : member(clocks, "thermal")) {
    zones.push_back(
        {{"type", z.value("type", "")}, {"temp_c", z.value("gated", false) ? nlohmann::json() : member(z, "temp_c")}});
  }
  return {{"wall_ns", wall_ns},
          {"total_power_w", member(member(status, "total"), "power_w")},
          {"rails", std::move(rails)},
          {"clocks", std::move(domains)},
          {"thermal", std::move(zones)}};
}

std::string render_live(const nlohmann::json& snap) {
  std::string out = format_local_ns(snap.value("wall_ns", int64_t{0})) + "   total " +
                    number_text(member(snap, "total_power_w"), 3) + " W   (* = in total)\n\n" + live_rails_table(snap);
  if (!member(snap, "clocks").empty()) out += "\n" + clocks_table(snap);
  if (!member(snap, "thermal").empty()) out += "\n" + live_thermal_table(snap);
  return out;
}

}  // namespace energy::cli
