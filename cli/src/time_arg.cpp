#include "time_arg.h"

#include <time.h>

#include <charconv>
#include <cstdio>
#include <regex>

namespace energy::cli {
namespace {

constexpr int64_t kNs = 1'000'000'000;

Result<int64_t> parse_relative(const std::string& t, int64_t now) {
  int64_t n = 0;
  auto [p, ec] = std::from_chars(t.data() + 1, t.data() + t.size() - 1, n);
  if (ec != std::errc() || p != t.data() + t.size() - 1 || n < 0) {
    return make_error(ErrorCode::kInvalid, "cannot read the relative time '" + t + "' (e.g. -15m)");
  }
  switch (t.back()) {
    case 's': return now - n * kNs;
    case 'm': return now - n * 60 * kNs;
    case 'h': return now - n * 3600 * kNs;
    case 'd': return now - n * 86400 * kNs;
    default: return make_error(ErrorCode::kInvalid, "relative time '" + t + "' needs a unit: s, m, h or d");
  }
}

Result<int64_t> parse_utc(const std::string& t) {
  static const std::regex kDate(R"((\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?Z?)");
  std::smatch m;
  if (!std::regex_match(t, m, kDate)) {
    return make_error(ErrorCode::kInvalid, "cannot read the time '" + t +
                                               "' (use now, -15m, @EPOCH_SECONDS or 2026-11-22T03:00:00Z)");
  }
  tm parts{};
  parts.tm_year = std::stoi(m[1]) - 1900;
  parts.tm_mon = std::stoi(m[2]) - 1;
  parts.tm_mday = std::stoi(m[3]);
  parts.tm_hour = m[4].matched ? std::stoi(m[4]) : 0;
  parts.tm_min = m[5].matched ? std::stoi(m[5]) : 0;
  parts.tm_sec = m[6].matched ? std::stoi(m[6]) : 0;
  return static_cast<int64_t>(timegm(&parts)) * kNs;
}

}  // namespace

Result<int64_t> parse_time_arg(const std::string& t, int64_t now) {
  if (t == "now") return now;
  if (t.size() >= 3 && t[0] == '-') return parse_relative(t, now);
  if (t.size() >= 2 && t[0] == '@') {
    int64_t s = 0;
    auto [p, ec] = std::from_chars(t.data() + 1, t.data() + t.size(), s);
    if (ec != std::errc() || p != t.data() + t.size()) {
      return make_error(ErrorCode::kInvalid, "cannot read the epoch time '" + t + "'");
    }
    return s * kNs;
  }
  return parse_utc(t);
}

std::string format_wall_ns(int64_t wall_ns) {
  time_t secs = static_cast<time_t>(wall_ns / kNs);
  tm parts{};
  gmtime_r(&secs, &parts);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1,
                parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec, static_cast<int>((wall_ns % kNs) / 1'000'000));
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
