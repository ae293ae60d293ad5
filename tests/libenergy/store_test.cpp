#include "energy/store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "../time_units.h"
#include "energy/chunker.h"
#include "energy/report.h"
#include "temp_store.h"

namespace energy {
namespace {

class StoreTest : public TempStoreTest {
 protected:
  std::vector<RailInfo> rails() const { return two_test_rails(3); }

  // Stores sweeps through a Chunker with small chunks, so windows cross chunk edges.
  void put(int64_t boot, const std::vector<int64_t>& ids, const std::vector<Sample>& sweeps, int64_t chunk = 7) {
    std::vector<ChunkRail> layout(ids.size(), ChunkRail{0});
    Chunker chunker(layout, chunk, {});
    for (const auto& s : sweeps) chunker.add(s);
    ASSERT_TRUE(store_->begin().ok());
    for (const auto& c : chunker.take_closed()) ASSERT_TRUE(store_->readings().put_chunk(boot, ids, c).ok());
    ASSERT_TRUE(store_->readings().put_chunk(boot, ids, chunker.open_chunk()).ok());
    ASSERT_TRUE(store_->commit().ok());
  }

  // Two rails at 5 W and 1 W every 100 ms from 0 to 2 s.
  void fill(int64_t boot, const std::vector<int64_t>& ids) {
    std::vector<Sample> sweeps;
    for (int64_t t = 0; t <= 2000; t += 100) {
      sweeps.push_back(
          Sample{t * kMs, t * kMs, {RailValue{5'000'000, 5000, 1000, 0}, RailValue{1'000'000, 5000, 200, 0}}});
    }
    put(boot, ids, sweeps);
  }
};

TEST_F(StoreTest, RailPointsIncludeOneReadingBeyondEachEdge) {
  auto boot = store_->ensure_boot("boot-a", 0);
  auto ids = store_->ensure_rails(rails());
  ASSERT_TRUE(boot.ok() && ids.ok());
  fill(*boot, *ids);
  auto pts = store_->readings().rail_points(*boot, (*ids)[0], {450 * kMs, 1250 * kMs});
  ASSERT_TRUE(pts.ok());
  ASSERT_FALSE(pts->empty());
  EXPECT_EQ(pts->front().t_ns, 400 * kMs);
  EXPECT_EQ(pts->back().t_ns, 1300 * kMs);
  EXPECT_EQ(pts->size(), 10u);
}

TEST_F(StoreTest, RunReportIntegratesEachRailAndTheInputRailAsTotal) {
  auto boot = store_->ensure_boot("boot-a", 0);
  auto ids = store_->ensure_rails(rails());
  fill(*boot, *ids);
  RunRecord run;
  run.name = "r";
  run.boot = *boot;
  run.start_ns = 500 * kMs;
  run.items = 12.5;
  auto id = store_->runs().insert(run);
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(store_->runs().finish(*id, 1500 * kMs, 0, RunState::kStopped).ok());
  auto rec = store_->runs().by_id(*id);
  ASSERT_TRUE(rec.ok() && rec->has_value());
  EXPECT_EQ((*rec)->items, 12.5) << "the start's item count is stored with the run";
  auto rep = build_run_report(*store_, **rec, 1500 * kMs, 250 * kMs);
  ASSERT_TRUE(rep.ok()) << rep.error().describe();
  ASSERT_EQ(rep->rails.size(), 2u);
  EXPECT_NEAR(rep->rails[0].stats.energy_uj, 5e6, 1e-3);
  EXPECT_NEAR(rep->rails[1].stats.energy_uj, 1e6, 1e-3);
  EXPECT_EQ(rep->total_rails, std::vector<std::string>{"VDD_IN"});
  EXPECT_NEAR(rep->total.energy_uj, 5e6, 1e-3);
}

TEST_F(StoreTest, RunWithoutReadingsIsAnErrorNotZeroJoules) {
  auto boot = store_->ensure_boot("boot-a", 0);
  ASSERT_TRUE(store_->ensure_rails(rails()).ok());
  RunRecord run;
  run.name = "empty";
  run.boot = *boot;
  run.id = 1;
  auto rep = build_run_report(*store_, run, 1000 * kMs, 250 * kMs);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.error().message.find("no power readings"), std::string::npos);
}

TEST_F(StoreTest, ReopenKeepsDataAndSchemaVersion) {
  auto boot = store_->ensure_boot("boot-a", 0);
  auto ids = store_->ensure_rails(rails());
  fill(*boot, *ids);
  store_.reset();
  auto again = Store::open(path(), StoreRole::kWriter, 1000);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*(*again)->readings().sample_count(), 21);
  EXPECT_EQ(*(*again)->ensure_boot("boot-a", 5), *boot);
  auto last = (*again)->readings().last_sample_ns(*boot);
  ASSERT_TRUE(last.ok() && last->has_value());
  EXPECT_EQ(**last, 2000 * kMs);
}

