// QUALITY D3/D4: a damaged database, a state directory that cannot be used,
// a locked database and a full disk never stop sampling or crash energyd; the
// state shows in `energyctl status`, marks are refused with the reason while
// they cannot be stored, and energyd recovers by itself when the fault clears.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/mount.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
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
    auto made = run_command(
        {ENERGYD_SIM_BIN, "create", "--board", "jetson-orin-nano", "--l4t", "36", "--root", tmp_.path() + "/board"});
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }
  void start(const std::string& state_dir, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> argv{ENERGYD_BIN, "--root", tmp_.path() + "/board", "--state-dir", state_dir,
                                  "--socket",  sock(),   "--flush-interval-ms",  "200"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    daemon_ = std::make_unique<ChildProcess>(argv, tmp_.path() + "/log");
    ASSERT_TRUE(wait_for_socket(sock(), seconds(10))) << log();
  }
  std::string sock() const { return tmp_.path() + "/s.sock"; }
  std::string log() const { return read_file(tmp_.path() + "/log"); }
  nlohmann::json status() {
    auto r = run_command({ENERGYCTL_BIN, "--socket", sock(), "--json", "status"});
    return nlohmann::json::parse(r.out, nullptr, false);
  }
  CommandResult ctl(const std::vector<std::string>& args) { return run_energyctl(sock(), args, false); }
  // Polls until status satisfies `pred` or the timeout passes.
  // Polls status until `pred` holds for it or the timeout passes.
  bool eventually(const std::function<bool(const nlohmann::json&)>& pred, milliseconds timeout) {
    return testing::eventually(
        [&] {
          auto st = status();
          return !st.is_discarded() && pred(st);
        },
        timeout);
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
  for (const auto& e : fs::directory_iterator(state))
    moved = moved || e.path().filename().string().find("energyd.db.corrupt-") == 0;
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

// Another process holds the database's lock for 2 s: the writer waits on it
// (its queue grows), the sampler must not. A sampler that waited with the
// writer would make about one tick in those 2 s and miss about 19; one that
// does not makes about 20 and misses none. The bounds leave room for a loaded
// machine's scheduling (a tick is missed only when its thread waits a whole
// period to run), not for a sampler held by the lock.
TEST_F(StorageFaults, LockedDatabaseDelaysNoTick) {
  std::string state = tmp_.path() + "/state";
  start(state);
  ASSERT_TRUE(
      eventually([](const nlohmann::json& st) { return st["storage"]["commits"].get<int>() >= 1; }, seconds(5)));
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((state + "/energyd.db").c_str(), &db), SQLITE_OK);
  const nlohmann::json before = status()["sampler"];
  const auto locked_at = std::chrono::steady_clock::now();
  ASSERT_EQ(sqlite3_exec(db, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  // The writer is held: at a 200 ms flush interval its queue would stay below 5.
  bool writer_held =
      eventually([](const nlohmann::json& s) { return s["storage"]["queued_samples"].get<int>() >= 10; }, seconds(5));
  std::this_thread::sleep_until(locked_at + seconds(2));
  const nlohmann::json during = status()["sampler"];  // the lock is still held
  const double held_ticks =
      static_cast<double>(
          std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - locked_at).count()) /
      100.0;
  sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  EXPECT_TRUE(writer_held) << "the writer's queue did not grow while the database was locked: " << status().dump();
  const auto ticks = during["ticks"].get<int64_t>() - before["ticks"].get<int64_t>();
  const auto missed = during["missed_ticks"].get<int64_t>() - before["missed_ticks"].get<int64_t>();
  EXPECT_GE(static_cast<double>(ticks), 0.75 * held_ticks)
      << "before: " << before.dump() << "\nduring: " << during.dump();
  EXPECT_LE(missed, 2) << "before: " << before.dump() << "\nduring: " << during.dump();
  ASSERT_TRUE(
      eventually([](const nlohmann::json& s) { return s["storage"]["queued_samples"].get<int>() < 5; }, seconds(10)));
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
  // Nothing fails until a write needs a new page: the sweep tail's appends
  // (about 180 bytes a second at 100 ms) fill its last page for up to 20 s.
  // At 10 ms they need one within a few seconds.
  start(state, {"--sample-period-ms", "10"});
  ASSERT_TRUE(
      eventually([](const nlohmann::json& st) { return st["storage"]["commits"].get<int>() >= 1; }, seconds(5)));
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

// The losses status reports, as "kind: message" lines.
std::string losses_of(const nlohmann::json& st) {
  std::string out;
  for (const auto& l : st["storage"].value("losses", nlohmann::json::array()))
    out += l["kind"].get<std::string>() + ": " + l["message"].get<std::string>() + "\n";
  return out;
}

// The state of the run named `name` in the database at `db` ("" if none).
std::string run_state_in(const std::string& db, const std::string& name) {
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return "cannot open";
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, "SELECT state FROM runs WHERE name = ?1", -1, &st, nullptr);
  sqlite3_bind_text(st, 1, name.c_str(), -1, SQLITE_TRANSIENT);
  std::string state = sqlite3_step(st) == SQLITE_ROW ? reinterpret_cast<const char*>(sqlite3_column_text(st, 0)) : "";
  sqlite3_finalize(st);
  sqlite3_close(h);
  return state;
}

// Issue 19 item 10: kill -9, 200 bytes of the WAL's first frame flipped:
// SQLite would drop every later frame, the acknowledged run with them.
TEST_F(StorageFaults, DamagedWalAfterKillIsReportedAndAcknowledgedRunsSurvive) {
  std::string state = tmp_.path() + "/state";
  start(state, {"--checkpoint-interval-ms", "600000"});  // everything since the start stays in the WAL
  ASSERT_EQ(ctl({"mark", "start", "acked"}).exit_code, 0) << log();
  ASSERT_EQ(ctl({"mark", "stop", "acked"}).exit_code, 0) << log();
  daemon_->stop(SIGKILL);
  std::string wal_path = state + "/energyd.db-wal";
  std::string wal = read_file(wal_path);
  ASSERT_GT(wal.size(), 32u + 2 * (24 + 4096)) << "the WAL holds the marks' frames";
  for (size_t i = 0; i < 200; ++i) wal[32 + 24 + 300 + i] = static_cast<char>(wal[32 + 24 + 300 + i] ^ 0x5a);
  std::ofstream(wal_path, std::ios::binary | std::ios::trunc) << wal;
  start(state);
  auto st = status();
  ASSERT_FALSE(st.is_discarded());
  std::string losses = losses_of(st);
  EXPECT_NE(losses.find("wal_damaged: the write-ahead log"), std::string::npos) << losses << log();
  EXPECT_NE(losses.find("'acked'"), std::string::npos) << losses;
  EXPECT_NE(log().find("damaged at frame 1"), std::string::npos) << log();
  bool kept = false;
  for (const auto& e : fs::directory_iterator(state))
    kept = kept || e.path().filename().string().find("energyd.db-wal.damaged-") == 0;
  EXPECT_TRUE(kept);
  EXPECT_EQ(daemon_->stop(SIGTERM), 0);
  EXPECT_EQ(run_state_in(state + "/energyd.db", "acked"), "stopped");
}

// Issue 19 item 10: a database truncated to 0 bytes is not taken as a new one silently.
TEST_F(StorageFaults, DatabaseTruncatedToZeroBytesIsReported) {
  std::string state = tmp_.path() + "/state";
  start(state);
  ASSERT_EQ(ctl({"mark", "start", "before-truncation"}).exit_code, 0) << log();
  EXPECT_EQ(daemon_->stop(SIGTERM), 0);
  fs::resize_file(state + "/energyd.db", 0);
  start(state);
  std::string losses = losses_of(status());
  EXPECT_NE(losses.find("database_replaced"), std::string::npos) << losses << log();
  EXPECT_NE(losses.find("'before-truncation'"), std::string::npos) << losses;
  EXPECT_NE(log().find("is missing or empty"), std::string::npos) << log();
  auto text = ctl({"status"});
  EXPECT_NE(text.out.find("storage: the database"), std::string::npos) << text.out;  // shown without --json too
  EXPECT_EQ(daemon_->stop(SIGTERM), 0);
}

}  // namespace
}  // namespace energy::testing
