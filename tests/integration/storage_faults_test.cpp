// QUALITY D3/D4: a damaged database, a state directory that cannot be used,
// a locked database and a full disk never stop sampling or crash energyd; the
// state shows in `energyctl status`, marks are refused with the reason while
// they cannot be stored, and energyd recovers by itself when the fault clears.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/mount.h>

#include <filesystem>
#include <fstream>
#include <cstring>
#include <thread>

#include <nlohmann/json.hpp>

#include "harness.h"

namespace energy::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::seconds;

class StorageFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    auto made = run_command({ENERGYD_SIM_BIN, "create", "--board", "jetson-orin-nano", "--l4t", "36", "--root",
                             tmp_.path() + "/board"});
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }
  void start(const std::string& state_dir) {
    daemon_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{ENERGYD_BIN, "--root", tmp_.path() + "/board", "--state-dir", state_dir, "--socket",
                                 sock(), "--flush-interval-ms", "200"},
        tmp_.path() + "/log");
    ASSERT_TRUE(wait_for_socket(sock(), seconds(10))) << log();
  }
  std::string sock() const { return tmp_.path() + "/s.sock"; }
  std::string log() const { return read_file(tmp_.path() + "/log"); }
  nlohmann::json status() {
    auto r = run_command({ENERGYCTL_BIN, "--socket", sock(), "--json", "status"});
    return nlohmann::json::parse(r.out, nullptr, false);
  }
  CommandResult ctl(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {ENERGYCTL_BIN, "--socket", sock()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv);
  }
  // Polls until status satisfies `pred` or the timeout passes.
  // Polls status until `pred` holds for it or the timeout passes.
  bool eventually(const std::function<bool(const nlohmann::json&)>& pred, milliseconds timeout) {
    return testing::eventually([&] {
      auto st = status();
      return !st.is_discarded() && pred(st);
    }, timeout);
  }

  TempDir tmp_;
  std::unique_ptr<ChildProcess> daemon_;
};

TEST_F(StorageFaults, DamagedDatabaseIsMovedAsideAndAFreshOneServes) {
  std::string state = tmp_.path() + "/state";
  fs::create_directories(state);
  std::ofstream(state + "/energyd.db") << std::string(8192, 'x');  // not an SQLite file
  start(state);
  auto started = ctl({"mark", "start", "after-corruption"});
  EXPECT_EQ(started.exit_code, 0) << started.err << log();
  bool moved = false;
  for (const auto& e : fs::directory_iterator(state)) moved = moved || e.path().filename().string().find("energyd.db.corrupt-") == 0;
  EXPECT_TRUE(moved);
  EXPECT_NE(log().find("is damaged"), std::string::npos) << log();
  EXPECT_EQ(daemon_->stop(SIGTERM), 0);
}

TEST_F(StorageFaults, UnusableStateDirectoryKeepsSamplingAndRecoversWhenFixed) {
  std::string blocker = tmp_.path() + "/blocker";
  std::ofstream(blocker) << "a file where a directory should be\n";
  start(blocker + "/state");
  ASSERT_TRUE(eventually([](const nlohmann::json& st) { return st["sampler"]["ticks"].get<int>() >= 5; }, seconds(5)));
  auto st = status();
  EXPECT_FALSE(st["storage"]["open"].get<bool>());
  EXPECT_FALSE(st["storage"]["healthy"].get<bool>());
  auto refused = ctl({"mark", "start", "no-disk"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("storage unavailable"), std::string::npos) << refused.err;
  fs::remove(blocker);  // the fault clears: energyd must find the directory usable by itself
  ASSERT_TRUE(eventually([](const nlohmann::json& s) { return s["storage"]["healthy"].get<bool>(); }, seconds(15)))
      << log();
  EXPECT_EQ(ctl({"mark", "start", "disk-back"}).exit_code, 0);
  auto stopped = ctl({"--json", "mark", "stop", "disk-back"});
  EXPECT_EQ(stopped.exit_code, 0) << stopped.err;
  EXPECT_EQ(status()["storage"]["dropped_samples"].get<int>(), 0);
}

TEST_F(StorageFaults, LockedDatabaseDelaysNoTick) {
  std::string state = tmp_.path() + "/state";
  start(state);
  ASSERT_TRUE(eventually([](const nlohmann::json& st) { return st["storage"]["commits"].get<int>() >= 1; }, seconds(5)));
  int64_t missed_before = status()["sampler"]["missed_ticks"].get<int64_t>();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((state + "/energyd.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  std::this_thread::sleep_for(seconds(2));  // the writer waits on the lock; the sampler must not
  sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  auto st = status();
  EXPECT_EQ(st["sampler"]["missed_ticks"].get<int64_t>(), missed_before);
  EXPECT_LT(st["sampler"]["max_lateness_ns"].get<int64_t>(), 20'000'000);
  ASSERT_TRUE(eventually([](const nlohmann::json& s) { return s["storage"]["queued_samples"].get<int>() < 5; },
                         seconds(10)));
  EXPECT_EQ(status()["storage"]["dropped_samples"].get<int>(), 0);
}

TEST_F(StorageFaults, FullDiskIsReportedAndWritingResumesWhenSpaceReturns) {
  std::string state = tmp_.path() + "/small";
  fs::create_directories(state);
  ASSERT_EQ(::mount("tmpfs", state.c_str(), "tmpfs", 0, "size=512k"), 0)
      << "this test mounts a 512 KiB tmpfs and needs root: " << std::strerror(errno);
  struct Unmount {
    std::string dir;
    ~Unmount() { ::umount2(dir.c_str(), MNT_DETACH); }
  } unmount{state};
  start(state);
  ASSERT_TRUE(eventually([](const nlohmann::json& st) { return st["storage"]["commits"].get<int>() >= 1; }, seconds(5)));
  {
    std::ofstream filler(state + "/filler", std::ios::binary);
    std::string block(4096, '\0');
    while (filler.write(block.data(), static_cast<std::streamsize>(block.size()))) filler.flush();
  }
  ASSERT_TRUE(eventually([](const nlohmann::json& s) { return !s["storage"]["healthy"].get<bool>(); }, seconds(10)))
      << log();
  EXPECT_NE(status()["storage"]["last_error"].get<std::string>().find("full"), std::string::npos);
  auto refused = ctl({"mark", "start", "full"});
  EXPECT_EQ(refused.exit_code, 1);
  int ticks = status()["sampler"]["ticks"].get<int>();
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_GE(status()["sampler"]["ticks"].get<int>(), ticks + 3);  // still sampling
  fs::remove(state + "/filler");
  ASSERT_TRUE(eventually([](const nlohmann::json& s) { return s["storage"]["healthy"].get<bool>(); }, seconds(30)))
      << log();
  EXPECT_EQ(ctl({"mark", "start", "space-back"}).exit_code, 0);
  EXPECT_EQ(daemon_->stop(SIGTERM), 0);
}

}  // namespace
}  // namespace energy::testing