// Issue 16: the writer's open reads every page of the database
// (quick_check). With SQLite's default page cache (2,000 KiB a connection)
// that much of a large database stayed in the daemon's heap; each
// connection now holds at most 512 KiB of pages. A writer opens a 6 MB
// database and SQLite's own count of the memory it holds must stay under 1 MiB.
TEST_F(StoreTest, OpeningALargeDatabaseKeepsItsPageCacheBounded) {
  store_.reset();
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path().c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw,
                         "CREATE TABLE filler(b BLOB);"
                         "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500)"
                         " INSERT INTO filler SELECT randomblob(4000) FROM n;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  ASSERT_GT(std::filesystem::file_size(path()), 6'000'000u);
  sqlite3_int64 before = 0, before_peak = 0;
  ASSERT_EQ(sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &before, &before_peak, 0), SQLITE_OK);
  auto store = Store::open(path(), StoreRole::kWriter, 1000);
  ASSERT_TRUE(store.ok()) << store.error().describe();
  sqlite3_int64 now = 0, peak = 0;
  ASSERT_EQ(sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &now, &peak, 0), SQLITE_OK);
  ASSERT_GT(now, before) << "SQLite does not count its memory (SQLITE_DEFAULT_MEMSTATUS=0?)";
  EXPECT_LT(now - before, 1 << 20);
}

TEST_F(StoreTest, RunningEnergyAgreesWithIntegratingTheReadings) {
  auto boot = store_->ensure_boot("boot-a", 0);
  auto ids = store_->ensure_rails(rails());
  std::vector<Sample> sweeps;
  for (int64_t i = 0; i < 200; ++i) {
    int64_t t = i * 100 * kMs + (i * 7919 % 997) * 1000;   // jitter in whole microseconds
    int32_t err = (i % 37 == 5 || i % 37 == 6) ? EIO : 0;  // a few two-sweep gaps
    int32_t ma0 = 600 + static_cast<int32_t>(i % 13) * 8;
    int32_t ma1 = 200 + static_cast<int32_t>(i % 5) * 8;
    sweeps.push_back(
        Sample{t, t, {RailValue{5000 * int64_t{ma0}, 5000, ma0, err}, RailValue{5000 * int64_t{ma1}, 5000, ma1, 0}}});
  }
  put(*boot, *ids, sweeps, 9);
  for (auto [a, b] : {std::pair<int64_t, int64_t>{150, 1550}, {0, 19'900}, {333, 334}, {2'345, 17'777}}) {
    EnergyWindow w{a * kMs, b * kMs};
    for (int64_t rail : *ids) {
      auto fast = store_->readings().energy_uj(*boot, rail, w);
      auto pts = store_->readings().rail_points(*boot, rail, w);
      ASSERT_TRUE(fast.ok() && pts.ok());
      ASSERT_TRUE(fast->has_value()) << a << ".." << b;
      double slow = integrate_power(*pts, w, 250 * kMs).energy_uj;
      EXPECT_NEAR(**fast, slow, 1e-6 * std::max(1.0, slow)) << "rail " << rail << " window " << a << ".." << b;
    }
  }
}

TEST_F(StoreTest, WindowEdgeBeforeAChunksFirstValidReadingFindsTheChunkBefore) {
  auto boot = store_->ensure_boot("boot-a", 0);
  auto ids = store_->ensure_rails(rails());
  std::vector<Sample> sweeps;
  for (int64_t t = 0; t <= 2000; t += 100) {  // chunks of 7: the second starts at 700 ms with a failed read
    int32_t err = t == 700 ? EIO : 0;
    sweeps.push_back(
        Sample{t * kMs, t * kMs, {RailValue{5'000'000, 5000, 1000, err}, RailValue{1'000'000, 5000, 200, 0}}});
  }
  put(*boot, *ids, sweeps);
  auto e = store_->readings().energy_uj(*boot, (*ids)[0], {750 * kMs, 1500 * kMs});  // 750: after 700, before 800
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_NEAR(**e, 5.0 * 0.75e6, 1e-3);  // bridged from 600 to 800 ms at 5 W
}

TEST_F(StoreTest, EnergyOutsideTheStoredReadingsIsUnknownNotZero) {
  auto boot = store_->ensure_boot("boot-a", 0);
  auto ids = store_->ensure_rails(rails());
  fill(*boot, *ids);
  auto e = store_->readings().energy_uj(*boot, (*ids)[0], {1500 * kMs, 9000 * kMs});
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->has_value());
}

TEST_F(StoreTest, ResumeCursorsContinueTheRunningEnergy) {
  auto boot = store_->ensure_boot("boot-a", 0);
  auto ids = store_->ensure_rails(rails());
  fill(*boot, *ids);
  auto cur = store_->readings().resume_cursors(*boot, *ids);
  ASSERT_TRUE(cur.ok());
  ASSERT_TRUE((*cur)[0].has_last);
  EXPECT_EQ((*cur)[0].last_t_ns, 2000 * kMs);
  EXPECT_NEAR((*cur)[0].cum_uj, 10e6, 1e-3);  // 5 W for 2 s
}

TEST_F(StoreTest, OpenRunsAreListedByState) {
  auto boot = store_->ensure_boot("boot-a", 0);
  RunRecord run;
  run.name = "a";
  run.boot = *boot;
  ASSERT_TRUE(store_->runs().insert(run).ok());
  auto open = store_->runs().in_state(RunState::kOpen);
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 1u);
  EXPECT_EQ(open->front().name, "a");
}

