#include "sweep_view.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>

#include "sweep_export.h"
#include "sweep_heatmap.h"
#include "table.h"
#include "terminal_text.h"
#include "time_arg.h"

namespace energy::cli {
namespace {

using nlohmann::json;

// 4 significant digits: sweeps span mJ to kJ per item.
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string with_ci(const SampleSummary& s) {
  return s.ci95_half ? num(s.mean) + " ± " + num(*s.ci95_half) : num(s.mean) + " (n=1)";
}

std::string header(const SweepResults& r) {
  const json& s = r.sweep;
  std::string out = "Sweep " + std::to_string(s.value("id", int64_t{0})) + " \"" + terminal_safe(s.value("name", "")) +
                    "\": " + s.value("state", "?") + ", created " +
                    format_local_ns(s.value("created_wall_ns", int64_t{0})) + "\n";
  size_t counted = 0;
  for (const auto& run : r.runs) counted += run.sample ? 1u : 0u;
  out += std::to_string(r.points.size()) + " of " +
         (r.planned_points > 0 ? std::to_string(r.planned_points) : std::string("?")) + " points measured, " +
         std::to_string(counted) + " counted run(s) of " + std::to_string(r.runs.size()) + "\n";
  if (r.search)
    out +=
        "A --search sweep: it measured only the points its search needed (assuming energy per item is unimodal "
        "along each clock axis); the others were never planned to run\n";
  return out;
}

std::string state_warning(const SweepResults& r) {
  std::string state = r.sweep.value("state", "");
  std::string id = std::to_string(r.sweep.value("id", int64_t{0}));
  if (state == "interrupted")
    return "INTERRUPTED: the results below cover only the runs made before it stopped; finish it with "
           "`energyctl sweep --resume " +
           id + "`\n";
  if (state == "running") return "STILL RUNNING (or its energyctl was killed): the results are partial\n";
  if (!r.search && r.planned_points > 0 && r.points.size() < r.planned_points)
    return "INCOMPLETE: " + std::to_string(r.planned_points - r.points.size()) + " point(s) have no counted run\n";
  return "";
}

std::string point_table(const SweepResults& r) {
  std::string u = "/" + r.unit;
  Table t({{"#", Align::kRight},
           {"point", Align::kLeft},
           {"n", Align::kRight},
           {"energy J" + u, Align::kRight},
           {"net J" + u, Align::kRight},
           {"time s" + u, Align::kRight},
           {"power W", Align::kRight}});
  for (size_t i = 0; i < r.points.size(); ++i) {
    const PointStats& s = r.points[i].stats;
    t.add_row({std::to_string(r.points[i].point), result_label(r, i), std::to_string(s.energy.n), with_ci(s.energy),
               s.net ? with_ci(*s.net) : "-", with_ci(s.time), with_ci(s.power)});
  }
  return "Per point (mean ± 95% CI half-width):\n" + t.render();
}

std::string point_list(const SweepResults& r, const std::vector<size_t>& indices) {
  std::string out;
  for (size_t i : indices) out += (out.empty() ? "" : "; ") + result_label(r, i);
  return out.empty() ? "none" : out;
}

std::string minimum_lines(const SweepResults& r, const MinimumSet& m, const std::string& what, bool net) {
  const SampleSummary& e = net ? *r.points[m.best].stats.net : r.points[m.best].stats.energy;
  std::string out = what + ": " + result_label(r, m.best) + ", " + with_ci(e) + " J/" + r.unit + "\n";
  std::vector<size_t> others;
  for (size_t i : m.tied) {
    if (i != m.best) others.push_back(i);
  }
  if (!others.empty()) out += "  indistinguishable from it (CIs overlap): " + point_list(r, others) + "\n";
  return out;
}

std::string signed_num(double v) { return (v > 0 ? "+" : "") + num(v); }

// What the point costs in time against DVFS, or that it is faster.
std::string time_cost(const Saving& s, const std::string& unit) {
  if (s.time_s.mean <= 0)
    return "is " + num(-s.time_s.mean) + " s/" + unit + " faster (" + fixed(-s.time_relative * 100, 1) + "% less time)";
  return "costs " + signed_num(s.time_s.mean) + " s/" + unit + " (" + signed_num(s.time_relative * 100) + "% time)";
}

std::string dvfs_lines(const SweepResults& r) {
  std::string out;
  for (const auto& c : r.dvfs) {
    const Saving& s = c.saving;
    out += "Against " + result_label(r, c.dvfs) + ": " + result_label(r, c.best) + " saves " + num(s.energy_j.mean) +
           " J/" + r.unit + " (" + percent(s.relative);
    if (s.energy_j.ci95_half) {
      out += ", 95% CI " + num(s.energy_j.mean - *s.energy_j.ci95_half) + " .. " +
             num(s.energy_j.mean + *s.energy_j.ci95_half) + " J";
      out += significant(s.energy_j) ? "" : ", not significant";
    }
    if (c.combined_precision) {
      bool beyond = std::fabs(s.energy_j.mean) > *c.combined_precision;
      out += std::string(beyond ? ", beyond" : ", within") + " the runs' combined precision (+-" +
             num(*c.combined_precision) + " J)";
    }
    out += ") and " + time_cost(s, r.unit) + "\n";
  }
  return out;
}

std::string findings(const SweepResults& r) {
  std::string out;
  if (r.minimum) out += minimum_lines(r, *r.minimum, "Minimum energy", false);
  if (r.minimum_net) out += minimum_lines(r, *r.minimum_net, "Minimum net energy", true);
  if (r.fastest)
    out += "Fastest: " + result_label(r, *r.fastest) + ", " + with_ci(r.points[*r.fastest].stats.time) + " s/" +
           r.unit + "\n";
  if (!r.points.empty()) out += "Energy-time Pareto front (fastest first): " + point_list(r, r.pareto) + "\n";
  if (r.edp) out += "Energy-delay product minimum: " + result_label(r, *r.edp) + "\n";
  return out + dvfs_lines(r);
}

}  // namespace

std::string render_sweep_results(const SweepResults& r, Colour colour) {
  std::string out = header(r) + state_warning(r);
  if (r.points.empty()) {
    out += "No counted runs yet.\n";
  } else {
    out += "\n" + point_table(r) + "\n" + findings(r);
    std::string maps = render_heatmaps(r, colour);
    if (!maps.empty()) out += "\n" + maps;
  }
  for (const auto& n : r.notes) out += "Note: " + terminal_safe(n) + "\n";
  return out;
}

int print_sweep_results(const Context& ctx, int64_t sweep_id) {
  auto reply = call_daemon(ctx, "sweep.show", {{"sweep", sweep_id}});
  if (reply.exit_code != kExitOk) return reply.exit_code;
  auto results = sweep_results_from(reply.result);
  if (!results) return report_failure(results.error());
  if (ctx.json) {
    print_json(sweep_results_json(*results));
    return kExitOk;
  }
  Colour colour = ::isatty(STDOUT_FILENO) == 1 ? Colour::kOn : Colour::kOff;
  std::cout << render_sweep_results(*results, colour);
  return kExitOk;
}

}  // namespace energy::cli
