// ContextLog: the writer's pending board context rows against a real Store:
// an earlier daemon's polling is ended at the first open, rows survive a
// rolled-back transaction (with the source ids it created), and a reopen
// writes every source's latest value again.
#include "context_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "../libenergy/temp_store.h"
#include "../time_units.h"
#include "energy/chunker.h"

namespace energy::daemon {
namespace {

class ContextLogTest : public TempStoreTest {
 protected:
  void SetUp() override {
    TempStoreTest::SetUp();
    if (HasFatalFailure()) return;
    open();
  }
  // (Re)opens the store and this boot's row.
  void open() {
    reopen();
    if (HasFatalFailure()) return;
    auto b = store_->ensure_boot("boot-a", 0);
    ASSERT_TRUE(b.ok());
    boot_ = *b;
  }
  // One transaction as the writer makes it.
  Status flush(ContextLog& log, bool commit = true) {
    auto st = store_->begin();
    if (st) st = log.write(*store_, boot_);
    if (st && commit) st = store_->commit();
    if (!st || !commit) {
      (void)store_->rollback();
      return st ? make_error(ErrorCode::kStorage, "rolled back") : st;
    }
    log.committed();
    return st;
  }
  std::vector<ContextSeries> all() {
    auto w = store_->context().window(boot_, {0, INT64_MAX});
    EXPECT_TRUE(w.ok());
    return w.ok() ? *w : std::vector<ContextSeries>{};
  }
  // A sweep stored at t, so the store knows this boot's last sample.
  void sweep_at(int64_t t) {
    RailInfo info;
    info.label = "VDD_IN";
    auto ids = store_->ensure_rails({info});
    ASSERT_TRUE(ids.ok());
    Chunker c({ChunkRail{0}}, 600, {});
    c.add(Sample{t, t, {RailValue{1000, 5000, 1, 0}}});
    ASSERT_TRUE(store_->readings().put_chunk(boot_, *ids, c.open_chunk()).ok());
  }
  static ContextChange gpu(int64_t t, int64_t hz) {
    return {ContextKind::kClock, "gpu", t, ContextValue::of_number(hz)};
  }

  int64_t boot_ = 0;
};

TEST_F(ContextLogTest, TheFirstOpenEndsTheEarlierDaemonsPollingAtItsLastSweep) {
  {
    ContextLog before(100);
    ASSERT_TRUE(before.opened(*store_, boot_, 0).ok());
    before.add({gpu(kSec, 612'000'000)});
    ASSERT_TRUE(flush(before).ok());
  }
  sweep_at(5 * kSec);  // the old daemon's last stored sweep; then it was killed
  ContextLog after(100);
  ASSERT_TRUE(after.opened(*store_, boot_, 0).ok());
  auto series = all();
  ASSERT_EQ(series.size(), 1u);
  ASSERT_EQ(series[0].rows.size(), 2u);
  EXPECT_EQ(series[0].rows[1].t_ns, 5 * kSec);
  EXPECT_EQ(series[0].rows[1].v, ContextValue::unknown());
}

TEST_F(ContextLogTest, RowsAndNewSourcesSurviveARolledBackTransaction) {
  ContextLog log(100);
  ASSERT_TRUE(log.opened(*store_, boot_, 0).ok());
  log.add({gpu(kSec, 306'000'000), {ContextKind::kThermal, "cpu-thermal", kSec, ContextValue::of_number(41'000)}});
  ASSERT_FALSE(flush(log, false).ok());  // the source rows it created are gone with it
  EXPECT_EQ(log.pending(), 2);
  // Another source takes the first free id meanwhile: a stale cached id would now point at it.
  ASSERT_TRUE(store_->context().ensure_source(ContextKind::kClock, "emc").ok());
  ASSERT_TRUE(flush(log).ok());
  EXPECT_EQ(log.pending(), 0);
  EXPECT_EQ(log.written(), 2);
  auto series = all();
  ASSERT_EQ(series.size(), 2u);  // cpu-thermal and gpu; emc has no rows
  for (const auto& s : series) {
    ASSERT_EQ(s.rows.size(), 1u) << s.name;
    EXPECT_EQ(s.rows[0].v.number, s.name == "gpu" ? 306'000'000 : 41'000);
  }
}

TEST_F(ContextLogTest, AReopenWritesEveryLatestValueAgain) {
  ContextLog log(100);
  ASSERT_TRUE(log.opened(*store_, boot_, 0).ok());
  log.add({gpu(kSec, 306'000'000), gpu(2 * kSec, 612'000'000)});
  ASSERT_TRUE(flush(log).ok());
  // The damaged file was moved aside and a fresh one created.
  store_.reset();
  std::filesystem::remove(dir_ + "/energyd.db");
  open();
  ASSERT_TRUE(log.opened(*store_, boot_, 9 * kSec).ok());
  ASSERT_TRUE(flush(log).ok());
  auto series = all();
  ASSERT_EQ(series.size(), 1u);
  ASSERT_EQ(series[0].rows.size(), 1u);
  EXPECT_EQ(series[0].rows[0].t_ns, 9 * kSec);
  EXPECT_EQ(series[0].rows[0].v.number, 612'000'000);
}

TEST_F(ContextLogTest, PendingRowsAreBoundedOldestFirst) {
  ContextLog log(3);
  log.add({gpu(1, 1), gpu(2, 2), gpu(3, 3), gpu(4, 4), gpu(5, 5)});
  EXPECT_EQ(log.pending(), 3);
  EXPECT_EQ(log.dropped(), 2);
  ASSERT_TRUE(log.opened(*store_, boot_, 0).ok());
  ASSERT_TRUE(flush(log).ok());
  EXPECT_EQ(all()[0].rows.front().t_ns, 3);
}

}  // namespace
}  // namespace energy::daemon
