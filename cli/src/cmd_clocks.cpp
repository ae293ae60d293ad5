// energyctl clocks: clock domains (CPU policies, GPU, EMC) with their
// available frequencies, governors and current state; thermal zones. Every
// frequency is exact (pin_args.h exact_mhz): the list of each domain's
// available frequencies is written as `pin` takes them ("624.75MHz"), so
// any of them can be copied into --cpu/--gpu/--emc/--domain.
#include <iostream>

#include "command.h"
#include "pin_args.h"
#include "table.h"

namespace energy::cli {
namespace {

constexpr size_t kListWidth = 100;  // characters per line of a frequency list

std::string mhz(const nlohmann::json& v) { return mhz_text(v); }

// "  gpu: 306MHz 408MHz ...", wrapped under the first frequency.
std::string frequency_list(const nlohmann::json& d) {
  std::string head = "  " + d.value("name", "") + ":";
  std::string out = head, line = head;
  for (const auto& hz : member(d, "available_hz")) {
    std::string word = " " + mhz_text(hz) + "MHz";
    if (line.size() + word.size() > kListWidth && line.size() > head.size()) {
      out += "\n";
      line = std::string(head.size(), ' ');
      out += line;
    }
    out += word;
    line += word;
  }
  return out + "\n";
}

std::string frequency_lists(const nlohmann::json& res) {
  std::string out = "available frequencies (as pin takes them):\n";
  for (const auto& d : member(res, "domains")) {
    if (!member(d, "available_hz").empty()) out += frequency_list(d);
  }
  return out;
}

std::string freq_range(const nlohmann::json& list) {
  if (!list.is_array() || list.empty()) return "-";
  return mhz(list.front()) + ".." + mhz(list.back()) + " MHz (" + std::to_string(list.size()) + " steps)";
}

std::string cpus_text(const nlohmann::json& d) {
  if (!d.contains("cpus")) return "";
  std::string out;
  for (const auto& c : d["cpus"]) {
    bool online = false;
    for (const auto& o : member(d, "online_cpus")) online = online || o == c;
    out += (out.empty() ? "" : ",") + std::to_string(c.get<int>()) + (online ? "" : "(off)");
  }
  return out;
}

std::string domains_table(const nlohmann::json& res) {
  Table t({{"DOMAIN"},
           {"CUR MHz", Align::kRight},
           {"MIN MHz", Align::kRight},
           {"MAX MHz", Align::kRight},
           {"GOVERNOR"},
           {"AVAILABLE"},
           {"CPUS/LOAD"}});
  for (const auto& d : member(res, "domains")) {
    std::string extra = cpus_text(d);
    if (d.contains("load_permille") && d["load_permille"].is_number()) {
      extra = "load " + fixed(d["load_permille"].get<double>() / 10.0, 1) + "%";
    }
    t.add_row({d.value("name", ""), mhz(member(d, "cur_hz")), mhz(member(d, "min_hz")), mhz(member(d, "max_hz")),
               d.value("governor", ""), freq_range(member(d, "available_hz")), extra});
  }
  return t.render();
}

std::string thermal_table(const nlohmann::json& res) {
  Table t({{"ZONE"}, {"TEMP C", Align::kRight}});
  for (const auto& z : member(res, "thermal")) {
    std::string temp =
        z.value("gated", false) ? "gated" : (z["temp_c"].is_number() ? fixed(z["temp_c"].get<double>(), 1) : "-");
    t.add_row({z.value("type", ""), temp});
  }
  return t.render();
}

}  // namespace

int cmd_clocks(const Context& ctx, const Args& args) {
  if (auto st = no_words(args, "clocks"); !st) return usage_error(ctx, st.error().message);
  auto out = call_daemon(ctx, "clocks", nlohmann::json::object());
  if (out.exit_code != kExitOk) return out.exit_code;
  auto leases = call_daemon(ctx, "clocks.leases", nlohmann::json::object());
  if (leases.exit_code != kExitOk) return leases.exit_code;
  out.result["leases"] = member(leases.result, "leases");
  if (ctx.json) {
    print_json(out.result);
    return kExitOk;
  }
  std::cout << domains_table(out.result) << "\n"
            << frequency_lists(out.result) << "\n"
            << render_leases(leases.result) << "\n"
            << thermal_table(out.result);
  for (const auto& n : member(out.result, "notes"))
    std::cout << "note: " << terminal_safe(n.get<std::string>()) << "\n";
  return kExitOk;
}

}  // namespace energy::cli
