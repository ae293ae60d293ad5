#include "sweep_heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "pin_args.h"
#include "sweep_view.h"
#include "terminal_text.h"

namespace energy::cli {
namespace {

// xterm-256 backgrounds from green through yellow to red.
constexpr int kScale[] = {46, 82, 118, 154, 190, 226, 220, 214, 208, 202, 196};
constexpr int kScaleSteps = sizeof kScale / sizeof kScale[0];

}  // namespace

HeatmapAxes heatmap_axes(const SweepLayout& l) {
  auto find = [&](const char* d) { return std::find(l.domains.begin(), l.domains.end(), d) - l.domains.begin(); };
  HeatmapAxes a;
  a.row = static_cast<size_t>(find("cpu")) < l.domains.size() ? static_cast<size_t>(find("cpu")) : 0;
  a.col = static_cast<size_t>(find("gpu")) < l.domains.size() ? static_cast<size_t>(find("gpu")) : 0;
  if (a.col == a.row) a.col = a.row == 0 ? 1 : 0;
  return a;
}

namespace {

// The other axes' values of a point: the table it belongs to.
std::string heatmap_rest_label(const SweepLayout& l, const LayoutPoint& p, HeatmapAxes a) {
  std::string out;
  for (size_t i = 0; i < p.hz.size(); ++i) {
    if (i != a.row && i != a.col) out += (out.empty() ? "" : ", ") + l.domains[i] + " " + exact_mhz(p.hz[i]) + " MHz";
  }
  for (size_t i = 0; i < p.params.size(); ++i) out += (out.empty() ? "" : ", ") + l.params[i] + "=" + p.params[i];
  return out;
}

}  // namespace

std::map<std::string, HeatmapGrid> heatmap_grids(const SweepResults& r, HeatmapAxes a) {
  std::map<std::string, HeatmapGrid> grids;
  const SweepLayout& l = *r.layout;
  for (size_t i = 0; i < l.points.size(); ++i) {
    const LayoutPoint& p = l.points[i];
    if (p.dvfs) continue;
    HeatmapGrid& g = grids[heatmap_rest_label(l, p, a)];
    g.rows.insert(p.hz[a.row]);
    g.cols.insert(p.hz[a.col]);
    g.params = p.params;
  }
  for (const auto& pr : r.points) {
    const LayoutPoint& p = l.points[pr.point];
    if (!p.dvfs) grids[heatmap_rest_label(l, p, a)].cells[{p.hz[a.row], p.hz[a.col]}] = pr.stats.energy.mean;
  }
  return grids;
}

namespace {

std::string pad(const std::string& s, size_t width) { return std::string(width - std::min(width, s.size()), ' ') + s; }

std::string paint(const std::string& cell, double v, double lo, double hi, Colour colour) {
  if (colour == Colour::kOff) return cell;
  int step = hi > lo ? static_cast<int>(std::lround((v - lo) / (hi - lo) * (kScaleSteps - 1))) : 0;
  return "\x1b[30;48;5;" + std::to_string(kScale[step]) + "m" + cell + "\x1b[0m";
}

std::string cell_text(double v, bool lowest) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return std::string(buf) + (lowest ? "*" : " ");
}

std::string render_grid(const HeatmapGrid& g, const std::string& row_name, const std::string& col_name, Colour colour) {
  double lo = 1e300, hi = -1e300;
  for (const auto& [k, v] : g.cells) lo = std::min(lo, v), hi = std::max(hi, v);
  size_t w = 10;
  std::string out = pad(row_name + " \\ " + col_name + " MHz", 18);
  for (int64_t c : g.cols) out += " " + pad(exact_mhz(c), w);
  out += "\n";
  for (int64_t row : g.rows) {
    out += pad(exact_mhz(row), 18);
    for (int64_t c : g.cols) {
      auto it = g.cells.find({row, c});
      out += " " + (it == g.cells.end()
                        ? pad("- ", w)
                        : paint(pad(cell_text(it->second, it->second == lo), w), it->second, lo, hi, colour));
    }
    out += "\n";
  }
  return out;
}

// The DVFS reference's mean for these parameter values, as a line.
std::string dvfs_line(const SweepResults& r, const std::vector<std::string>& params) {
  for (const auto& pr : r.points) {
    const LayoutPoint& p = r.layout->points[pr.point];
    if (p.dvfs && p.params == params) return "  DVFS: " + cell_text(pr.stats.energy.mean, false) + "\n";
  }
  return "";
}

}  // namespace

std::string render_heatmaps(const SweepResults& r, Colour colour) {
  if (!r.layout || r.layout->domains.size() < 2) return "";
  HeatmapAxes a = heatmap_axes(*r.layout);
  const std::string& row_name = r.layout->domains[a.row];
  const std::string& col_name = r.layout->domains[a.col];
  std::string out;
  for (const auto& [rest, grid] : heatmap_grids(r, a)) {
    out.append("Energy J/").append(r.unit).append(", ").append(row_name).append(" (down) x ");
    out.append(col_name).append(" (across)");
    if (!rest.empty()) out += ", " + terminal_safe(rest);
    out += "; * lowest:\n";
    out += render_grid(grid, row_name, col_name, colour);
    out += dvfs_line(r, grid.params);
  }
  return out;
}

}  // namespace energy::cli
