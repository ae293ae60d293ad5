#include "energy/sysroot.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fifo_util.h"

namespace energy {
namespace {

namespace fs = std::filesystem;

class SysRootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/energy-sysroot-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& rel, const std::string& content) {
    fs::create_directories(fs::path(dir_ + rel).parent_path());
    std::ofstream(dir_ + rel, std::ios::binary) << content;
  }
  // /a0 -> /a1 -> ... -> /a<links - 1> -> `last` (a host path outside the root).
  void link_chain(int links, const std::string& last) {
    fs::create_directories(dir_ + "/root");
    for (int i = 0; i + 1 < links; ++i) {
      fs::create_symlink("/a" + std::to_string(i + 1), dir_ + "/root/a" + std::to_string(i));
    }
    fs::create_symlink(last, dir_ + "/root/a" + std::to_string(links - 1));
  }
  std::string dir_;
};

TEST_F(SysRootTest, AbsoluteSymlinkResolvesInsideTheRoot) {
  write("/sys/firmware/devicetree/base/model", std::string("NVIDIA Jetson\0", 14));
  fs::create_directories(dir_ + "/proc");
  fs::create_symlink("/sys/firmware/devicetree/base", dir_ + "/proc/device-tree");
  SysRoot root(dir_);
  auto model = root.read_text("/proc/device-tree/model");
  ASSERT_TRUE(model.ok()) << model.error().describe();
  EXPECT_EQ(*model, "NVIDIA Jetson");
}

TEST_F(SysRootTest, RelativeSymlinkCannotClimbAboveTheRoot) {
  write("/etc/x", "inside\n");
  fs::create_directories(dir_ + "/a");
  fs::create_symlink("../../../../../../etc/x", dir_ + "/a/link");
  SysRoot root(dir_);
  auto v = root.read_text("/a/link");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, "inside");
}

TEST_F(SysRootTest, MissingFileIsAnErrorNamingIt) {
  SysRoot root(dir_);
  auto v = root.read_text("/sys/nothing");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().sys_errno, ENOENT);
  EXPECT_NE(v.error().message.find("/sys/nothing"), std::string::npos);
}

TEST_F(SysRootTest, ListDirIsSorted) {
  write("/d/b", "");
  write("/d/a", "");
  SysRoot root(dir_);
  auto names = root.list_dir("/d");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"a", "b"}));
}

// The kernel follows a link left unresolved with the host's root: 41 links
// ending in an absolute host path led out of the board tree.
TEST_F(SysRootTest, MoreThanFortyLinksIsELoopNotAnEscape) {
  write("/outside", "outside\n");
  link_chain(41, dir_ + "/outside");
  SysRoot root(dir_ + "/root");
  auto host = root.resolve("/a0");
  ASSERT_FALSE(host.ok()) << *host;
  EXPECT_EQ(host.error().sys_errno, ELOOP);
  EXPECT_NE(host.error().message.find("/a0"), std::string::npos);
  auto v = root.read_text("/a0");
  ASSERT_FALSE(v.ok()) << "read outside the root: " << *v;
  EXPECT_EQ(v.error().sys_errno, ELOOP);
}

TEST_F(SysRootTest, FortyLinksStillResolveInsideTheRoot) {
  write("/root/target", "inside\n");
  link_chain(40, "/target");
  SysRoot root(dir_ + "/root");
  auto v = root.read_text("/a0");
  ASSERT_TRUE(v.ok()) << v.error().describe();
  EXPECT_EQ(*v, "inside");
}

TEST_F(SysRootTest, AFifoIsRefusedWithoutBlockingNamingItsType) {
  fs::create_directories(dir_ + "/sys");
  ASSERT_TRUE(testing::make_fifo(dir_ + "/sys/temp"));
  SysRoot root(dir_);
  Result<std::string> v = std::string();
  EXPECT_TRUE(testing::returns_without_blocking(dir_ + "/sys/temp", [&] { v = root.read_text("/sys/temp"); }));
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().code, ErrorCode::kInvalid);
  EXPECT_NE(v.error().message.find("/sys/temp is a FIFO, not a regular file"), std::string::npos) << v.error().message;
}

TEST_F(SysRootTest, ADirectoryOrAnOversizedFileIsRefused) {
  write("/big", std::string(kMaxBoardFileBytes + 1, 'x'));
  fs::create_directories(dir_ + "/sys/dir");
  SysRoot root(dir_);
  auto big = root.read_raw("/big");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("/big is larger than"), std::string::npos) << big.error().message;
  auto d = root.read_text("/sys/dir");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("/sys/dir is a directory"), std::string::npos) << d.error().message;
}

TEST_F(SysRootTest, WritingAFifoWithNoReaderIsRefusedWithoutBlocking) {
  fs::create_directories(dir_ + "/sys");
  ASSERT_TRUE(testing::make_fifo(dir_ + "/sys/max_freq"));
  SysRoot root(dir_);
  Result<UniqueFd> fd = UniqueFd();
  EXPECT_TRUE(testing::returns_without_blocking(dir_ + "/sys/max_freq",
                                                [&] { fd = root.open_file("/sys/max_freq", FileAccess::kWrite); }));
  ASSERT_FALSE(fd.ok());
  EXPECT_NE(fd.error().message.find("/sys/max_freq is a FIFO"), std::string::npos) << fd.error().message;
}

}  // namespace
}  // namespace energy
