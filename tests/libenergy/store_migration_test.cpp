// Schema 1 (one row per reading, shipped in the first development builds) is
// migrated to schema 2 (chunks with running energy) and schema 2 to schema 3
// (downsampled tiers, incremental vacuum) on open, keeping every reading,
// every run and the energy they add up to.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

#include "energy/chunker.h"
#include "energy/store.h"

namespace energy {
namespace {

// Schema 1 exactly as it shipped (a frozen fixture; never edit it).
constexpr const char* kV1 = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE boots(id INTEGER PRIMARY KEY, boot_id TEXT NOT NULL UNIQUE, first_wall_ns INTEGER NOT NULL);
CREATE TABLE rails(id INTEGER PRIMARY KEY, label TEXT NOT NULL UNIQUE, driver TEXT NOT NULL,
                   device TEXT NOT NULL, channel INTEGER NOT NULL);
CREATE TABLE samples(boot INTEGER NOT NULL, rail INTEGER NOT NULL, t_ns INTEGER NOT NULL,
                     wall_ns INTEGER NOT NULL, power_uw INTEGER NOT NULL, voltage_mv INTEGER NOT NULL,
                     current_ma INTEGER NOT NULL, err INTEGER NOT NULL,
                     PRIMARY KEY(boot, rail, t_ns)) WITHOUT ROWID;
CREATE TABLE runs(id INTEGER PRIMARY KEY, name TEXT NOT NULL, tags TEXT NOT NULL, boot INTEGER NOT NULL,
                  start_ns INTEGER NOT NULL, start_wall_ns INTEGER NOT NULL, stop_ns INTEGER,
                  stop_wall_ns INTEGER, state TEXT NOT NULL);
CREATE INDEX runs_by_state ON runs(state);
INSERT INTO boots VALUES(1, 'boot-a', 0);
INSERT INTO rails VALUES(1, 'VDD_IN', 'ina3221', '1-0040', 1);
INSERT INTO rails VALUES(2, 'POM_5V_IN', 'ina3221x', '6-0040', 1);
INSERT INTO runs VALUES(1, 'old', '{}', 1, 100000000, 0, 900000000, 0, 'stopped');
PRAGMA user_version = 1;
)sql";

std::string make_v1(const std::string& path) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  std::string sql = kV1;
  for (int i = 0; i <= 10; ++i) {  // 1 s of 4 W (hwmon: 5000 mV x 800 mA) and 2 W (IIO: mW file)
    std::string t = std::to_string(int64_t{i} * 100'000'000);
    std::string times = t;
    times.append(", ").append(t);
    sql.append("INSERT INTO samples VALUES(1, 1, ").append(times).append(", 4000000, 5000, 800, 0);");
    sql.append("INSERT INTO samples VALUES(1, 2, ").append(times).append(", 2000000, 5000, 400, 0);");
  }
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  std::string msg = err != nullptr ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  return rc == SQLITE_OK ? "" : msg;
}

