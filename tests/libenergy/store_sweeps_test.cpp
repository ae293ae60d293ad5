// Sweeps in the Store (store_sweeps.cpp, schema 8): round trip, listing,
// the refusals of add_sweep_run and set_sweep_state, and the migration
// from schema 7.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "energy/store.h"
#include "temp_store.h"

namespace energy {
namespace {

class StoreSweeps : public TempStoreTest {
 protected:
  void SetUp() override {
    TempStoreTest::SetUp();
    if (HasFatalFailure()) return;
    auto b = store_->ensure_boot("boot-a", 0);
    ASSERT_TRUE(b.ok());
    boot_ = *b;
  }

  int64_t run(RunState state = RunState::kStopped) {
    RunRecord r;
    r.name = "w";
    r.boot = boot_;
    r.start_ns = 1000;
    auto id = store_->runs().insert(r);
    EXPECT_TRUE(id.ok());
    if (state != RunState::kOpen) {
      EXPECT_TRUE(store_->runs().finish(*id, 2000, 2000, state).ok());
    }
    return *id;
  }

  int64_t sweep(const std::string& name = "grid", int64_t wall_ns = 100) {
    auto s = store_->sweeps().create(name, R"({"seed":7})", wall_ns);
    EXPECT_TRUE(s.ok()) << s.error().describe();
    return s.ok() ? s->id : 0;
  }

  Result<SweepRecord> add(int64_t sweep_id, int64_t run_id, int64_t point, int64_t repeat,
                          SweepRole role = SweepRole::kMeasure, int64_t wall_ns = 500) {
    return store_->sweeps().add_run(SweepRunRecord{sweep_id, run_id, point, repeat, role, std::nullopt}, wall_ns);
  }

  static void expect_refused(const Result<SweepRecord>& r, ErrorCode code, const std::string& words) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, code) << r.error().message;
    EXPECT_NE(r.error().message.find(words), std::string::npos) << r.error().message;
  }

  int64_t boot_ = 0;
};

TEST_F(StoreSweeps, RoundTripKeepsSpecRunsAndTheirOrder) {
  int64_t id = sweep("grid", 100);
  int64_t a = run(), b = run(), c = run();
  ASSERT_TRUE(add(id, c, 3, 0, SweepRole::kBaseline, 200).ok());
  ASSERT_TRUE(store_->sweeps().add_run(SweepRunRecord{id, a, 1, 0, SweepRole::kMeasure, 1500}, 300).ok());
  auto last = add(id, b, 0, 2, SweepRole::kMeasure, 400);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->measure_runs, 2);
  EXPECT_EQ(last->measured_points, 2);
  EXPECT_EQ(last->updated_wall_ns, 400);
  reopen();
  auto s = store_->sweeps().by_id(id);
  ASSERT_TRUE(s.ok() && s->has_value());
  EXPECT_EQ((*s)->name, "grid");
  EXPECT_EQ((*s)->state, SweepState::kRunning);
  EXPECT_EQ((*s)->created_wall_ns, 100);
  EXPECT_EQ((*s)->spec_json, R"({"seed":7})");
  auto runs = store_->sweeps().runs(id);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 3u);
  EXPECT_EQ((*runs)[0].run_id, c);
  EXPECT_EQ((*runs)[0].role, SweepRole::kBaseline);
  EXPECT_EQ((*runs)[1].run_id, a);
  EXPECT_EQ((*runs)[1].cooldown_ms, 1500);
  EXPECT_EQ((*runs)[2].point, 0);
  EXPECT_EQ((*runs)[2].repeat, 2);
  EXPECT_FALSE((*runs)[2].cooldown_ms.has_value());
}

