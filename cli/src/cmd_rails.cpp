// energyctl rails: live V, I, P per rail, which rails form the total, and
// the channels that are not rails.
#include <algorithm>
#include <iostream>

#include "command.h"
#include "table.h"

namespace energy::cli {
namespace {

std::string reading(const nlohmann::json& r, const char* key) {
  return r.contains("errno") ? "-" : fixed(r.value(key, 0.0), 3);
}

std::string rails_table(const nlohmann::json& res) {
  std::vector<std::string> total;
  for (const auto& n : member(member(res, "total"), "rails")) total.push_back(n.get<std::string>());
  Table t(
      {{"RAIL"}, {"V", Align::kRight}, {"A", Align::kRight}, {"W", Align::kRight}, {"TOTAL"}, {"SOURCE"}, {"STATE"}});
  for (const auto& r : member(res, "rails")) {
    std::string label = r.value("label", "");
    bool in_total = std::find(total.begin(), total.end(), label) != total.end();
    std::string source =
        r.value("driver", "") + " " + r.value("device", "") + " ch" + std::to_string(r.value("channel", 0));
    std::string state = r.contains("errno") ? "read failed: " + r.value("error", "") : "ok";
    t.add_row({label, reading(r, "voltage_v"), reading(r, "current_a"), reading(r, "power_w"), in_total ? "yes" : "",
               source, state});
  }
  return t.render();
}

}  // namespace

int cmd_rails(const Context& ctx, const Args& args) {
  if (auto st = no_words(args, "rails"); !st) return usage_error(ctx, st.error().message);
  auto out = call_daemon(ctx, "rails", nlohmann::json::object());
  if (out.exit_code != kExitOk) return out.exit_code;
  if (ctx.json) {
    print_json(out.result);
    return kExitOk;
  }
  const auto& res = out.result;
  std::cout << rails_table(res);
  const auto& total = member(res, "total");
  std::cout << "\nmodule total: ";
  if (total.contains("power_w"))
    std::cout << fixed(total["power_w"].get<double>(), 3) << " W";
  else
    std::cout << "unavailable (a rail of the total failed its last read)";
  std::cout << " = " << safe_text(total, "rule") << "\n";
  for (const auto& s : member(res, "skipped_channels")) {
    std::string label = safe_text(s, "label");
    std::cout << "not a rail: " << safe_text(s, "device") << " channel " << s.value("channel", 0)
              << (label.empty() ? "" : " (" + label + ")") << ": " << safe_text(s, "reason") << "\n";
  }
  for (const auto& n : member(res, "notes")) std::cout << "note: " << terminal_safe(n.get<std::string>()) << "\n";
  return kExitOk;
}

}  // namespace energy::cli
