#include "energysim/tree.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace energy::sim {
namespace {

ContentFn constant(std::string text) {
  return [text](const BoardState&) -> Result<std::string> { return text; };
}

TEST(Tree, AddingAFileCreatesItsParentDirectories) {
  Tree tree;
  tree.add_text_file("/sys/class/x/name", 0444, "x\n");
  ASSERT_TRUE(tree.status());
  ASSERT_NE(tree.find("/sys/class"), nullptr);
  EXPECT_EQ(tree.find("/sys/class")->kind(), NodeKind::kDirectory);
  EXPECT_EQ(tree.find("/sys/class")->mode(), 0755u);
  EXPECT_EQ(tree.find("/sys/class/x/name")->mode(), 0444u);
}

TEST(Tree, FirstConflictIsRecordedAndLaterAdditionsAreIgnored) {
  Tree tree;
  tree.add_text_file("/a/file", 0444, "1\n");
  tree.add_text_file("/a/file", 0444, "2\n");
  tree.add_text_file("/b", 0444, "ok\n");
  Status status = tree.status();
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, ErrorCode::kState);
  EXPECT_NE(status.error().message.find("/a/file"), std::string::npos);
  EXPECT_EQ(tree.find("/b"), nullptr);
}

TEST(Tree, AFileCannotBeADirectory) {
  Tree tree;
  tree.add_text_file("/a", 0444, "1\n");
  tree.add_text_file("/a/b", 0444, "2\n");
  EXPECT_FALSE(tree.status());
}

TEST(Tree, SameDirectoryOrIdenticalLinkMayBeAddedTwice) {
  Tree tree;
  tree.add_directory("/a");
  tree.add_directory("/a");
  tree.add_symlink("/l", "a");
  tree.add_symlink("/l", "a");
  EXPECT_TRUE(tree.status());
  tree.add_symlink("/l", "b");
  EXPECT_FALSE(tree.status());
}

TEST(Tree, SysfsLinkClimbsToTheTargetsParentThenNamesTheTarget) {
  Tree tree;
  tree.add_sysfs_link("/sys/devices/i2c-1/1-0040/hwmon/hwmon3/device", "/sys/devices/i2c-1/1-0040");
  tree.add_sysfs_link("/sys/class/hwmon/hwmon3", "/sys/devices/i2c-1/1-0040/hwmon/hwmon3");
  tree.add_sysfs_link("/sys/devices/system/cpu/cpu1/cpufreq", "/sys/devices/system/cpu/cpufreq/policy0");
  EXPECT_EQ(tree.find("/sys/devices/i2c-1/1-0040/hwmon/hwmon3/device")->link_target(), "../../../1-0040");
  EXPECT_EQ(tree.find("/sys/class/hwmon/hwmon3")->link_target(), "../../devices/i2c-1/1-0040/hwmon/hwmon3");
  EXPECT_EQ(tree.find("/sys/devices/system/cpu/cpu1/cpufreq")->link_target(), "../cpufreq/policy0");
}

TEST(Tree, ResolveFollowsRelativeLinksAndAbsoluteOnesFromTheTreeRoot) {
  Tree tree;
  tree.add_text_file("/sys/devices/d/value", 0444, "7\n");
  tree.add_sysfs_link("/sys/class/c/d", "/sys/devices/d");
  tree.add_symlink("/proc/dev", "/sys/class/c/d");
  ASSERT_TRUE(tree.status());
  const BoardState state;
  EXPECT_EQ(*tree.read("/sys/class/c/d/value", state), "7\n");
  EXPECT_EQ(*tree.read("/proc/dev/value", state), "7\n");
  EXPECT_EQ(tree.find("/proc/dev/value"), nullptr) << "find() does not follow links";
  EXPECT_EQ(tree.resolve("/sys/class/c/d/../d/value"), tree.find("/sys/devices/d/value"));
}

TEST(Tree, ResolveGivesUpOnLinkLoops) {
  Tree tree;
  tree.add_symlink("/a", "b");
  tree.add_symlink("/b", "a");
  EXPECT_EQ(tree.resolve("/a/x"), nullptr);
  Result<std::string> read = tree.read("/a/x", BoardState{});
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().sys_errno, ENOENT);
}