TEST_F(StoreSweeps, ListIsNewestFirstFilteredAndPaged) {
  int64_t a = sweep("a"), b = sweep("b"), c = sweep("c");
  ASSERT_TRUE(store_->sweeps().set_state(b, SweepState::kInterrupted, 900).ok());
  auto all = store_->sweeps().find(SweepFilter{});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].id, c);
  EXPECT_TRUE((*all)[0].spec_json.empty());
  auto interrupted = store_->sweeps().find(SweepFilter{SweepState::kInterrupted, std::nullopt, 100});
  ASSERT_TRUE(interrupted.ok());
  ASSERT_EQ(interrupted->size(), 1u);
  EXPECT_EQ((*interrupted)[0].id, b);
  auto page = store_->sweeps().find(SweepFilter{std::nullopt, c, 1});
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->size(), 1u);
  EXPECT_EQ((*page)[0].id, b);
  EXPECT_EQ(store_->sweeps().find(SweepFilter{std::nullopt, a, 10})->size(), 0u);
}

TEST_F(StoreSweeps, AddRunRefusesWhatTheProtocolRefuses) {
  int64_t id = sweep(), other = sweep("other");
  int64_t r1 = run(), r2 = run(), open = run(RunState::kOpen);
  ASSERT_TRUE(add(id, r1, 0, 0).ok());
  expect_refused(add(999, r2, 0, 1), ErrorCode::kNotFound, "no sweep 999");
  expect_refused(add(id, 999, 0, 1), ErrorCode::kNotFound, "no run 999");
  expect_refused(add(id, open, 0, 1), ErrorCode::kState, "still open");
  expect_refused(add(other, r1, 0, 0), ErrorCode::kState, "already belongs to sweep " + std::to_string(id));
  expect_refused(add(id, r2, 0, 0), ErrorCode::kState, "already has a measure run at point 0, repeat 0");
  EXPECT_TRUE(add(id, r2, 0, 0, SweepRole::kWarmup).ok()) << "a warm-up may share a measure run's point";
  ASSERT_TRUE(store_->sweeps().set_state(id, SweepState::kComplete, 700).ok());
  expect_refused(add(id, run(), 1, 0), ErrorCode::kState, "is complete");
  EXPECT_EQ((*store_->sweeps().runs(id)).size(), 2u) << "refusals wrote nothing";
}

TEST_F(StoreSweeps, StateTransitionsFollowTheProtocol) {
  int64_t id = sweep("s", 100);
  auto same = store_->sweeps().set_state(id, SweepState::kRunning, 200);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->updated_wall_ns, 100) << "same -> same is a no-op";
  ASSERT_TRUE(store_->sweeps().set_state(id, SweepState::kInterrupted, 300).ok());
  ASSERT_TRUE(store_->sweeps().set_state(id, SweepState::kRunning, 400).ok());
  ASSERT_TRUE(store_->sweeps().set_state(id, SweepState::kInterrupted, 500).ok());
  auto done = store_->sweeps().set_state(id, SweepState::kComplete, 600);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->state, SweepState::kComplete);
  EXPECT_EQ(done->updated_wall_ns, 600);
  EXPECT_TRUE(store_->sweeps().set_state(id, SweepState::kComplete, 700).ok());
  expect_refused(store_->sweeps().set_state(id, SweepState::kRunning, 800), ErrorCode::kState, "final");
  expect_refused(store_->sweeps().set_state(id, SweepState::kInterrupted, 800), ErrorCode::kState, "final");
  expect_refused(store_->sweeps().set_state(42, SweepState::kRunning, 800), ErrorCode::kNotFound, "no sweep 42");
  int64_t direct = sweep("t");
  EXPECT_TRUE(store_->sweeps().set_state(direct, SweepState::kComplete, 900).ok()) << "running -> complete";
}

TEST_F(StoreSweeps, Schema7IsMigratedKeepingRunsThatThenJoinSweeps) {
  int64_t old_run = run();
  store_.reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "DROP TABLE sweep_runs; DROP TABLE sweeps; PRAGMA user_version=7;", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  reopen();
  ASSERT_FALSE(HasFatalFailure());
  auto kept = store_->runs().by_id(old_run);
  ASSERT_TRUE(kept.ok() && kept->has_value());
  int64_t id = sweep();
  ASSERT_TRUE(add(id, old_run, 0, 0).ok());
  EXPECT_EQ(store_->sweeps().runs(id)->size(), 1u);
}

}  // namespace
}  // namespace energy
