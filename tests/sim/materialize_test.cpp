#include "energysim/materialize.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "sim_test_util.h"

namespace energy::sim {
namespace {

namespace fs = std::filesystem;
using test::read_file;

std::uint32_t mode_of(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return 0;
  return static_cast<std::uint32_t>(st.st_mode & 07777);
}

Tree small_tree() {
  Tree tree;
  tree.add_text_file("/sys/a/root_only", 0600, "secret\n");
  tree.add_text_file("/sys/a/world", 0444, "1\n");
  tree.add_text_file("/sys/a/nul", 0444, std::string("gpu") + '\0');
  tree.add_failing_file("/sys/a/in1_input", 0444, ENODATA);
  tree.add_sysfs_link("/sys/class/a", "/sys/a");
  tree.add_symlink("/proc/device-tree", "/sys/firmware/devicetree/base");
  return tree;
}

MaterializeOptions options(ExistingRoot existing = ExistingRoot::kRefuse) {
  return MaterializeOptions{existing, "test-board", 36};
}

TEST(Materialize, WritesContentWithTheExactModeOfEachNode) {
  test::TempDir dir;
  const mode_t old_umask = ::umask(077);  // must not narrow the modes
  Result<MaterializeReport> report = materialize_tree(small_tree(), BoardState{}, dir.path(), options());
  ::umask(old_umask);
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_EQ(read_file(dir / "sys/a/root_only"), "secret\n");
  EXPECT_EQ(mode_of(dir / "sys/a/root_only"), 0600u);
  EXPECT_EQ(mode_of(dir / "sys/a/world"), 0444u);
  EXPECT_EQ(mode_of(dir / "sys"), 0755u);
  EXPECT_EQ(read_file(dir / "sys/a/nul"), std::string("gpu") + '\0');
  EXPECT_EQ(report->files, 4u);
  EXPECT_EQ(report->symlinks, 2u);
}

TEST(Materialize, KeepsRelativeAndAbsoluteLinksVerbatim) {
  test::TempDir dir;
  ASSERT_TRUE(materialize_tree(small_tree(), BoardState{}, dir.path(), options()));
  EXPECT_EQ(fs::read_symlink(dir / "sys/class/a").string(), "../a");
  EXPECT_EQ(read_file(dir / "sys/class/a/world"), "1\n");
  EXPECT_EQ(fs::read_symlink(dir / "proc/device-tree").string(), "/sys/firmware/devicetree/base");
}

TEST(Materialize, FailingFilesAreWrittenEmptyAndListedInTheMarker) {
  test::TempDir dir;
  Result<MaterializeReport> report = materialize_tree(small_tree(), BoardState{}, dir.path(), options());
  ASSERT_TRUE(report);
  ASSERT_EQ(report->failing_files.size(), 1u);
  EXPECT_EQ(report->failing_files[0].path, "/sys/a/in1_input");
  EXPECT_EQ(read_file(dir / "sys/a/in1_input"), "");
  EXPECT_EQ(mode_of(dir / "sys/a/in1_input"), 0444u);
  EXPECT_EQ(read_file(dir / ".energyd-sim"),
            "energyd-sim 1\nboard test-board\nl4t 36\nerrno ENODATA /sys/a/in1_input\n");
}

TEST(Materialize, CreatesAnAbsentRoot) {
  test::TempDir dir;
  ASSERT_TRUE(materialize_tree(small_tree(), BoardState{}, dir / "new/root", options()));
  EXPECT_EQ(read_file(dir / "new/root/sys/a/world"), "1\n");
}

TEST(Materialize, RefusesANonEmptyRootWithoutMarkerEvenWhenAllowedToReplace) {
  test::TempDir dir;
  std::ofstream(dir / "precious") << "keep";
  Result<MaterializeReport> report =
      materialize_tree(small_tree(), BoardState{}, dir.path(), options(ExistingRoot::kReplaceSimulatorTree));
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().code, ErrorCode::kState);
  EXPECT_EQ(read_file(dir / "precious"), "keep");
  EXPECT_FALSE(fs::exists(dir / "sys"));
}

TEST(Materialize, RefusesAPreviousSimulatorTreeUnlessToldToReplaceIt) {
  test::TempDir dir;
  ASSERT_TRUE(materialize_tree(small_tree(), BoardState{}, dir.path(), options()));
  Result<MaterializeReport> again = materialize_tree(small_tree(), BoardState{}, dir.path(), options());
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find("--force"), std::string::npos);
}

TEST(Materialize, ReplacesAPreviousSimulatorTree) {
  test::TempDir dir;
  ASSERT_TRUE(materialize_tree(small_tree(), BoardState{}, dir.path(), options()));
  Tree other;
  other.add_text_file("/etc/nv_tegra_release", 0644, "# R32\n");
  Result<MaterializeReport> replaced =
      materialize_tree(other, BoardState{}, dir.path(), {ExistingRoot::kReplaceSimulatorTree, "other", 32});
  ASSERT_TRUE(replaced) << replaced.error().describe();
  EXPECT_FALSE(fs::exists(dir / "sys"));
  EXPECT_EQ(read_file(dir / "etc/nv_tegra_release"), "# R32\n");
  EXPECT_EQ(read_file(dir / ".energyd-sim"), "energyd-sim 1\nboard other\nl4t 32\n");
}

TEST(Materialize, RootThatIsAFileIsRefused) {
  test::TempDir dir;
  std::ofstream(dir / "file") << "x";
  EXPECT_FALSE(materialize_tree(small_tree(), BoardState{}, dir / "file", options()));
}

}  // namespace
}  // namespace energy::sim
