#include "energy/residency_counters.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace energy {
namespace {

constexpr int64_t kNsPerUserTick = 10000000;  // USER_HZ = 100: cputime_to_clock_t
constexpr int64_t kNsPerMs = 1000000;
constexpr int64_t kHzPerKhz = 1000;
constexpr int64_t kMaxValue = INT64_MAX / kNsPerUserTick;  // so a conversion to ns cannot overflow

Error malformed(std::string_view what, std::string_view line, const char* why) {
  return make_error(ErrorCode::kParse, std::string(what) + ": " + why + " in line '" + std::string(line) + "'");
}

// The next whitespace-separated word of `rest`, consumed.
std::string_view next_word(std::string_view& rest) {
  const size_t begin = rest.find_first_not_of(" \t");
  if (begin == std::string_view::npos) {
    rest = {};
    return {};
  }
  const size_t end = rest.find_first_of(" \t", begin);
  std::string_view word = rest.substr(begin, end == std::string_view::npos ? rest.size() - begin : end - begin);
  rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  return word;
}

// A decimal number in [0, kMaxValue], nothing else.
bool parse_count(std::string_view word, int64_t& out) {
  if (word.empty()) return false;
  auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), out);
  return ec == std::errc() && end == word.data() + word.size() && out >= 0 && out <= kMaxValue;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty()) out.push_back(line);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return out;
}

// "<kHz> <ticks>".
Result<FrequencyTime> time_in_state_line(std::string_view line, std::string_view what) {
  std::string_view rest = line;
  int64_t khz = 0;
  int64_t ticks = 0;
  if (!parse_count(next_word(rest), khz) || !parse_count(next_word(rest), ticks) || !next_word(rest).empty()) {
    return malformed(what, line, "not '<kHz> <time>'");
  }
  if (khz == 0) return malformed(what, line, "zero frequency");
  return FrequencyTime{khz * kHzPerKhz, ticks * kNsPerUserTick};
}

// "[*]<Hz>: <n transitions>... <ms>": the frequency, the last number the time.
Result<FrequencyTime> trans_stat_row(std::string_view line, size_t columns, std::string_view what) {
  std::string_view rest = line;
  if (!rest.empty() && rest.front() == '*') rest.remove_prefix(1);
  const size_t colon = rest.find(':');
  if (colon == std::string_view::npos) return malformed(what, line, "no ':'");
  std::string_view head = rest.substr(0, colon);
  int64_t hz = 0;
  if (!parse_count(next_word(head), hz) || hz == 0 || !next_word(head).empty()) {
    return malformed(what, line, "no frequency before ':'");
  }
  rest = rest.substr(colon + 1);
  int64_t value = 0;
  size_t numbers = 0;
  for (std::string_view word = next_word(rest); !word.empty(); word = next_word(rest), ++numbers) {
    if (!parse_count(word, value)) return malformed(what, line, "not a count");
  }
  if (numbers != columns + 1) return malformed(what, line, "wrong number of columns");
  return FrequencyTime{hz, value * kNsPerMs};
}

// The header's frequency count: "           :  f1  f2 ...   time(ms)".
Result<size_t> trans_stat_columns(std::string_view line, std::string_view what) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || line.find("time(ms)") == std::string_view::npos) {
    return malformed(what, line, "not the header of frequencies and time(ms)");
  }
  std::string_view rest = line.substr(colon + 1);
  size_t columns = 0;
  int64_t hz = 0;
  for (std::string_view word = next_word(rest); word != "time(ms)"; word = next_word(rest), ++columns) {
    if (!parse_count(word, hz)) return malformed(what, line, "not a frequency");
  }
  return columns;
}

// Rows at strictly increasing instants in (from_ns, to_ns], the last ones
// kept when they do not all fit (counted time beyond the interval is the
// kernel's truncation or the reads' duration).
std::vector<ContextRow> spread_within(std::vector<ContextRow> rows, int64_t from_ns, int64_t to_ns) {
  int64_t lower = from_ns + 1;
  for (ContextRow& r : rows) {
    r.t_ns = std::max(r.t_ns, lower);
    lower = r.t_ns + 1;
  }
  int64_t upper = to_ns;
  for (auto it = rows.rbegin(); it != rows.rend(); ++it) {
    it->t_ns = std::min(it->t_ns, upper);
    upper = it->t_ns - 1;
  }
  rows.erase(rows.begin(),
             std::find_if(rows.begin(), rows.end(), [from_ns](const ContextRow& r) { return r.t_ns > from_ns; }));
  return rows;
}

}  // namespace