TEST_F(StoreTest, StoppedRunKeepsItsClocks) {
  auto boot = store_->ensure_boot("boot-a", 0);
  RunRecord run;
  run.name = "a";
  run.boot = *boot;
  auto id = store_->runs().insert(run);
  ASSERT_TRUE(id.ok());
  auto before = store_->runs().by_id(*id);
  ASSERT_TRUE(before.ok() && before->has_value());
  EXPECT_FALSE((*before)->clocks_json.has_value());  // nothing recorded yet: absent, not empty
  ASSERT_TRUE(store_->runs().finish(*id, 10, 10, RunState::kStopped).ok());
  ASSERT_TRUE(store_->runs().set_clocks(*id, R"({"clock_pins":[{"lease":3}],"clock_events":[]})").ok());
  auto after = store_->runs().by_id(*id);
  ASSERT_TRUE(after.ok() && after->has_value());
  ASSERT_TRUE((*after)->clocks_json.has_value());
  EXPECT_EQ(*(*after)->clocks_json, R"({"clock_pins":[{"lease":3}],"clock_events":[]})");
}

// A page of `export` ends on a sweep boundary by cutting at row `limit`; so
// the rows before that cut must hold every rail of every sweep, or a page
// that ends inside a chunk loses the other rails' readings for good.
TEST_F(StoreTest, ExportReadingsReturnsWholeSweepsWhenTheLimitFallsInsideAChunk) {
  auto boot = store_->ensure_boot("boot-a", 0);
  auto ids = store_->ensure_rails(rails());
  ASSERT_TRUE(boot.ok() && ids.ok());
  fill(*boot, *ids);           // 21 sweeps in chunks of 7, two rails
  constexpr size_t kPage = 5;  // as the daemon pages: ask for one row more than a page
  auto rows = store_->readings().export_readings(0, 10'000 * kMs, "", kPage + 1);
  ASSERT_TRUE(rows.ok());
  ASSERT_GT(rows->size(), kPage);
  int64_t cut = (*rows)[kPage].wall_ns;  // the page ends before this sweep
  std::map<int64_t, int> rails_per_sweep;
  for (const auto& r : *rows) {
    if (r.wall_ns < cut) ++rails_per_sweep[r.wall_ns];
  }
  ASSERT_FALSE(rails_per_sweep.empty());
  for (const auto& [t, n] : rails_per_sweep) EXPECT_EQ(n, 2) << "sweep at " << t << " lost a rail";
  auto all = store_->readings().export_readings(0, 10'000 * kMs, "", 1000);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 42u);
}

}  // namespace
}  // namespace energy

