#include "time_arg.h"

#include <time.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>

namespace energy::cli {
namespace {

constexpr int64_t kNs = 1'000'000'000;
constexpr int kMinYear = 1970;
constexpr int kMaxYear = 2261;  // int64 nanoseconds reach 2262-04-11
constexpr const char* kForms =
    "expected now, -15m (s, m, h, d), @EPOCH_SECONDS, or YYYY-MM-DD[THH:MM[:SS[.frac]]][Z|+HH:MM|-HH:MM], "
    "e.g. 2026-11-22T03:00:00Z";

Error bad_time(const std::string& t, const std::string& why) {
  return make_error(ErrorCode::kInvalid, "cannot read the time '" + t + "': " + why + "; " + kForms);
}

Result<int64_t> parse_relative(const std::string& t, int64_t now) {
  int64_t n = 0;
  auto [p, ec] = std::from_chars(t.data() + 1, t.data() + t.size() - 1, n);
  if (ec != std::errc() || p != t.data() + t.size() - 1 || t[1] == '-') return bad_time(t, "not a relative time");
  int64_t unit_s = t.back() == 's' ? 1 : t.back() == 'm' ? 60 : t.back() == 'h' ? 3600 : t.back() == 'd' ? 86400 : 0;
  if (unit_s == 0) return bad_time(t, "a relative time needs a unit: s, m, h or d");
  if (n > now / (unit_s * kNs)) return bad_time(t, "it reaches before 1970");
  return now - n * unit_s * kNs;
}

Result<int64_t> parse_epoch(const std::string& t) {
  int64_t s = 0;
  auto [p, ec] = std::from_chars(t.data() + 1, t.data() + t.size(), s);
  if (ec != std::errc() || p != t.data() + t.size() || t[1] == '-') return bad_time(t, "not whole epoch seconds");
  if (s > std::numeric_limits<int64_t>::max() / kNs) return bad_time(t, "too far in the future");
  return s * kNs;
}

// Reads `digits` decimal digits at text[pos], advancing pos; -1 when absent.
int digits_at(const std::string& text, size_t& pos, size_t digits) {
  if (pos + digits > text.size()) return -1;
  int v = 0;
  for (size_t i = 0; i < digits; ++i) {
    char c = text[pos + i];
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  pos += digits;
  return v;
}

bool take(const std::string& text, size_t& pos, const char* chars) {
  if (pos >= text.size() || std::strchr(chars, text[pos]) == nullptr) return false;
  ++pos;
  return true;
}

struct DateTime {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  int64_t frac_ns = 0;
  int offset_s = 0;  // east of UTC
};

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in(int year, int month) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && leap(year) ? 29 : kDays[month - 1];
}

// ".250": up to 9 digits of a second.
bool read_fraction(const std::string& t, size_t& pos, int64_t& frac_ns) {
  if (!take(t, pos, ".")) return true;
  size_t first = pos;
  int64_t scale = 100'000'000;
  for (; pos < t.size() && t[pos] >= '0' && t[pos] <= '9' && pos - first < 9; ++pos, scale /= 10) {
    frac_ns += (t[pos] - '0') * scale;
  }
  return pos > first;
}

// "Z", "+HH", "+HHMM", "+HH:MM" or "-..."; nothing means UTC.
Status read_zone(const std::string& t, size_t& pos, int& offset_s) {
  if (pos == t.size() || (take(t, pos, "Z") && pos == t.size())) return ok_status();
  int sign = pos < t.size() && t[pos] == '-' ? -1 : 1;
  if (!take(t, pos, "+-")) return bad_time(t, "unexpected '" + t.substr(pos) + "'");
  int hh = digits_at(t, pos, 2);
  int mm = 0;
  if (hh >= 0 && pos < t.size()) {
    (void)take(t, pos, ":");
    mm = digits_at(t, pos, 2);
  }
  if (hh < 0 || mm < 0 || pos != t.size()) return bad_time(t, "the zone must be Z, +HH:MM, -HH:MM, +HHMM or +HH");
  if (hh > 23 || mm > 59) return bad_time(t, "the zone offset must be at most 23:59");
  offset_s = sign * (hh * 3600 + mm * 60);
  return ok_status();
}

// "HH:MM[:SS[.frac]]" after the date's T or space.
Status read_clock(const std::string& t, size_t& pos, DateTime& dt) {
  dt.hour = digits_at(t, pos, 2);
  bool ok = dt.hour >= 0 && take(t, pos, ":") && (dt.minute = digits_at(t, pos, 2)) >= 0;
  if (ok && take(t, pos, ":")) ok = (dt.second = digits_at(t, pos, 2)) >= 0 && read_fraction(t, pos, dt.frac_ns);
  if (!ok) return bad_time(t, "the time of day must be HH:MM or HH:MM:SS[.frac]");
  if (dt.hour > 23) return bad_time(t, "hour " + std::to_string(dt.hour) + " is not 0-23");
  if (dt.minute > 59) return bad_time(t, "minute " + std::to_string(dt.minute) + " is not 0-59");
  if (dt.second > 60) return bad_time(t, "second " + std::to_string(dt.second) + " is not 0-60");
  return ok_status();
}

Status read_date(const std::string& t, size_t& pos, DateTime& dt) {
  dt.year = digits_at(t, pos, 4);
  bool ok = dt.year >= 0 && take(t, pos, "-") && (dt.month = digits_at(t, pos, 2)) >= 0 && take(t, pos, "-") &&
            (dt.day = digits_at(t, pos, 2)) >= 0;
  if (!ok) return bad_time(t, "not a date YYYY-MM-DD");
  if (dt.year < kMinYear || dt.year > kMaxYear) {
    return bad_time(
        t, "year " + std::to_string(dt.year) + " is not " + std::to_string(kMinYear) + "-" + std::to_string(kMaxYear));
  }
  if (dt.month < 1 || dt.month > 12) return bad_time(t, "month " + std::to_string(dt.month) + " is not 1-12");
  if (dt.day < 1 || dt.day > days_in(dt.year, dt.month)) {
    return bad_time(t, "day " + std::to_string(dt.day) + " is not 1-" + std::to_string(days_in(dt.year, dt.month)));
  }
  return ok_status();
}

Result<int64_t> parse_date_time(const std::string& t) {
  DateTime dt;
  size_t pos = 0;
  auto st = read_date(t, pos, dt);
  if (st && take(t, pos, "T ")) st = read_clock(t, pos, dt);
  if (st) st = read_zone(t, pos, dt.offset_s);
  if (!st) return st.take_error();
  tm parts{};
  parts.tm_year = dt.year - 1900;
  parts.tm_mon = dt.month - 1;
  parts.tm_mday = dt.day;
  parts.tm_hour = dt.hour;
  parts.tm_min = dt.minute;
  parts.tm_sec = dt.second;
  int64_t secs = static_cast<int64_t>(timegm(&parts)) - dt.offset_s;
  if (secs < 0) return bad_time(t, "it is before 1970");
  if (secs > std::numeric_limits<int64_t>::max() / kNs - 1) return bad_time(t, "too far in the future");
  return secs * kNs + dt.frac_ns;
}

}  // namespace

Result<int64_t> parse_time_arg(const std::string& t, int64_t now) {
  if (t == "now") return now;
  if (t.size() >= 3 && t[0] == '-') return parse_relative(t, now);
  if (t.size() >= 2 && t[0] == '@') return parse_epoch(t);
  return parse_date_time(t);
}

Result<int64_t> parse_time_option(const std::string& option, const std::string& text, int64_t now) {
  auto t = parse_time_arg(text, now);
  if (!t) return make_error(ErrorCode::kInvalid, option + ": " + t.error().message);
  return t;
}

std::string format_wall_ns(int64_t wall_ns) {
  time_t secs = static_cast<time_t>(wall_ns / kNs);
  tm parts{};
  gmtime_r(&secs, &parts);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1,
                parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec,
                static_cast<int>((wall_ns % kNs) / 1'000'000));
  return buf;
}

std::string format_local_ns(int64_t wall_ns) {
  time_t secs = static_cast<time_t>(wall_ns / kNs);
  tm parts{};
  localtime_r(&secs, &parts);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                parts.tm_hour, parts.tm_min, parts.tm_sec);
  return buf;
}

int64_t wall_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * kNs + ts.tv_nsec;
}

}  // namespace energy::cli
