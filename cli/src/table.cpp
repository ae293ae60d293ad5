#include "table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "terminal_text.h"

namespace energy::cli {

namespace {

std::vector<std::string> safe_cells(const std::vector<std::string>& cells) {
  std::vector<std::string> out;
  out.reserve(cells.size());
  for (const auto& cell : cells) out.push_back(terminal_safe(cell));
  return out;
}

}  // namespace

std::string Table::render() const {
  std::vector<std::string> titles;
  for (const auto& col : columns_) titles.push_back(terminal_safe(col.title));
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : rows_) rows.push_back(safe_cells(row));
  std::vector<size_t> width(columns_.size(), 0);
  for (size_t c = 0; c < columns_.size(); ++c) width[c] = titles[c].size();
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < columns_.size(); ++c) {
      std::string cell = c < cells.size() ? cells[c] : "";
      std::string pad(width[c] - std::min(width[c], cell.size()), ' ');
      out += columns_[c].align == Align::kRight ? pad + cell : cell + pad;
      if (c + 1 < columns_.size()) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(titles);
  for (const auto& row : rows) out += line(row);
  return out;
}

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string percent(double fraction) { return fixed(fraction * 100.0, 1) + "%"; }

std::string duration_text(double seconds) {
  if (seconds < 1.0) return fixed(seconds * 1000.0, 0) + " ms";
  if (seconds < 120.0) return fixed(seconds, 3) + " s";
  auto whole = static_cast<long long>(std::llround(seconds));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%lld min %02lld s", whole / 60, whole % 60);
  return buf;
}

}  // namespace energy::cli