TEST(StoreMigration, Version1IsMigratedKeepingReadingsRunsAndEnergy) {
  char tmpl[] = "/tmp/energy-migrate-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  std::string path = dir + "/energyd.db";
  ASSERT_EQ(make_v1(path), "");
  auto store = Store::open(path, StoreRole::kWriter, 1000);
  ASSERT_TRUE(store.ok()) << store.error().describe();
  EXPECT_EQ(*(*store)->readings().sample_count(), 11);
  auto run = (*store)->runs().by_id(1);
  ASSERT_TRUE(run.ok() && run->has_value());
  EXPECT_EQ((*run)->name, "old");
  auto rails = (*store)->rails();
  ASSERT_TRUE(rails.ok());
  ASSERT_EQ(rails->size(), 2u);
  EXPECT_EQ((*rails)[1].power_unit_uw, 1000);
  auto e_hwmon = (*store)->readings().energy_uj(1, 1, {0, 1'000'000'000});
  auto e_iio = (*store)->readings().energy_uj(1, 2, {100'000'000, 900'000'000});
  ASSERT_TRUE(e_hwmon.ok() && e_hwmon->has_value());
  ASSERT_TRUE(e_iio.ok() && e_iio->has_value());
  EXPECT_NEAR(**e_hwmon, 4e6, 1e-3);
  EXPECT_NEAR(**e_iio, 1.6e6, 1e-3);
  store->reset();
  auto again = Store::open(path, StoreRole::kWriter, 1000);  // already the latest version: nothing to do
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*(*again)->readings().sample_count(), 11);
  std::filesystem::remove_all(dir);
}

// Schema 2 exactly as it shipped (a frozen fixture; never edit it).
constexpr const char* kV2 = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE boots(id INTEGER PRIMARY KEY, boot_id TEXT NOT NULL UNIQUE, first_wall_ns INTEGER NOT NULL);
CREATE TABLE rails(id INTEGER PRIMARY KEY, label TEXT NOT NULL UNIQUE, driver TEXT NOT NULL,
                   device TEXT NOT NULL, channel INTEGER NOT NULL, power_unit_uw INTEGER NOT NULL DEFAULT 0);
CREATE TABLE runs(id INTEGER PRIMARY KEY, name TEXT NOT NULL, tags TEXT NOT NULL, boot INTEGER NOT NULL,
                  start_ns INTEGER NOT NULL, start_wall_ns INTEGER NOT NULL, stop_ns INTEGER,
                  stop_wall_ns INTEGER, state TEXT NOT NULL);
CREATE INDEX runs_by_state ON runs(state);
CREATE TABLE chunks(id INTEGER PRIMARY KEY, boot INTEGER NOT NULL, t_first_ns INTEGER NOT NULL,
                    t_last_ns INTEGER NOT NULL, sweeps INTEGER NOT NULL, wall_offset_ns INTEGER NOT NULL,
                    times BLOB NOT NULL, UNIQUE(boot, t_first_ns));
CREATE TABLE rail_chunks(chunk INTEGER NOT NULL, rail INTEGER NOT NULL, data BLOB NOT NULL,
                         valid INTEGER NOT NULL, failed INTEGER NOT NULL, min_uw INTEGER NOT NULL,
                         max_uw INTEGER NOT NULL, first_t_ns INTEGER, first_uw INTEGER, first_cum_uj REAL,
                         last_t_ns INTEGER, last_uw INTEGER, last_cum_uj REAL, UNIQUE(chunk, rail));
INSERT INTO boots VALUES(1, 'boot-a', 0);
INSERT INTO rails VALUES(1, 'VDD_IN', 'ina3221', '1-0040', 1, 0);
INSERT INTO runs VALUES(1, 'old', '{}', 1, 100000000, 0, 900000000, 0, 'stopped');
PRAGMA user_version = 2;
)sql";

void bind_cursor(sqlite3_stmt* st, int index, const RailCursor& c) {
  if (!c.has_last) return;  // left NULL
  sqlite3_bind_int64(st, index, c.last_t_ns);
  sqlite3_bind_int64(st, index + 1, c.last_power_uw);
  sqlite3_bind_double(st, index + 2, c.cum_uj);
}

