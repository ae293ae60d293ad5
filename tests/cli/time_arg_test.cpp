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

TEST(TimeArg, FormatsUtcWithMilliseconds) { EXPECT_EQ(format_wall_ns(86400 * kS + 123'456'789), "1970-01-02T00:00:00.123Z"); }

}  // namespace
}  // namespace energy::cli