TEST(Tree, FailingFileExistsAndReportsItsErrno) {
  Tree tree;
  tree.add_failing_file("/in1_input", 0444, ENODATA);
  const Node* node = tree.find("/in1_input");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->kind(), NodeKind::kFile);
  EXPECT_EQ(node->fixed_errno(), ENODATA);
  Result<std::string> read = node->read(BoardState{});
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().sys_errno, ENODATA);
}

TEST(Tree, ContentIsComputedFromTheStateAtEachRead) {
  Tree tree;
  tree.add_file("/pwm", 0644, [](const BoardState& s) -> Result<std::string> { return std::to_string(s.fan_pwm); });
  BoardState state;
  state.fan_pwm = 10;
  EXPECT_EQ(*tree.read("/pwm", state), "10");
  state.fan_pwm = 200;
  EXPECT_EQ(*tree.read("/pwm", state), "200");
}

TEST(Tree, ReadingADirectoryFailsWithEisdir) {
  Tree tree;
  tree.add_directory("/d");
  Result<std::string> read = tree.read("/d", BoardState{});
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().sys_errno, EISDIR);
}

TEST(Tree, VisitGoesParentsFirstAndSiblingsByName) {
  Tree tree;
  tree.add_file("/b/z", 0444, constant("z"));
  tree.add_file("/a", 0444, constant("a"));
  tree.add_symlink("/b/y", "z");
  std::vector<std::string> seen;
  Status status = tree.visit([&seen](const std::string& path, const Node&) -> Status {
    seen.push_back(path);
    return ok_status();
  });
  ASSERT_TRUE(status);
  EXPECT_EQ(seen, (std::vector<std::string>{"/a", "/b", "/b/y", "/b/z"}));
}

TEST(Tree, VisitStopsAtTheFirstError) {
  Tree tree;
  tree.add_file("/a", 0444, constant("a"));
  tree.add_file("/b", 0444, constant("b"));
  int calls = 0;
  Status status = tree.visit([&calls](const std::string&, const Node&) -> Status {
    ++calls;
    return make_error(ErrorCode::kIo, "stop");
  });
  EXPECT_FALSE(status);
  EXPECT_EQ(calls, 1);
}

TEST(Tree, AWritableFileAppliesItsStoreAndOthersRefuseWithEacces) {
  Tree tree;
  tree.add_file(
      "/w", 0644, [](const BoardState& s) -> Result<std::string> { return std::to_string(s.fan_pwm) + "\n"; },
      [](BoardState& s, std::string_view text) -> Status {
        if (text != "7\n") return make_error(ErrorCode::kInvalid, "only 7", EINVAL);
        s.fan_pwm = 7;
        return ok_status();
      });
  tree.add_text_file("/r", 0644, "x\n");
  ASSERT_TRUE(tree.status());
  BoardState state;
  EXPECT_TRUE(tree.find("/w")->writable());
  EXPECT_FALSE(tree.find("/r")->writable());
  EXPECT_EQ(tree.find("/w")->write(state, "8\n").error().sys_errno, EINVAL);
  EXPECT_TRUE(tree.find("/w")->write(state, "7\n"));
  EXPECT_EQ(*tree.read("/w", state), "7\n");
  EXPECT_EQ(tree.find("/r")->write(state, "y\n").error().sys_errno, EACCES);
}

TEST(Tree, RailTagsMarkChannelFilesAndOnlyFiles) {
  Tree tree;
  tree.add_text_file("/d/in1_input", 0444, "1\n");
  tree.tag_rail("/d/in1_input", "1-0040:1", RailFileRole::kValue);
  EXPECT_TRUE(tree.status());
  EXPECT_EQ(tree.find("/d/in1_input")->rail_id(), "1-0040:1");
  EXPECT_EQ(tree.find("/d/in1_input")->rail_role(), RailFileRole::kValue);
  tree.tag_rail("/d", "1-0040:1", RailFileRole::kInfo);
  EXPECT_FALSE(tree.status());
}

}  // namespace
}  // namespace energy::sim