Result<ResidencyCounters> parse_time_in_state(std::string_view text, std::string_view what) {
  ResidencyCounters out;
  for (std::string_view line : lines_of(text)) {
    Result<FrequencyTime> entry = time_in_state_line(line, what);
    if (!entry) return entry.take_error();
    out.push_back(*entry);
  }
  if (out.empty()) return make_error(ErrorCode::kParse, std::string(what) + ": empty");
  return out;
}

Result<ResidencyCounters> parse_trans_stat(std::string_view text, std::string_view what) {
  const std::vector<std::string_view> lines = lines_of(text);
  // "From : To", the header, at least one row, "Total transition : N".
  if (lines.size() < 4 || lines.back().rfind("Total transition", 0) != 0) {
    return make_error(ErrorCode::kParse, std::string(what) + ": not a devfreq transition table");
  }
  Result<size_t> columns = trans_stat_columns(lines[1], what);
  if (!columns) return columns.take_error();
  ResidencyCounters out;
  for (size_t i = 2; i + 1 < lines.size(); ++i) {
    Result<FrequencyTime> row = trans_stat_row(lines[i], *columns, what);
    if (!row) return row.take_error();
    out.push_back(*row);
  }
  if (out.size() != *columns)
    return make_error(ErrorCode::kParse, std::string(what) + ": rows do not match the header");
  return out;
}

Result<ResidencyCounters> parse_counters(CounterFormat format, std::string_view text, std::string_view what) {
  return format == CounterFormat::kTimeInState ? parse_time_in_state(text, what) : parse_trans_stat(text, what);
}

Result<ResidencyCounters> counter_delta(const ResidencyCounters& before, const ResidencyCounters& after,
                                        std::string_view what) {
  if (before.size() != after.size()) {
    return make_error(ErrorCode::kInvalid, std::string(what) + ": the list of frequencies changed");
  }
  ResidencyCounters out;
  for (size_t i = 0; i < after.size(); ++i) {
    if (before[i].hz != after[i].hz) {
      return make_error(ErrorCode::kInvalid, std::string(what) + ": the list of frequencies changed");
    }
    if (after[i].ns < before[i].ns) {
      return make_error(ErrorCode::kInvalid, std::string(what) + ": the time at " + std::to_string(after[i].hz) +
                                                 " Hz went backwards (counters reset?)");
    }
    if (after[i].ns > before[i].ns) out.push_back(FrequencyTime{after[i].hz, after[i].ns - before[i].ns});
  }
  return out;
}

int64_t counter_unit_ns(CounterFormat format) {
  return format == CounterFormat::kTimeInState ? kNsPerUserTick : kNsPerMs;
}

Status check_coverage(const ResidencyCounters& delta, size_t listed, int64_t unit_ns, int64_t elapsed_ns,
                      int64_t slack_ns, std::string_view what) {
  int64_t counted = 0;
  for (const FrequencyTime& f : delta) counted += f.ns;
  const int64_t tolerance = static_cast<int64_t>(listed + 1) * unit_ns + slack_ns;
  if (counted >= elapsed_ns - tolerance && counted <= elapsed_ns + tolerance) return ok_status();
  return make_error(ErrorCode::kInvalid, std::string(what) + ": counted " + std::to_string(counted / kNsPerMs) +
                                             " ms in " + std::to_string(elapsed_ns / kNsPerMs) +
                                             " ms between two reads (the counters do not follow the clock)");
}

std::vector<ContextRow> counted_rows(const ResidencyCounters& delta, int64_t from_ns, int64_t to_ns,
                                     std::optional<int64_t> prev_hz, std::optional<int64_t> cur_hz) {
  const auto time_of = [&delta](int64_t hz) {
    const auto it = std::find_if(delta.begin(), delta.end(), [hz](const FrequencyTime& f) { return f.hz == hz; });
    return it == delta.end() ? int64_t{0} : it->ns;
  };
  // prev_hz is in force at from_ns: no row, its time first.
  int64_t t = from_ns + (prev_hz && prev_hz != cur_hz ? time_of(*prev_hz) : 0);
  std::vector<ContextRow> rows;
  for (const FrequencyTime& f : delta) {
    if (f.hz == prev_hz || f.hz == cur_hz) continue;
    rows.push_back(ContextRow{t, ContextValue::of_number(f.hz)});
    t += f.ns;
  }
  if (cur_hz && cur_hz != prev_hz) rows.push_back(ContextRow{t, ContextValue::of_number(*cur_hz)});
  if (cur_hz && cur_hz == prev_hz && !rows.empty()) rows.push_back(ContextRow{t, ContextValue::of_number(*cur_hz)});
  return spread_within(std::move(rows), from_ns, to_ns);
}

}  // namespace energy
