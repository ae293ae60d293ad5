#include "time_arg.h"

#include <gtest/gtest.h>

namespace energy::cli {
namespace {

constexpr int64_t kNow = 1'795'312'345'000'000'000;
constexpr int64_t kS = 1'000'000'000;

TEST(TimeArg, AcceptsNowRelativeEpochAndUtc) {
  EXPECT_EQ(*parse_time_arg("now", kNow), kNow);
  EXPECT_EQ(*parse_time_arg("-90s", kNow), kNow - 90 * kS);
  EXPECT_EQ(*parse_time_arg("-15m", kNow), kNow - 900 * kS);
  EXPECT_EQ(*parse_time_arg("-2h", kNow), kNow - 7200 * kS);
  EXPECT_EQ(*parse_time_arg("-1d", kNow), kNow - 86400 * kS);
  EXPECT_EQ(*parse_time_arg("@1795312345", kNow), 1795312345 * kS);
  EXPECT_EQ(*parse_time_arg("1970-01-02T00:00:00Z", kNow), 86400 * kS);
  EXPECT_EQ(*parse_time_arg("1970-01-02 00:01", kNow), 86460 * kS);
  EXPECT_EQ(*parse_time_arg("1970-01-03", kNow), 2 * 86400 * kS);
}

TEST(TimeArg, RejectsGarbageNamingIt) {
  for (const char* bad : {"yesterday", "-15", "-15x", "@12ab", "2026-13", ""}) {
    auto r = parse_time_arg(bad, kNow);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find(bad), std::string::npos) << r.error().message;
  }
}

TEST(TimeArg, AcceptsZonesFractionsLeapDaysAndLeapSeconds) {
  EXPECT_EQ(*parse_time_arg("1970-01-02T02:00:00+02:00", kNow), 86400 * kS);
  EXPECT_EQ(*parse_time_arg("1970-01-01T19:00:00-0500", kNow), 86400 * kS);
  EXPECT_EQ(*parse_time_arg("1970-01-02T01:00+01", kNow), 86400 * kS);
  EXPECT_EQ(*parse_time_arg("1970-01-02T00:00:00.250Z", kNow), 86400 * kS + 250'000'000);
  EXPECT_EQ(*parse_time_arg("2024-02-29", kNow), 1'709'164'800 * kS);
  EXPECT_EQ(*parse_time_arg("1970-01-01T23:59:60Z", kNow), 86400 * kS);
}

// Each field is checked, and the error names the value, what is wrong and the forms.
TEST(TimeArg, RefusesOutOfRangeFieldsSayingWhich) {
  const std::pair<const char*, const char*> cases[] = {
      {"2026-13-45T99:99:99Z", "month 13 is not 1-12"},
      {"2026-00-10", "month 0 is not 1-12"},
      {"2026-04-31", "day 31 is not 1-30"},
      {"2025-02-29", "day 29 is not 1-28"},
      {"2026-01-00", "day 0 is not 1-31"},
      {"2026-01-01T24:00:00Z", "hour 24 is not 0-23"},
      {"2026-01-01T23:60Z", "minute 60 is not 0-59"},
      {"2026-01-01T23:59:61Z", "second 61 is not 0-60"},
      {"2026-01-01T00:00:00+24:00", "offset must be at most 23:59"},
      {"2026-01-01T00:00:00+02:75", "offset must be at most 23:59"},
      {"2026-01-01T00:00:00PST", "unexpected 'PST'"},
      {"2026-01-01T00:00:00Zjunk", "unexpected 'junk'"},
      {"2026-01-01T1:00", "HH:MM"},
      {"1969-12-31T23:59:59Z", "year 1969"},
      {"1970-01-01T00:00:00+01:00", "before 1970"},
      {"9999-01-01", "year 9999"},
      {"-99999999999d", "before 1970"},
      {"@-5", "epoch"},
      {"@99999999999999999", "future"},
  };
  for (const auto& [bad, why] : cases) {
    auto r = parse_time_arg(bad, kNow);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find(std::string("'") + bad + "'"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(why), std::string::npos) << bad << ": " << r.error().message;
    EXPECT_NE(r.error().message.find("2026-11-22T03:00:00Z"), std::string::npos) << r.error().message;
  }
}

TEST(TimeArg, OptionErrorsNameTheOption) {
  auto r = parse_time_option("--since", "2026-13-45T99:99:99Z", kNow);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("--since: cannot read the time '2026-13-45T99:99:99Z': month 13", 0), 0u)
      << r.error().message;
  EXPECT_EQ(*parse_time_option("--until", "now", kNow), kNow);
}

TEST(TimeArg, FormatsUtcWithMilliseconds) {
  EXPECT_EQ(format_wall_ns(86400 * kS + 123'456'789), "1970-01-02T00:00:00.123Z");
}

}  // namespace
}  // namespace energy::cli
