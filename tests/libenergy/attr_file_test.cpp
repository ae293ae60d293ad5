#include "energy/attr_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

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

}  // namespace
}  // namespace energy
