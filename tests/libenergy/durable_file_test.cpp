// State files energyd reads and replaces in its state directory: a FIFO or
// a link planted there is refused or replaced, never waited on.
#include "energy/durable_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fifo_util.h"

namespace energy {
namespace {

class DurableFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/energy-durable-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(DurableFile, AMissingFileIsNoContentAndARegularOneIsRead) {
  auto none = read_state_file(dir_ + "/j.json");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  std::ofstream(dir_ + "/j.json") << "{}\n";
  auto some = read_state_file(dir_ + "/j.json");
  ASSERT_TRUE(some.ok() && some->has_value());
  EXPECT_EQ(**some, "{}\n");
}

TEST_F(DurableFile, AFifoInPlaceOfAJournalIsAnErrorNamingItNotAHang) {
  std::string path = dir_ + "/sensor-averaging.json";
  ASSERT_TRUE(testing::make_fifo(path));
  Result<std::optional<std::string>> r = std::optional<std::string>();
  EXPECT_TRUE(testing::returns_without_blocking(path, [&] { r = read_state_file(path); }));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
  EXPECT_NE(r.error().message.find(path + " is a FIFO"), std::string::npos) << r.error().message;
}

TEST_F(DurableFile, ALinkInPlaceOfAJournalIsRefused) {
  std::ofstream(dir_ + "/elsewhere") << "{}\n";
  std::filesystem::create_symlink(dir_ + "/elsewhere", dir_ + "/j.json");
  auto r = read_state_file(dir_ + "/j.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("is a symbolic link"), std::string::npos) << r.error().message;
}

TEST_F(DurableFile, AStaleFifoAtTheTemporaryPathIsReplacedNotWaitedOn) {
  std::string path = dir_ + "/j.json";
  ASSERT_TRUE(testing::make_fifo(path + ".tmp"));
  Status st = ok_status();
  EXPECT_TRUE(testing::returns_without_blocking(path + ".tmp", [&] { st = replace_file_durably(path, "{}\n"); }));
  ASSERT_TRUE(st.ok()) << st.error().describe();
  auto back = read_state_file(path);
  ASSERT_TRUE(back.ok() && back->has_value());
  EXPECT_EQ(**back, "{}\n");
}

}  // namespace
}  // namespace energy
