// Frequency and CPU-list values read from clock files (issue 19: values out
// of any plausible range are unknown, never overflowed numbers).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "energy/clocks.h"

namespace energy {
namespace {

TEST(FrequencyHz, ScalesPlausibleValues) {
  EXPECT_EQ(frequency_hz(1'510'400, 1000), 1'510'400'000);
  EXPECT_EQ(frequency_hz(624'750'000, 1), 624'750'000);
  EXPECT_EQ(frequency_hz(0, 1000), 0);
}

TEST(FrequencyHz, NegativeOrBeyondAHundredGigahertzIsUnknownNotAnOverflow) {
  EXPECT_FALSE(frequency_hz(-1, 1000));
  EXPECT_FALSE(frequency_hz(std::numeric_limits<int64_t>::max(), 1000));  // the fuzzer's finding: signed overflow
  EXPECT_FALSE(frequency_hz(kMaxPlausibleHz / 1000 + 1, 1000));
  EXPECT_EQ(frequency_hz(kMaxPlausibleHz / 1000, 1000), kMaxPlausibleHz);
}

TEST(CpuList, RangesEndingFarBeyondAnyCpuAreSkippedNotLooped) {
  EXPECT_EQ(parse_cpu_list("0-3,6"), (std::vector<int>{0, 1, 2, 3, 6}));
  // A range ending at INT64_MAX overflowed its loop counter (fuzz finding).
  EXPECT_EQ(parse_cpu_list("9223372036854775807-9223372036854775807,1"), (std::vector<int>{1}));
  EXPECT_EQ(parse_cpu_list("4095,4096"), (std::vector<int>{4095}));
}

}  // namespace
}  // namespace energy
