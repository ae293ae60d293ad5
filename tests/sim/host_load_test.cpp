// The host CPU load parser (sim/src/host_load.*) and the sysfs write parsers
// (sim/src/sysfs_write.*): pure text handling.
#include "host_load.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "sysfs_write.h"

namespace energy::sim {
namespace {

TEST(HostLoad, BusyIsEverythingButIdleAndIowait) {
  const Result<CpuTimes> a = parse_proc_stat("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3\n");
  const Result<CpuTimes> b = parse_proc_stat("cpu  400 0 50 1400 50 0 0 0 0 0\n");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->busy, 150u);
  EXPECT_EQ(a->total, 1000u);
  EXPECT_EQ(busy_permille(*a, *b), 333u);  // 300 busy of 900
  EXPECT_EQ(busy_permille(*b, *b), 0u);
}

TEST(HostLoad, MalformedStatIsAParseError) {
  EXPECT_EQ(parse_proc_stat("intr 1 2 3\n").error().code, ErrorCode::kParse);
  EXPECT_EQ(parse_proc_stat("cpu  1 2\n").error().code, ErrorCode::kParse);
}

TEST(SysfsWrite, NumbersParseAsKstrtoulDoes) {
  EXPECT_EQ(*parse_written_unsigned("1234\n"), 1234u);
  EXPECT_EQ(*parse_written_unsigned("+7"), 7u);
  EXPECT_EQ(parse_written_unsigned("12 \n").error().sys_errno, EINVAL);
  EXPECT_EQ(parse_written_unsigned("-1\n").error().sys_errno, EINVAL);
  EXPECT_EQ(parse_written_unsigned("\n").error().sys_errno, EINVAL);
  EXPECT_EQ(*parse_written_integer("-3\n"), -3);
  EXPECT_EQ(written_word("  performance \n"), "performance");
}

}  // namespace
}  // namespace energy::sim
