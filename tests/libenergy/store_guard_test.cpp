// Issue 19 item 10: a damaged WAL, a run or stop missing from the database,
// and a database emptied or replaced are found at open and reported.
#include "energy/store_guard.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "energy/store.h"
#include "temp_store.h"

namespace energy {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

bool has_kind(const std::vector<StorageLoss>& losses, const std::string& kind, const std::string& text = "") {
  for (const auto& l : losses) {
    if (l.kind == kind && l.message.find(text) != std::string::npos) return true;
  }
  return false;
}

// A WAL written by SQLite itself: `commits` transactions, none checkpointed.
class RealWal : public TempStoreTest {
 protected:
  std::string make_wal(int commits) {
    std::string db = dir_ + "/raw.db";
    sqlite3* h = nullptr;
    EXPECT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    sqlite3_exec(h, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t(x BLOB)", nullptr, nullptr,
                 nullptr);
    for (int i = 0; i < commits; ++i) {
      sqlite3_exec(h, "INSERT INTO t VALUES(randomblob(3000))", nullptr, nullptr, nullptr);
    }
    std::string wal = slurp(db + "-wal");  // as a kill -9 leaves it
    sqlite3_close(h);
    return wal;
  }
};

TEST_F(RealWal, IntactWalReplaysEveryCommittedFrame) {
  WalScan scan = scan_wal(make_wal(5));
  EXPECT_TRUE(scan.header_valid);
  EXPECT_GT(scan.frames, 5);
  EXPECT_EQ(scan.frames_replayed, scan.frames);
  EXPECT_EQ(scan.first_bad_frame, 0);
  EXPECT_FALSE(scan.damaged());
}

TEST_F(RealWal, FlippedBytesInAnEarlyFrameDropTheCommitsBehindIt) {
  std::string wal = make_wal(5);
  WalScan intact = scan_wal(wal);
  for (size_t i = 0; i < 200; ++i)
    wal[32 + 24 + 100 + i] = static_cast<char>(~wal[32 + 24 + 100 + i]);  // frame 1's page
  WalScan scan = scan_wal(wal);
  EXPECT_TRUE(scan.header_valid);
  EXPECT_EQ(scan.first_bad_frame, 1);
  EXPECT_EQ(scan.frames_replayed, 0);
  EXPECT_EQ(scan.frames_dropped, intact.frames - 1);
  EXPECT_GE(scan.commits_dropped, 5);
  EXPECT_TRUE(scan.damaged());
}

TEST_F(RealWal, DamagedHeaderDropsEveryFrame) {
  std::string wal = make_wal(2);
  wal[17] = static_cast<char>(wal[17] ^ 0x55);  // salt-1: the header checksum fails
  WalScan scan = scan_wal(wal);
  EXPECT_FALSE(scan.header_valid);
  EXPECT_EQ(scan.frames_dropped, scan.frames);
  EXPECT_TRUE(scan.damaged());
}

TEST_F(RealWal, TornLastFrameIsNotDamage) {
  std::string wal = make_wal(3);
  wal[wal.size() - 10] = static_cast<char>(wal[wal.size() - 10] ^ 0xff);  // a power cut mid-write
  WalScan scan = scan_wal(wal);
  EXPECT_EQ(scan.first_bad_frame, scan.frames);
  EXPECT_EQ(scan.frames_dropped, 0);
  EXPECT_FALSE(scan.damaged());
}

// Runs acknowledged through the journal, as the daemon's writer does.
class StoreGuard : public TempStoreTest {
 protected:
  RunRecord start(const std::string& name) {
    auto boot = store_->ensure_boot("boot-a", 1000);
    EXPECT_TRUE(boot.ok());
    RunRecord r;
    r.name = name;
    r.boot = *boot;
    r.start_ns = 10;
    r.start_wall_ns = 1000;
    EXPECT_TRUE(store_->begin().ok());
    auto id = store_->runs().insert(r);
    EXPECT_TRUE(id.ok());
    EXPECT_TRUE(store_->commit().ok());
    r.id = *id;
    EXPECT_TRUE(store_->runs().journal_mark(r, MarkEntry::Op::kStart).ok());
    return r;
  }
  void stop(RunRecord& r) {
    r.stop_ns = 50;
    r.stop_wall_ns = 1040;
    ASSERT_TRUE(store_->runs().finish(r.id, 50, 1040, RunState::kStopped).ok());
    ASSERT_TRUE(store_->runs().journal_mark(r, MarkEntry::Op::kStop).ok());
  }
  void sql(const std::string& text) {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(path().c_str(), &h), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(h, text.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
    sqlite3_close(h);
  }
};

TEST_F(StoreGuard, FreshStoreReportsNothing) {
  EXPECT_TRUE(store_->losses().empty());
  reopen();
  EXPECT_TRUE(store_->losses().empty());
  EXPECT_TRUE(fs::exists(path() + "-marks"));
}

TEST_F(StoreGuard, RunMissingFromTheDatabaseIsRestoredAndReported) {
  RunRecord r = start("lost-run");
  store_.reset();
  sql("DELETE FROM runs WHERE id = " + std::to_string(r.id));
  reopen();
  EXPECT_TRUE(has_kind(store_->losses(), "run_restored", "'lost-run'")) << store_->losses().size();
  auto back = store_->runs().by_id(r.id);
  ASSERT_TRUE(back.ok());
  ASSERT_TRUE(back->has_value());
  EXPECT_EQ((*back)->name, "lost-run");
  EXPECT_EQ((*back)->start_ns, 10);
  reopen();
  EXPECT_TRUE(store_->losses().empty());  // restored once, then consistent
}

TEST_F(StoreGuard, StopMissingFromTheDatabaseIsRestoredAndReported) {
  RunRecord r = start("stopped-run");
  stop(r);
  store_.reset();
  sql("UPDATE runs SET state = 'open', stop_ns = NULL, stop_wall_ns = NULL WHERE id = " + std::to_string(r.id));
  reopen();
  EXPECT_TRUE(has_kind(store_->losses(), "stop_restored", "'stopped-run'"));
  auto back = store_->runs().by_id(r.id);
  ASSERT_TRUE(back.ok() && back->has_value());
  EXPECT_EQ((*back)->state, RunState::kStopped);
  EXPECT_EQ((*back)->stop_ns, 50);
}

// A run's start moves after its start entry (to the sample of mark.start's
// reply, or to the command's span); the stop entry carries the moved start.
TEST_F(StoreGuard, AStartMovedByTheStopIsRestoredFromTheJournal) {
  RunRecord r = start("moved-run");
  r.start_ns = 20;
  r.start_wall_ns = 1010;
  r.stop_ns = 50;
  r.stop_wall_ns = 1040;
  ASSERT_TRUE(store_->runs().finish(r.id, 50, 1040, RunState::kStopped).ok());
  ASSERT_TRUE(store_->runs().set_start(r.id, 20, 1010).ok());
  ASSERT_TRUE(store_->runs().journal_mark(r, MarkEntry::Op::kStop).ok());
  EXPECT_EQ((*store_->runs().by_id(r.id))->start_ns, 20);
  store_.reset();
  sql("UPDATE runs SET state = 'open', start_ns = 10, start_wall_ns = 1000, stop_ns = NULL, stop_wall_ns = NULL "
      "WHERE id = " +
      std::to_string(r.id));
  reopen();
  EXPECT_TRUE(has_kind(store_->losses(), "stop_restored", "'moved-run'"));
  auto back = store_->runs().by_id(r.id);
  ASSERT_TRUE(back.ok() && back->has_value());
  EXPECT_EQ((*back)->start_ns, 20);
  EXPECT_EQ((*back)->start_wall_ns, 1010);
  EXPECT_EQ((*back)->stop_ns, 50);
}

// Item counts (schema 7) travel with the marks: the start's, then the stop's.
TEST_F(StoreGuard, ItemCountsAreStoredAndRestoredFromTheJournal) {
  RunRecord r = start("items-run");
  r.stop_ns = 50;
  r.stop_wall_ns = 1040;
  r.items = 64;
  ASSERT_TRUE(store_->runs().finish(r.id, 50, 1040, RunState::kStopped).ok());
  ASSERT_TRUE(store_->runs().set_items(r.id, 64).ok());
  ASSERT_TRUE(store_->runs().journal_mark(r, MarkEntry::Op::kStop).ok());
  EXPECT_EQ(*(*store_->runs().by_id(r.id))->items, 64.0);
  store_.reset();
  sql("UPDATE runs SET state = 'open', stop_ns = NULL, stop_wall_ns = NULL, items = NULL WHERE id = " +
      std::to_string(r.id));
  reopen();
  auto back = store_->runs().by_id(r.id);
  ASSERT_TRUE(back.ok() && back->has_value());
  EXPECT_EQ((*back)->state, RunState::kStopped);
  ASSERT_TRUE((*back)->items.has_value()) << "restored from the stop's journal line";
  EXPECT_EQ(*(*back)->items, 64.0);
}

TEST_F(StoreGuard, DatabaseTruncatedToZeroBytesIsReportedWithItsRuns) {
  start("before-truncation");
  store_.reset();
  fs::resize_file(path(), 0);
  fs::remove(path() + "-wal");
  reopen();
  ASSERT_TRUE(has_kind(store_->losses(), "database_replaced", "1 acknowledged runs (1 'before-truncation')"));
  EXPECT_NE(store_->losses()[0].message.find("missing or empty"), std::string::npos);
  ASSERT_EQ(store_->losses()[0].evidence.size(), 1u);
  EXPECT_TRUE(fs::exists(store_->losses()[0].evidence[0]));
  reopen();
  EXPECT_TRUE(store_->losses().empty());  // the fresh store has its own journal
}

TEST_F(StoreGuard, DamagedWalIsCopiedAsideAndItsAcknowledgedRunsComeBack) {
  RunRecord r = start("in-the-wal");
  // A kill -9: the files as they are while the store is open, WAL not checkpointed.
  std::string crash = dir_ + "/crash";
  fs::create_directories(crash);
  for (const char* ext : {"", "-wal", "-marks"}) fs::copy_file(path() + ext, crash + "/energyd.db" + ext);
  store_.reset();
  std::string wal = slurp(crash + "/energyd.db-wal");
  ASSERT_GT(wal.size(), 32u + 2 * (24 + 4096));
  for (size_t i = 0; i < 200; ++i) wal[32 + 24 + 200 + i] = static_cast<char>(wal[32 + 24 + 200 + i] ^ 0xa5);
  spit(crash + "/energyd.db-wal", wal);
  auto s = Store::open(crash + "/energyd.db", StoreRole::kWriter, 1000);
  ASSERT_TRUE(s.ok()) << s.error().describe();
  const auto& losses = (*s)->losses();
  ASSERT_TRUE(has_kind(losses, "wal_damaged", "damaged at frame 1")) << (losses.empty() ? "" : losses[0].message);
  EXPECT_EQ(losses[0].evidence.size(), 2u);
  for (const auto& copy : losses[0].evidence) EXPECT_TRUE(fs::exists(copy)) << copy;
  EXPECT_TRUE(has_kind(losses, "run_restored", "'in-the-wal'"));
  auto back = (*s)->runs().by_id(r.id);
  ASSERT_TRUE(back.ok() && back->has_value());
}

TEST_F(StoreGuard, UnreadableJournalLinesAreReported) {
  start("one");
  store_.reset();
  std::ofstream(path() + "-marks", std::ios::app) << "{\"op\":\"sta";  // torn by a power cut
  reopen();
  EXPECT_TRUE(has_kind(store_->losses(), "journal_damaged", "unreadable lines (3)"));
}

}  // namespace
}  // namespace energy
