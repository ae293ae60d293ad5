#include "render_context.h"

#include <cmath>
#include <sstream>

#include "command.h"
#include "pin_args.h"
#include "table.h"

namespace energy::cli {
namespace {

constexpr size_t kTopFrequencies = 3;  // more would not read at a glance; the rest is summed
constexpr double kShown = 0.005;       // shares below half a percent are left out of the text
constexpr size_t kLineWidth = 100;

double share_of(const nlohmann::json& j) { return j.value("share", 0.0); }

std::string residency_text(const nlohmann::json& d) {
  const auto& res = member(d, "residency");
  std::string out;
  double rest = 0;
  size_t shown = 0;
  for (const auto& f : res) {
    if (shown == kTopFrequencies) {
      rest += share_of(f);
      continue;
    }
    out += (out.empty() ? "" : "  ") + mhz_text(f.value("hz", int64_t{0})) + " " + share_text(share_of(f));
    ++shown;
  }
  if (rest >= kShown) out += "  others " + share_text(rest);
  double unknown = 1.0 - d.value("known_share", 0.0);
  if (res.empty()) return "unknown (not polled, or not readable)";
  if (unknown >= kShown) out += "  unknown " + share_text(unknown);
  return out;
}

std::string governors_text(const nlohmann::json& d) {
  const auto& govs = member(d, "governors");
  std::string out;
  for (const auto& g : govs) {
    out += (out.empty() ? "" : ", ") + g.value("governor", std::string());
    if (govs.size() > 1) out += " " + share_text(share_of(g));
  }
  return out.empty() ? "-" : out;
}

std::string zone_text(const nlohmann::json& z) {
  std::string name = safe_text(z, "zone");
  const auto& lo = member(z, "min_c");
  const auto& hi = member(z, "max_c");
  if (!lo.is_number() || !hi.is_number()) {
    return name + (z.value("gated_share", 0.0) > 0 ? " gated" : " unknown");
  }
  double a = lo.get<double>(), b = hi.get<double>();
  std::string range = fixed(a, 1) + (fixed(a, 1) == fixed(b, 1) ? "" : "-" + fixed(b, 1)) + " C";
  double known = z.value("known_share", 0.0);
  if (1.0 - known >= kShown) range += " (known " + share_text(known) + ")";
  return name + " " + range;
}

std::string clocks_text(const nlohmann::json& clocks) {
  if (!clocks.is_array() || clocks.empty()) return "";
  Table t({{"CLOCK"}, {"RESIDENCY (share of the run)"}, {"GOVERNOR"}, {"CHANGES", Align::kRight}});
  for (const auto& d : clocks) {
    t.add_row({d.value("domain", std::string()), residency_text(d), governors_text(d),
               std::to_string(d.value("changes", int64_t{0}))});
  }
  return "\n" + t.render();
}

std::string thermal_text(const nlohmann::json& thermal) {
  if (!thermal.is_array() || thermal.empty()) return "";
  std::string out = "\ntemperature:";
  size_t col = out.size() - 1;
  for (size_t i = 0; i < thermal.size(); ++i) {
    std::string item = " " + zone_text(thermal[i]) + (i + 1 < thermal.size() ? "," : "");
    if (col + item.size() > kLineWidth) {
      out += "\n ";
      col = 1;
    }
    out += item;
    col += item.size();
  }
  return out + "\n";
}

}  // namespace

std::string mhz_text(int64_t hz) { return exact_mhz(hz) + " MHz"; }

std::string share_text(double share) {
  long pct = std::lround(share * 100.0);
  if (pct == 0 && share > 0) return "<1%";
  return std::to_string(pct) + "%";
}

std::string render_run_context(const nlohmann::json& report) {
  return clocks_text(member(report, "clocks")) + thermal_text(member(report, "thermal"));
}

}  // namespace energy::cli
