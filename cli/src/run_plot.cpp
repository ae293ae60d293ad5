#include "run_plot.h"

#include <cctype>
#include <map>

#include "command.h"

namespace energy::cli {
namespace {

using nlohmann::json;

bool ends_with(const std::string& s, const std::string& end) {
  return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

std::string seconds_since(int64_t t_ns, int64_t start_ns) {
  return plot_number(static_cast<double>(t_ns - start_ns) / 1e9);
}

// Each rail's "seconds watts" lines, a blank line where a read failed.
std::map<std::string, std::string> rail_series(const std::vector<json>& rows, int64_t start_ns, size_t& readings) {
  std::map<std::string, std::string> series;
  for (const auto& row : rows) {
    std::string& text = series[row.value("rail", "")];
    const json& uw = member(row, "power_uw");
    if (!uw.is_number() || !row.contains("t_ns")) {
      if (!text.empty() && !ends_with(text, "\n\n")) text += "\n";
      continue;
    }
    text += seconds_since(row.value("t_ns", int64_t{0}), start_ns) + " " + plot_number(uw.get<double>() / 1e6) + "\n";
    ++readings;
  }
  return series;
}

std::string event_lines(const json& report, int64_t start_ns) {
  std::string out;
  for (const auto& e : member(report, "clock_events")) {
    if (!e.contains("boot_ns") || !e["boot_ns"].is_number_integer()) continue;
    std::string t = seconds_since(e["boot_ns"].get<int64_t>(), start_ns);
    std::string what = e.value("kind", std::string("event")) + " " + e.value("domain", std::string());
    out.append("set arrow from first ").append(t).append(", graph 0 to first ").append(t);
    out.append(", graph 1 nohead dt 2 lc 'gray40'\n");
    out += "set label " + gnuplot_string(what) + " at first " + t + ", graph 0.98 rotate by 90 right offset 1,0\n";
  }
  return out;
}

std::string run_title(const json& report) {
  const json& run = member(report, "run");
  std::string title = "run " + std::to_string(run.value("id", int64_t{0})) + " (" + run.value("name", std::string()) +
                      "): power per rail";
  // What the figures are worth, as the report says (docs/PROTOCOL.md "Quality").
  const json& q = member(report, "quality");
  if (!q.is_object() || !q.contains("verdict") || !q["verdict"].is_string()) return title;
  std::string failed;
  for (const auto& c : member(q, "checks")) {
    if (c.is_object() && c.value("outcome", "") != "pass") failed += (failed.empty() ? "" : ", ") + c.value("name", "");
  }
  std::string verdict = q["verdict"].get<std::string>();
  for (auto& ch : verdict) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return title + "; quality " + verdict + (failed.empty() ? "" : " (" + failed + ")");
}

}  // namespace

Result<PlotFormat> format_of_file(const std::string& path) {
  if (ends_with(path, ".png")) return PlotFormat::kPng;
  if (ends_with(path, ".svg")) return PlotFormat::kSvg;
  if (ends_with(path, ".pdf")) return PlotFormat::kPdf;
  return make_error(ErrorCode::kInvalid, "--out '" + path + "' must end in .png, .svg or .pdf");
}

Result<Plot> run_power_plot(const json& report, const std::vector<json>& rows, const PlotOptions& options,
                            const std::string& path) {
  const json& start = member(member(report, "run"), "start_ns");
  if (!start.is_number_integer()) return make_error(ErrorCode::kProtocol, "the run report has no run.start_ns");
  size_t readings = 0;
  auto series = rail_series(rows, start.get<int64_t>(), readings);
  if (readings == 0) return make_error(ErrorCode::kNotFound, "the run has no stored power readings to plot");
  Plot p{path, plot_header(options, path), {}};
  p.script += "set title " + gnuplot_string(run_title(report)) + "\nset xlabel 'time since the run''s start (s)'\n";
  p.script +=
      "set ylabel 'power (W)'\nset yrange [0:*]\nset key outside right\n" + event_lines(report, start.get<int64_t>());
  std::string plots;
  for (const auto& [rail, text] : series) {
    std::string name = "rail-" + std::to_string(p.data.size()) + ".dat";
    plots += (plots.empty() ? "plot " : ", ") + gnuplot_string(name) + " using 1:2 with lines lw 2 title " +
             gnuplot_string(rail);
    p.data.push_back({name, text.empty() ? "NaN NaN\n" : text});
  }
  p.script += plots + "\n";
  return p;
}

}  // namespace energy::cli
