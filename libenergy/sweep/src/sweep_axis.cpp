#include "energy/sweep_axis.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "energy/attr_file.h"
#include "energy/clock_pin.h"
#include "split_list.h"

namespace energy {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "600m" -> "600mhz", "1200000000" -> "1200000000hz"; other text unchanged.
std::string explicit_unit(const std::string& text) {
  std::string t = lower(text);
  if (all_digits(t)) return t + "hz";
  if (!t.empty() && (t.back() == 'k' || t.back() == 'm' || t.back() == 'g')) return t + "hz";
  return t;
}

Error option_error(const std::string& domain, const std::string& what) {
  return make_error(ErrorCode::kInvalid, "--" + domain + ": " + what);
}

std::string nearest_text(const std::vector<int64_t>& table, int64_t hz) {
  auto above = std::lower_bound(table.begin(), table.end(), hz);
  std::string out;
  if (above != table.begin()) out = "nearest below " + format_mhz(*(above - 1));
  if (above != table.end()) out += std::string(out.empty() ? "" : ", ") + "nearest above " + format_mhz(*above);
  return out;
}

// A single value item (a frequency, min, max or mid) as a table position.
Result<size_t> value_index(const std::string& domain, const std::string& item, const std::vector<int64_t>& table) {
  std::string t = lower(item);
  if (t == "min") return size_t{0};
  if (t == "max") return table.size() - 1;
  if (t == "mid") return (table.size() - 1) / 2;
  auto hz = parse_sweep_hz(item);
  if (!hz) return option_error(domain, hz.error().message);
  auto it = std::lower_bound(table.begin(), table.end(), *hz);
  if (it == table.end() || *it != *hz) {
    return option_error(
        domain, format_mhz(*hz) + " ('" + item + "') is not in the clock table (" + nearest_text(table, *hz) + ")");
  }
  return static_cast<size_t>(it - table.begin());
}

Result<int64_t> whole_number(const std::string& domain, const std::string& item, const std::string& text, int64_t min) {
  if (!all_digits(text) || text.size() > 6 || std::stoll(text) < min) {
    return option_error(domain, "'" + item + "' needs a whole number >= " + std::to_string(min));
  }
  return std::stoll(text);
}

Status add_every(const std::string& domain, const std::string& item, size_t size, std::set<size_t>& out) {
  auto n = whole_number(domain, item, item.substr(6), 1);
  if (!n) return n.take_error();
  for (size_t i = 0; i < size; i += static_cast<size_t>(*n)) out.insert(i);
  out.insert(size - 1);
  return ok_status();
}

// LO..HI or LO..HI/K.
Status add_range(const std::string& domain, const std::string& item, const std::vector<int64_t>& table,
                 std::set<size_t>& out) {
  size_t dots = item.find("..");
  size_t slash = item.find('/', dots);
  auto lo = value_index(domain, item.substr(0, dots), table);
  if (!lo) return lo.take_error();
  auto hi = value_index(domain, item.substr(dots + 2, slash == std::string::npos ? slash : slash - dots - 2), table);
  if (!hi) return hi.take_error();
  if (*lo > *hi) return option_error(domain, "range '" + item + "' runs downwards; write LO..HI");
  if (slash == std::string::npos) {
    for (size_t i = *lo; i <= *hi; ++i) out.insert(i);
    return ok_status();
  }
  auto k = whole_number(domain, item, item.substr(slash + 1), 2);
  if (!k) return k.take_error();
  const auto span = static_cast<double>(*hi - *lo);
  const auto steps = static_cast<double>(*k - 1);
  for (int64_t j = 0; j < *k; ++j)
    out.insert(*lo + static_cast<size_t>(std::llround(span * static_cast<double>(j) / steps)));
  return ok_status();
}

Status add_item(const std::string& domain, const std::string& item, const std::vector<int64_t>& table,
                std::set<size_t>& out) {
  std::string t = lower(item);
  if (t.empty()) return option_error(domain, "empty item in the list");
  if (t == "all") return add_range(domain, "min..max", table, out);
  if (t.rfind("every:", 0) == 0) return add_every(domain, item, table.size(), out);
  if (t.find("..") != std::string::npos) return add_range(domain, item, table, out);
  auto i = value_index(domain, item, table);
  if (!i) return i.take_error();
  out.insert(*i);
  return ok_status();
}

}  // namespace

Result<int64_t> parse_sweep_hz(const std::string& text) {
  std::string t = lower(text);
  if (t == "min" || t == "max") return make_error(ErrorCode::kInvalid, "'" + text + "' is not a frequency");
  auto bound = parse_freq_bound(explicit_unit(text));
  if (!bound)
    return make_error(
        ErrorCode::kInvalid,
        "frequency '" + text + "' is not a number with an optional unit (600M, 1.2G, 624.75MHz, 1200000000)");
  if (bound->hz <= 0) return make_error(ErrorCode::kInvalid, "frequency '" + text + "' is not above 0 Hz");
  return bound->hz;
}

Result<ClockAxis> parse_clock_axis(const std::string& domain, const std::string& spec,
                                   const std::vector<int64_t>& table) {
  if (table.empty()) return option_error(domain, "the board lists no frequencies for this domain");
  if (!std::is_sorted(table.begin(), table.end()) || std::adjacent_find(table.begin(), table.end()) != table.end()) {
    return option_error(domain, "the clock table is not ascending and distinct");
  }
  std::set<size_t> picked;
  for (const std::string& item : split_commas(spec)) {
    Status s = add_item(domain, item, table, picked);
    if (!s) return s.take_error();
  }
  ClockAxis axis{domain, {}, {}};
  for (size_t i : picked) {
    axis.index.push_back(i);
    axis.hz.push_back(table[i]);
  }
  return axis;
}

}  // namespace energy
