// Residency counters (energy/residency_counters.h): the kernel's
// time_in_state and trans_stat parsed, differences between reads, the
// coverage check, and the rows that spread an interval's counted time.
#include "energy/residency_counters.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "../time_units.h"

namespace energy {
namespace {

// As the generic devfreq core prints it (the simulator's layout).
const char* const kTransStat =
    "     From  :   To\n"
    "           : 306000000 408000000 510000000   time(ms)\n"
    "  306000000:         0         2         0       123\n"
    "* 408000000:         1         0         1     20000\n"
    "  510000000:         1         0         0         9\n"
    "Total transition : 5\n";

TEST(ResidencyCounters, TimeInStateIsKhzAndUserHzTicks) {
  Result<ResidencyCounters> c = parse_time_in_state("115200 12\n422400 2000\n729600 0\n", "time_in_state");
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_EQ(*c, (ResidencyCounters{{115200000, 120 * kMs}, {422400000, 20000 * kMs}, {729600000, 0}}));
}

TEST(ResidencyCounters, TransStatIsHzAndMilliseconds) {
  Result<ResidencyCounters> c = parse_trans_stat(kTransStat, "trans_stat");
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_EQ(*c, (ResidencyCounters{{306000000, 123 * kMs}, {408000000, 20000 * kMs}, {510000000, 9 * kMs}}));
}

TEST(ResidencyCounters, MalformedTextIsAParseErrorNamingTheFile) {
  const char* const bad_time_in_state[] = {"", "115200\n", "115200 12 7\n", "115200 -1\n", "abc 12\n", "0 5\n"};
  for (const char* text : bad_time_in_state) {
    Result<ResidencyCounters> c = parse_time_in_state(text, "policy0/stats/time_in_state");
    ASSERT_FALSE(c) << "'" << text << "'";
    EXPECT_EQ(c.error().code, ErrorCode::kParse);
    EXPECT_NE(c.error().message.find("policy0/stats/time_in_state"), std::string::npos);
  }
  std::string missing_column = kTransStat;
  missing_column.replace(missing_column.find("       123"), 10, "");
  std::string no_total = kTransStat;
  no_total.resize(no_total.find("Total"));
  for (const std::string& text : {missing_column, no_total, std::string("Not Supported.\n")}) {
    Result<ResidencyCounters> c = parse_trans_stat(text, "gpu/trans_stat");
    ASSERT_FALSE(c) << text;
    EXPECT_EQ(c.error().code, ErrorCode::kParse);
  }
}

TEST(ResidencyCounters, ADeltaKeepsTheFrequenciesWhoseTimeGrewAndRefusesShrinkingOrChangedLists) {
  const ResidencyCounters a{{1, 100}, {2, 200}, {3, 300}};
  Result<ResidencyCounters> d = counter_delta(a, {{1, 100}, {2, 250}, {3, 310}}, "f");
  ASSERT_TRUE(d);
  EXPECT_EQ(*d, (ResidencyCounters{{2, 50}, {3, 10}}));
  Result<ResidencyCounters> shrunk = counter_delta(a, {{1, 100}, {2, 199}, {3, 300}}, "f");
  ASSERT_FALSE(shrunk);
  EXPECT_EQ(shrunk.error().code, ErrorCode::kInvalid);
  EXPECT_FALSE(counter_delta(a, {{1, 100}, {4, 200}, {3, 300}}, "f"));
  EXPECT_FALSE(counter_delta(a, {{1, 100}, {2, 200}}, "f"));
}

TEST(ResidencyCounters, CoverageAllowsOneUnitPerFrequencyAndTheReadsDuration) {
  const ResidencyCounters delta{{1, 600 * kMs}, {2, 380 * kMs}};  // 980 ms counted
  const int64_t unit = 10 * kMs;
  EXPECT_TRUE(check_coverage(delta, 2, unit, 1000 * kMs, 0, "f"));         // 20 ms short, 30 allowed
  EXPECT_FALSE(check_coverage(delta, 2, unit, 1020 * kMs, 0, "f"));        // 40 ms short
  EXPECT_TRUE(check_coverage(delta, 2, unit, 1020 * kMs, 15 * kMs, "f"));  // a slow read
  EXPECT_FALSE(check_coverage(delta, 2, unit, 900 * kMs, 0, "f"));         // counted 80 ms too much
  EXPECT_FALSE(check_coverage({}, 2, unit, 1000 * kMs, 0, "f"));           // counters that do not advance
}

// Each row's instant and frequency, to compare with what a test expects.
std::vector<std::pair<int64_t, int64_t>> instants_and_hz(const std::vector<ContextRow>& rows) {
  std::vector<std::pair<int64_t, int64_t>> out;
  out.reserve(rows.size());
  for (const ContextRow& r : rows) out.emplace_back(r.t_ns, r.v.number.value_or(-1));  // -1: no number
  return out;
}

TEST(ResidencyCounters, RowsGiveEachFrequencyItsTimeThePreviousFirstTheCurrentLast) {
  const ResidencyCounters delta{{1, 100}, {2, 300}, {3, 200}, {4, 400}};
  const std::vector<ContextRow> rows = counted_rows(delta, 1000, 2000, int64_t{3}, int64_t{2});
  // 3 holds from 1000 (in force: no row), then 1 and 4 in table order, 2 last.
  EXPECT_EQ(instants_and_hz(rows), (std::vector<std::pair<int64_t, int64_t>>{{1200, 1}, {1300, 4}, {1700, 2}}));
}

TEST(ResidencyCounters, WhenThePreviousValueIsAlsoTheCurrentTheOthersComeFirst) {
  const ResidencyCounters delta{{1, 100}, {2, 300}, {3, 200}};
  const std::vector<ContextRow> rows = counted_rows(delta, 1000, 2000, int64_t{2}, int64_t{2});
  // 1 and 3 from the interval's start (1 ns after the read), then 2 again for its time.
  EXPECT_EQ(instants_and_hz(rows), (std::vector<std::pair<int64_t, int64_t>>{{1001, 1}, {1100, 3}, {1300, 2}}));
  EXPECT_TRUE(counted_rows({{2, 1000}}, 1000, 2000, int64_t{2}, int64_t{2}).empty()) << "it held all along";
}

TEST(ResidencyCounters, RowsThatOverrunTheIntervalKeepTheCurrentValueAtItsEnd) {
  const ResidencyCounters delta{{1, 700}, {2, 600}};
  const std::vector<ContextRow> rows = counted_rows(delta, 1000, 2000, int64_t{1}, int64_t{2});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].t_ns, 1700);
  const std::vector<ContextRow> late = counted_rows({{1, 1200}}, 1000, 2000, int64_t{1}, int64_t{2});
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(late[0].t_ns, 2000);
  EXPECT_EQ(late[0].v.number, 2);
}

}  // namespace
}  // namespace energy
