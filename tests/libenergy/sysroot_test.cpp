#include "energy/sysroot.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

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

}  // namespace
}  // namespace energy
