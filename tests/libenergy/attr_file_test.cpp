#include "energy/attr_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "fifo_util.h"

namespace energy {
namespace {

TEST(ParseSysfsInt, AcceptsNewlineAndUnitSuffix) {
  EXPECT_EQ(*parse_sysfs_int("4968\n", "f"), 4968);
  EXPECT_EQ(*parse_sysfs_int("-392\n", "f"), -392);
  EXPECT_EQ(*parse_sysfs_int("120 ma\n", "f"), 120);  // L4T 32 limit files
}

TEST(ParseSysfsInt, RejectsGarbageNamingTheFile) {
  auto r = parse_sysfs_int("12abc3", "in1_input");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kParse);
  EXPECT_NE(r.error().message.find("in1_input"), std::string::npos);
  EXPECT_FALSE(parse_sysfs_int("", "x").ok());
  EXPECT_FALSE(parse_sysfs_int("99999999999999999999999", "x").ok());
}

TEST(ParseSysfsInt, RejectsTrailingTextBlanksPlusAndEmptyContent) {
  for (const char* bad : {"12abc", "5000 garbage", "5000 ma extra", "+5", " 5", "5 5", "", "\n", "-", "0x10"}) {
    auto r = parse_sysfs_int(bad, "curr1_input");
    ASSERT_FALSE(r.ok()) << "accepted \"" << bad << "\"";
    EXPECT_EQ(r.error().code, ErrorCode::kParse);
    EXPECT_NE(r.error().message.find("curr1_input"), std::string::npos);
  }
  EXPECT_EQ(*parse_sysfs_int(std::string("42\n\0", 4), "f"), 42);
  EXPECT_EQ(*parse_sysfs_int("7 MW\n", "f"), 7);
}

// The tick's one-pass path takes up to 18 digits and one newline; the 19th
// digit, a second newline or a NUL go the general way, with the same result.
TEST(ParseSysfsInt, TheOnePassPathAndTheGeneralOneAgreeAtTheirBorder) {
  EXPECT_EQ(*parse_sysfs_int("999999999999999999\n", "f"), 999999999999999999);
  EXPECT_EQ(*parse_sysfs_int("999999999999999999", "f"), 999999999999999999);
  EXPECT_EQ(*parse_sysfs_int("1000000000000000000\n", "f"), 1000000000000000000);
  EXPECT_EQ(*parse_sysfs_int("0000000000000000001234\n", "f"), 1234);
  EXPECT_EQ(*parse_sysfs_int("12\n\n", "f"), 12);
  EXPECT_EQ(*parse_sysfs_int("0\n", "f"), 0);
  for (const char* bad : {"1/2\n", "1:2\n", "12\n3", "\n\n", "9a\n"}) {
    auto r = parse_sysfs_int(bad, "in1_input");
    EXPECT_FALSE(r.ok()) << "accepted \"" << bad << "\"";
  }
}

TEST(ParseSysfsInt, ParsesTheFullInt64RangeAndRefusesBeyondIt) {
  EXPECT_EQ(*parse_sysfs_int("9223372036854775807\n", "f"), INT64_MAX);
  EXPECT_EQ(*parse_sysfs_int("-9223372036854775808\n", "f"), INT64_MIN);
  auto r = parse_sysfs_int("9223372036854775808\n", "curr1_input");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("9223372036854775808"), std::string::npos) << r.error().message;
}

TEST(CheckRange, OutsideIsERangeNamingTheFileTheValueAndTheRange) {
  EXPECT_EQ(*check_range(5000, "in1_input", 0, 26000, "mV"), 5000);
  auto r = check_range(-4000000000, "curr1_input", -163840, 163840, "mA");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().sys_errno, ERANGE);
  EXPECT_EQ(r.error().message, "curr1_input: -4000000000 mA is outside the plausible range -163840 to 163840 mA");
}

TEST(AttrFile, RereadsTheCurrentValueFromOffsetZero) {
  char path[] = "/tmp/energy-attr-XXXXXX";
  int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  std::ofstream(path) << "100\n";
  AttrFile f(path, "test");
  EXPECT_EQ(*f.read_int(), 100);
  std::ofstream(path, std::ios::trunc) << "250\n";
  EXPECT_EQ(*f.read_int(), 250);
  ::unlink(path);
}

TEST(AttrFile, VanishedFileIsAnErrorThenRecovers) {
  char path[] = "/tmp/energy-attr-XXXXXX";
  int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  ::unlink(path);
  AttrFile f(path, "test");
  auto r = f.read_int();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().sys_errno, ENOENT);
  std::ofstream(path) << "7\n";
  EXPECT_EQ(*f.read_int(), 7);
  ::unlink(path);
}

TEST(AttrFile, ContentLongerThanItsBufferIsAnErrorNotItsPrefix) {
  char path[] = "/tmp/energy-attr-XXXXXX";
  int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  std::ofstream(path) << "5000" << std::string(100, ' ') << "garbage\n";
  AttrFile f(path, "in1_input");
  auto r = f.read_int();
  EXPECT_FALSE(r.ok()) << "read " << *r;
  ::unlink(path);
}

TEST(AttrFile, AFifoIsRefusedWithoutBlockingNamingIt) {
  char dir[] = "/tmp/energy-attr-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  std::string fifo = std::string(dir) + "/in1_input";
  ASSERT_TRUE(testing::make_fifo(fifo));
  AttrFile f(fifo, "/sys/x/in1_input");
  Result<int64_t> r = int64_t{0};
  EXPECT_TRUE(testing::returns_without_blocking(fifo, [&] { r = f.read_int(); }));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
  EXPECT_NE(r.error().message.find("/sys/x/in1_input is a FIFO"), std::string::npos) << r.error().message;
  ::unlink(fifo.c_str());
  ::rmdir(dir);
}

}  // namespace
}  // namespace energy
