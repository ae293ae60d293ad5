#include "sweep_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "pin_args.h"
#include "sweep_heatmap.h"

namespace energy::cli {
namespace {

std::string gp_str(const std::string& text) { return gnuplot_string(text); }

// The lowest cell's frame, and the margins that keep points off the plots' edges.
constexpr const char* kOutline = "front fillstyle empty border lc 'black' lw 4\n";
constexpr const char* kMargins = "set offsets graph 0.05, graph 0.05, graph 0.08, graph 0.08\n";

// The sweep, and how many of its measured runs failed their quality gate
// (re-run, or left out): the figures rest on the others only.
std::string sweep_title(const SweepResults& r) {
  std::string name = r.sweep.value("name", "");
  size_t failed = 0;
  for (const auto& row : r.runs) {
    if (row.role == "rejected" || (row.role == "measure" && row.left_out.rfind("failed its quality gate", 0) == 0))
      ++failed;
  }
  return "sweep " + std::to_string(r.sweep.value("id", int64_t{0})) + (name.empty() ? "" : " (" + name + ")") +
         (failed == 0 ? "" : " [" + std::to_string(failed) + " runs failed their quality gate, not counted]");
}

std::string file_path(const SweepResults& r, const PlotOptions& o, const std::string& plot) {
  return o.dir + "/sweep-" + std::to_string(r.sweep.value("id", int64_t{0})) + "-" + plot + "." +
         plot_extension(o.format);
}

// ---- heatmap ----

// The DVFS reference's mean energy for these parameter values, if measured.
std::optional<double> dvfs_mean(const SweepResults& r, const std::vector<std::string>& params) {
  for (const auto& pr : r.points) {
    const LayoutPoint& p = r.layout->points[pr.point];
    if (p.dvfs && p.params == params) return pr.stats.energy.mean;
  }
  return std::nullopt;
}

template <typename Set>
std::string index_tics(const char* axis, const Set& hz) {
  std::string out = std::string("set ") + axis + "tics (";
  size_t i = 0;
  for (int64_t v : hz) {
    out += (i ? ", " : "") + gp_str(exact_mhz(v)) + " " + std::to_string(i);
    ++i;
  }
  return out + ")\n";
}

template <typename Set>
size_t index_of(const Set& set, int64_t v) {
  return static_cast<size_t>(std::distance(set.begin(), set.find(v)));
}

std::string panel_title(const SweepResults& r, const std::string& rest, const HeatmapGrid& g) {
  auto dvfs = dvfs_mean(r, g.params);
  std::string dvfs_text = dvfs ? "DVFS " + label_number(*dvfs) + " J/" + r.unit : "DVFS not measured";
  return rest.empty() ? dvfs_text : rest + "; " + dvfs_text;
}

// The cells' data ("column row mean") and their text labels, the lowest circled.
std::string heatmap_cells(const HeatmapGrid& g, std::string& data) {
  double lo = INFINITY;
  for (const auto& [k, v] : g.cells) lo = std::min(lo, v);
  std::string labels;
  for (const auto& [k, v] : g.cells) {
    std::string col = std::to_string(index_of(g.cols, k.second)), row = std::to_string(index_of(g.rows, k.first));
    data.append(col).append(" ").append(row).append(" ").append(plot_number(v)).append("\n");
    std::string at = col;
    at.append(",").append(row);
    bool lowest = v == lo;
    labels.append("set label ").append(gp_str(label_number(v) + (lowest ? " minimum" : ""))).append(" at ");
    labels.append(at).append(" center front\n");
    if (lowest) labels.append("set object rectangle center ").append(at).append(" size 1,1 ").append(kOutline);
  }
  return labels;
}

std::string heatmap_panel(const SweepResults& r, const std::string& rest, const HeatmapGrid& g, size_t k,
                          std::vector<PlotData>& data) {
  PlotData d{"heat-" + std::to_string(k) + ".dat", ""};
  std::string s = "unset label\nunset object\nset title " + gp_str(panel_title(r, rest, g)) + "\n";
  s += "set xrange [-0.5:" + plot_number(static_cast<double>(g.cols.size()) - 0.5) + "]\n";
  s += "set yrange [-0.5:" + plot_number(static_cast<double>(g.rows.size()) - 0.5) + "]\n";
  s += index_tics("x", g.cols) + index_tics("y", g.rows) + heatmap_cells(g, d.text);
  if (d.text.empty()) d.text = "NaN NaN NaN\n";  // a panel of unmeasured points stays drawable
  s += "plot " + gp_str(d.name) + " using 1:2:(0.5):(0.5):3 with boxxyerror fillstyle solid lc palette\n";
  data.push_back(std::move(d));
  return s;
}

Plot heatmap_plot(const SweepResults& r, const PlotOptions& o) {
  Plot p{file_path(r, o, "heatmap"), plot_header(o, file_path(r, o, "heatmap")), {}};
  HeatmapAxes a = heatmap_axes(*r.layout);
  auto grids = heatmap_grids(r, a);
  size_t cols = static_cast<size_t>(std::ceil(std::sqrt(static_cast<double>(grids.size()))));
  size_t rows = (grids.size() + cols - 1) / cols;
  p.script += "set palette defined (0 '#1a9850', 0.5 '#fee08b', 1 '#d73027')\nunset key\n";
  p.script += "set xlabel " + gp_str(r.layout->domains[a.col] + " MHz") + "\nset ylabel " +
              gp_str(r.layout->domains[a.row] + " MHz") + "\nset cblabel " + gp_str("J/" + r.unit) + "\n";
  p.script += "set multiplot layout " + std::to_string(rows) + "," + std::to_string(cols) + " title " +
              gp_str(sweep_title(r) + ": mean energy per " + r.unit) + "\n";
  size_t k = 0;
  for (const auto& [rest, grid] : grids) p.script += heatmap_panel(r, rest, grid, k++, p.data);
  p.script += "unset multiplot\n";
  return p;
}

// ---- energy against time ----

// What a point is labelled with ("minimum energy, fastest: cpu ... MHz"; a
// DVFS reference by its label alone, which says DVFS); empty: no label.
std::string names_of(const SweepResults& r, size_t i) {
  std::string names;
  if (r.minimum && r.minimum->best == i) names = "minimum energy";
  if (r.fastest && *r.fastest == i) names += (names.empty() ? "" : ", ") + std::string("fastest");
  bool dvfs = std::any_of(r.dvfs.begin(), r.dvfs.end(), [i](const DvfsComparison& d) { return d.dvfs == i; });
  if (names.empty()) return dvfs ? result_label(r, i) : "";
  return names + ": " + result_label(r, i);
}

std::string point_row(const PointStats& s) {
  return plot_number(s.time.mean) + " " + plot_number(s.energy.mean) + " " + plot_number(s.time.ci95_half.value_or(0)) +
         " " + plot_number(s.energy.ci95_half.value_or(0)) + "\n";
}

Plot energy_time_plot(const SweepResults& r, const PlotOptions& o) {
  Plot p{file_path(r, o, "energy-time"), plot_header(o, file_path(r, o, "energy-time")), {}};
  PlotData points{"points.dat", ""}, front{"pareto.dat", ""};
  for (size_t i = 0; i < r.points.size(); ++i) {
    const PointStats& s = r.points[i].stats;
    points.text += point_row(s);
    std::string names = names_of(r, i);
    if (!names.empty())
      p.script += "set label " + gp_str(names) + " at " + plot_number(s.time.mean) + "," + plot_number(s.energy.mean) +
                  " offset 1,1 front\n";
  }
  for (size_t i : r.pareto) front.text += point_row(r.points[i].stats);
  p.script += "set title " + gp_str(sweep_title(r) + ": energy against time per " + r.unit + ", 95% CI") + "\n";
  p.script += "set xlabel " + gp_str("time per " + r.unit + " (s)") + "\nset ylabel " +
              gp_str("energy per " + r.unit + " (J)") + "\nset key top right\n" + kMargins;
  p.script += "plot " + gp_str(points.name) + " using 1:2:3:4 with xyerrorbars pt 7 title 'points (95% CI)', " +
              gp_str(front.name) + " using 1:2 with lines lw 2 title 'Pareto front'\n";
  p.data = {std::move(points), std::move(front)};
  return p;
}

// ---- energy against a clock ----

size_t freq_axis(const SweepLayout& l) {
  auto it = std::find(l.domains.begin(), l.domains.end(), "gpu");
  return it == l.domains.end() ? 0 : static_cast<size_t>(it - l.domains.begin());
}

std::string group_label(const SweepLayout& l, const LayoutPoint& p, size_t axis) {
  std::string out;
  for (size_t i = 0; i < p.hz.size(); ++i) {
    if (i != axis) out += (out.empty() ? "" : ", ") + l.domains[i] + " " + exact_mhz(p.hz[i]) + " MHz";
  }
  for (size_t i = 0; i < p.params.size(); ++i) out += (out.empty() ? "" : ", ") + l.params[i] + "=" + p.params[i];
  return out.empty() ? "all points" : out;
}

using Line = std::pair<std::string, std::map<int64_t, const SampleSummary*>>;

// One line per value of the other axes, in the layout's order (ascending
// clocks, parameters as given), not sorted as text ("1510.4" before "806.4").
std::vector<Line> freq_lines(const SweepResults& r, size_t axis) {
  std::vector<Line> lines;
  for (const auto& pr : r.points) {
    const LayoutPoint& p = r.layout->points[pr.point];
    if (p.dvfs) continue;
    std::string label = group_label(*r.layout, p, axis);
    auto it = std::find_if(lines.begin(), lines.end(), [&](const Line& l) { return l.first == label; });
    if (it == lines.end()) it = lines.insert(lines.end(), Line{label, {}});
    it->second[p.hz[axis]] = &pr.stats.energy;
  }
  return lines;
}

Plot freq_plot(const SweepResults& r, const PlotOptions& o) {
  size_t axis = freq_axis(*r.layout);
  const std::string& domain = r.layout->domains[axis];
  Plot p{file_path(r, o, "energy-" + domain), plot_header(o, file_path(r, o, "energy-" + domain)), {}};
  PlotData d{"lines.dat", ""};
  std::string plots;
  size_t k = 0;
  for (const auto& [label, line] : freq_lines(r, axis)) {
    for (const auto& [hz, e] : line)
      d.text += plot_number(static_cast<double>(hz) / 1e6) + " " + plot_number(e->mean) + " " +
                plot_number(e->ci95_half.value_or(0)) + "\n";
    d.text += "\n\n";
    plots += std::string(k ? ", " : "") + gp_str(d.name) + " index " + std::to_string(k) +
             " using 1:2:3 with yerrorlines lw 2 title " + gp_str(label);
    ++k;
  }
  p.script += "set title " + gp_str(sweep_title(r) + ": energy per " + r.unit + " against " + domain + ", 95% CI") +
              "\nset xlabel " + gp_str(domain + " MHz") + "\nset ylabel " + gp_str("energy per " + r.unit + " (J)") +
              "\nset key outside right\n" + kMargins + "plot " + plots + "\n";
  p.data.push_back(std::move(d));
  return p;
}

bool any_clock_point(const SweepResults& r) {
  return std::any_of(r.points.begin(), r.points.end(),
                     [&](const PointResult& p) { return !r.layout->points[p.point].dvfs; });
}

}  // namespace

std::string plot_extension(PlotFormat format) {
  switch (format) {
    case PlotFormat::kSvg: return "svg";
    case PlotFormat::kPdf: return "pdf";
    case PlotFormat::kPng: break;
  }
  return "png";
}

std::string plot_header(const PlotOptions& o, const std::string& path) {
  std::string size = std::to_string(o.width) + "," + std::to_string(o.height);
  std::string term = "pngcairo size " + size;
  if (o.format == PlotFormat::kSvg) term = "svg size " + size + " dynamic background '#ffffff'";
  if (o.format == PlotFormat::kPdf)
    term = "pdfcairo size " + plot_number(o.width / 96.0) + "in," + plot_number(o.height / 96.0) + "in";
  return "set terminal " + term + " noenhanced font 'sans,10'\nset output " + gp_str(path) + "\n";
}

std::string plot_number(double value) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", value);
  return buf;
}

std::string label_number(double value) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.4g", value);
  return buf;
}

SweepPlots sweep_plots(const SweepResults& r, const PlotOptions& o) {
  SweepPlots out;
  if (r.points.empty()) {
    out.skipped.push_back("no plots: the sweep has no counted runs");
    return out;
  }
  bool clocks = r.layout && !r.layout->domains.empty() && any_clock_point(r);
  if (clocks && r.layout->domains.size() >= 2) {
    out.plots.push_back(heatmap_plot(r, o));
  } else {
    out.skipped.push_back("heatmap: the sweep has fewer than two clock axes with measured points");
  }
  out.plots.push_back(energy_time_plot(r, o));
  if (clocks) {
    out.plots.push_back(freq_plot(r, o));
  } else {
    out.skipped.push_back("energy against frequency: no clock axis with measured points");
  }
  return out;
}

}  // namespace energy::cli
