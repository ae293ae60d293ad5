// Table: aligned plain-text columns for energyctl's human output. Titles
// and cells are printed through terminal_safe() (terminal_text.h), so cells
// may hold text from the daemon as it came.
//
// Thread-safety: a plain value.
#pragma once

#include <string>
#include <vector>

namespace energy::cli {

enum class Align { kLeft, kRight };

class Table {
 public:
  struct Column {
    std::string title;
    Align align = Align::kLeft;
  };
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  std::string render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Fixed-point text with `decimals` digits after the point.
std::string fixed(double value, int decimals);
// "12.5%" from a 0..1 fraction.
std::string percent(double fraction);
// Human duration: "850 ms", "12.345 s", "3 min 04 s".
std::string duration_text(double seconds);

}  // namespace energy::cli
