#include "number_arg.h"

#include <gtest/gtest.h>

#include <limits>

namespace energy::cli {
namespace {

constexpr int64_t kNoMax = std::numeric_limits<int64_t>::max();

TEST(NumberArg, AcceptsPlainWholeNumbersInRange) {
  EXPECT_EQ(*parse_whole_option("--limit", "1", 1, 10000), 1);
  EXPECT_EQ(*parse_whole_option("--limit", "10000", 1, 10000), 10000);
  EXPECT_EQ(*parse_whole_option("--count", "9223372036854775807", 1, kNoMax), kNoMax);
}

TEST(NumberArg, RefusesSignsSpacesGarbageOverflowAndOutOfRangeNamingTheOption) {
  for (const char* bad : {"", " 5", "+5", "-5", "0", "5x", "0x10", "10001", "1e3", "99999999999999999999"}) {
    auto r = parse_whole_option("--limit", bad, 1, 10000);
    ASSERT_FALSE(r.ok()) << "'" << bad << "'";
    EXPECT_EQ(r.error().message, "--limit must be a whole number from 1 to 10000, got '" + std::string(bad) + "'");
  }
  auto r = parse_whole_option("--count", "99999999999999999999", 1, kNoMax);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "--count must be a whole number of at least 1, got '99999999999999999999'");
}

TEST(NumberArg, PositiveNumbersTakeFractionsAndExponentsOnly) {
  EXPECT_DOUBLE_EQ(*parse_positive_option("--items", "3200"), 3200.0);
  EXPECT_DOUBLE_EQ(*parse_positive_option("--items", "2.5"), 2.5);
  EXPECT_DOUBLE_EQ(*parse_positive_option("--items", "1e6"), 1e6);
  for (const char* bad : {"", " 5", "+5", "-5", "0", "0x10", "inf", "nan", "1e999", "5 items", ".5"}) {
    auto r = parse_positive_option("--items", bad);
    ASSERT_FALSE(r.ok()) << "'" << bad << "'";
    EXPECT_NE(r.error().message.find("--items"), std::string::npos);
    EXPECT_NE(r.error().message.find("'" + std::string(bad) + "'"), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace energy::cli
