#include "options.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace energy::daemon {
namespace {

void expect_refused(const std::vector<std::string>& args, const std::string& flag, const std::string& expected) {
  auto inv = parse_invocation(args);
  ASSERT_FALSE(inv.ok()) << flag;
  EXPECT_NE(inv.error().message.find(flag), std::string::npos) << inv.error().message;
  EXPECT_NE(inv.error().message.find(expected), std::string::npos) << inv.error().message;
}

TEST(Options, EmptyPathsAreRefused) {
  expect_refused({"--socket", ""}, "--socket", "empty path");
  expect_refused({"--state-dir="}, "--state-dir", "empty path");
  expect_refused({"--root", ""}, "--root", "empty path");
  expect_refused({"--config", ""}, "--config", "empty path");
}

TEST(Options, RelativePathsAreMadeAbsolute) {
  char tmpl[] = "/tmp/energy-options-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  std::ofstream(dir + "/e.yaml") << "# empty\n";
  auto ok = parse_invocation({"--config", dir + "/e.yaml", "--state-dir", "state", "--socket", "s.sock"});
  ASSERT_TRUE(ok.ok()) << ok.error().describe();
  std::string cwd = std::filesystem::current_path().string();
  EXPECT_EQ(ok->config.state_dir, cwd + "/state");
  EXPECT_EQ(ok->config.socket_path.substr(0, 1), "/");
  std::filesystem::remove_all(dir);
}

TEST(Options, ConfigMustBeARegularFile) {
  expect_refused({"--config", "/tmp"}, "'/tmp'", "is a directory; expected a regular file");
  expect_refused({"--config", "/dev/zero"}, "'/dev/zero'", "expected a regular file");
}

TEST(Options, MillisecondsAreDecimal) {
  for (const char* bad : {"0100", "0x64", "1e2", "100ms", ""}) {
    expect_refused({"--sample-period-ms", bad}, "--sample-period-ms", "expected a decimal number");
  }
}

TEST(Options, JournalStreamMustBeDeviceColonInode) {
  struct stat st {};
  ASSERT_EQ(::fstat(STDERR_FILENO, &st), 0);
  std::string mine = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  EXPECT_TRUE(*journal_stream_names(mine.c_str(), STDERR_FILENO));
  EXPECT_FALSE(*journal_stream_names(nullptr, STDERR_FILENO));
  std::string other = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino + 1);
  EXPECT_FALSE(*journal_stream_names(other.c_str(), STDERR_FILENO));  // stderr redirected since
  for (const char* bad : {"", "1", "x:2", "1:", "1:2:3", "-1:5"}) {
    auto r = journal_stream_names(bad, STDERR_FILENO);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("JOURNAL_STREAM"), std::string::npos);
    EXPECT_NE(r.error().message.find("<device>:<inode>"), std::string::npos);
  }
}

}  // namespace
}  // namespace energy::daemon