// 20 minutes of 4 W (5000 mV x 800 mA) every 100 ms in 600-sweep chunks, as schema 2 stored them.
void insert_v2_chunks(sqlite3* db) {
  Chunker chunker({ChunkRail{0}}, 600, {});
  for (int64_t i = 0; i <= 12'000; ++i)
    chunker.add(Sample{i * 100'000'000, i * 100'000'000, {RailValue{4'000'000, 5000, 800, 0}}});
  auto chunks = chunker.take_closed();
  chunks.push_back(chunker.open_chunk());
  sqlite3_stmt* c = nullptr;
  sqlite3_stmt* r = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO chunks VALUES(?1, 1, ?2, ?3, ?4, 0, ?5)", -1, &c, nullptr);
  sqlite3_prepare_v2(db, "INSERT INTO rail_chunks VALUES(?1, 1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)", -1, &r,
                     nullptr);
  for (size_t i = 0; i < chunks.size(); ++i) {
    const Chunk& k = chunks[i];
    sqlite3_bind_int64(c, 1, static_cast<int64_t>(i + 1));
    sqlite3_bind_int64(c, 2, k.t_first_ns);
    sqlite3_bind_int64(c, 3, k.t_last_ns);
    sqlite3_bind_int64(c, 4, k.sweeps);
    sqlite3_bind_blob(c, 5, k.times.data(), static_cast<int>(k.times.size()), SQLITE_TRANSIENT);
    sqlite3_step(c);
    sqlite3_reset(c);
    const RailChunk& rc = k.rails[0];
    sqlite3_clear_bindings(r);
    sqlite3_bind_int64(r, 1, static_cast<int64_t>(i + 1));
    sqlite3_bind_blob(r, 2, rc.data.data(), static_cast<int>(rc.data.size()), SQLITE_TRANSIENT);
    sqlite3_bind_int64(r, 3, rc.valid);
    sqlite3_bind_int64(r, 4, rc.failed);
    sqlite3_bind_int64(r, 5, rc.min_power_uw);
    sqlite3_bind_int64(r, 6, rc.max_power_uw);
    bind_cursor(r, 7, rc.first);
    bind_cursor(r, 10, rc.last);
    sqlite3_step(r);
    sqlite3_reset(r);
  }
  sqlite3_finalize(c);
  sqlite3_finalize(r);
}

int64_t pragma(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, sql, -1, &st, nullptr);
  int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

TEST(StoreMigration, Version2GainsTiersAndIncrementalVacuumKeepingEnergy) {
  char tmpl[] = "/tmp/energy-migrate-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  std::string path = dir + "/energyd.db";
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  ASSERT_EQ(sqlite3_exec(db, kV2, nullptr, nullptr, nullptr), SQLITE_OK);
  insert_v2_chunks(db);
  sqlite3_close(db);
  ASSERT_EQ(pragma(path, "PRAGMA auto_vacuum"), 0);
  auto store = Store::open(path, StoreRole::kWriter, 1000);
  ASSERT_TRUE(store.ok()) << store.error().describe();
  EXPECT_EQ(pragma(path, "PRAGMA user_version"), Store::kSchemaVersion);
  EXPECT_EQ(pragma(path, "PRAGMA auto_vacuum"), 2);  // incremental: retention gives pages back
  EXPECT_EQ(*(*store)->readings().sample_count(), 12'001);
  auto before = (*store)->readings().energy(1, 1, {1000'000'000, 1100'000'000'000});
  ASSERT_TRUE(before.ok() && before->has_value());
  EXPECT_NEAR((*before)->energy_uj, 4.0 * 1099e6, 1e-3);
  RetentionPolicy p;
  p.raw_retention_ns = 600'000'000'000;  // the first 10 minutes go to 1 s buckets
  auto step = (*store)->tiers().apply_retention(p, RetentionNow{1, 1200'000'000'000, 1200'000'000'000});
  while (step.ok() && step->more)
    step = (*store)->tiers().apply_retention(p, RetentionNow{1, 1200'000'000'000, 1200'000'000'000});
  ASSERT_TRUE(step.ok()) << step.error().describe();
  auto after = (*store)->readings().energy(1, 1, {1000'000'000, 1100'000'000'000});
  ASSERT_TRUE(after.ok() && after->has_value());
  EXPECT_EQ((*after)->tier, Tier::kSecond);
  EXPECT_NEAR((*after)->energy_uj, 4.0 * 1099e6, kTierEnergyQuantumUj);
  EXPECT_LT(*(*store)->readings().sample_count(), 12'001);
  auto run = (*store)->runs().by_id(1);
  ASSERT_TRUE(run.ok() && run->has_value());
  EXPECT_FALSE((*run)->items.has_value()) << "runs from before schema 7 have no item count";
  ASSERT_TRUE((*store)->runs().set_items(1, 250.5).ok());  // schema 7's column is there
  EXPECT_EQ(*(*(*store)->runs().by_id(1))->items, 250.5);
  store->reset();
  std::filesystem::remove_all(dir);
}

TEST(StoreMigration, NewerSchemaIsRefusedWithAClearMessage) {
  char tmpl[] = "/tmp/energy-migrate-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  std::string path = dir + "/energyd.db";
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  auto store = Store::open(path, StoreRole::kWriter, 1000);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.error().message.find("newer than this energyd"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace energy