namespace energy {
namespace {

// The energy counters' record (schema 6): stored as a whole, read back as
// stored, and a record whose rows disagree or fail the checks is damaged.
class CountersStoreTest : public TempStoreTest {};

StoredCounters two_rail_counters() {
  return StoredCounters{"0123456789abcdef", 1700000000000000000, {{"VDD_IN", 12.5e6}, {"VDD_SOC", 0.25}}};
}

TEST_F(CountersStoreTest, NoneUntilStoredThenReadBackAsStoredAcrossAReopen) {
  auto none = store_->counters().get();
  ASSERT_TRUE(none.ok()) << none.error().describe();
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(store_->begin());
  ASSERT_TRUE(store_->counters().put(two_rail_counters()));
  ASSERT_TRUE(store_->commit());
  reopen();
  auto c = store_->counters().get();
  ASSERT_TRUE(c.ok()) << c.error().describe();
  ASSERT_TRUE(c->has_value());
  EXPECT_EQ((*c)->counters_id, "0123456789abcdef");
  EXPECT_EQ((*c)->created_wall_ns, 1700000000000000000);
  ASSERT_EQ((*c)->energy_uj.size(), 2u);
  EXPECT_EQ((*c)->energy_uj[0].first, "VDD_IN");
  EXPECT_DOUBLE_EQ((*c)->energy_uj[0].second, 12.5e6);
  EXPECT_DOUBLE_EQ((*c)->energy_uj[1].second, 0.25);
}

TEST_F(CountersStoreTest, APutReplacesTheWholeRecordAndAGoneRailIsDropped) {
  ASSERT_TRUE(store_->counters().put(two_rail_counters()));
  ASSERT_TRUE(store_->counters().put(StoredCounters{"fedcba9876543210", 3, {{"VDD_IN", 1.0}}}));
  auto c = store_->counters().get();
  ASSERT_TRUE(c.ok() && c->has_value());
  EXPECT_EQ((*c)->counters_id, "fedcba9876543210");
  ASSERT_EQ((*c)->energy_uj.size(), 1u);
  EXPECT_DOUBLE_EQ((*c)->energy_uj[0].second, 1.0);
}

TEST_F(CountersStoreTest, InvalidCountersAreRefusedNamingTheField) {
  auto bad_id = store_->counters().put(StoredCounters{"xyz", 0, {}});
  ASSERT_FALSE(bad_id);
  EXPECT_NE(bad_id.error().message.find("counters_id"), std::string::npos) << bad_id.error().message;
  auto negative = store_->counters().put(StoredCounters{"0123456789abcdef", 0, {{"VDD_IN", -1.0}}});
  ASSERT_FALSE(negative);
  EXPECT_NE(negative.error().message.find("energy_uj \"VDD_IN\""), std::string::npos) << negative.error().message;
  auto twice = store_->counters().put(StoredCounters{"0123456789abcdef", 0, {{"VDD_IN", 1.0}, {"VDD_IN", 2.0}}});
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message.find("twice"), std::string::npos) << twice.error().message;
  auto c = store_->counters().get();
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->has_value()) << "a refused record stores nothing";
}

TEST_F(CountersStoreTest, RowsThatDisagreeOrFailTheChecksAreDamaged) {
  ASSERT_TRUE(store_->counters().put(two_rail_counters()));
  store_.reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE energy_counters SET counters_id = 'fedcba9876543210' WHERE label = 'VDD_SOC'",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  reopen();
  auto c = store_->counters().get();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(c.error().message.find("disagree"), std::string::npos) << c.error().message;

  store_.reset();
  ASSERT_EQ(sqlite3_open(path().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE energy_counters SET counters_id = '0123456789abcdef', energy_uj = -5", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  reopen();
  c = store_->counters().get();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(c.error().message.find("must be a number >= 0"), std::string::npos) << c.error().message;
}

}  // namespace
}  // namespace energy
