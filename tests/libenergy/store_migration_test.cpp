// Schema 1 (one row per reading, shipped in the first development builds) is
// migrated to schema 2 (chunks with running energy) on open, keeping every
// reading, every run and the energy they add up to.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

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
    sql += "INSERT INTO samples VALUES(1, 1, " + t + ", " + t + ", 4000000, 5000, 800, 0);";
    sql += "INSERT INTO samples VALUES(1, 2, " + t + ", " + t + ", 2000000, 5000, 400, 0);";
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
  EXPECT_EQ(*(*store)->sample_count(), 11);
  auto run = (*store)->run_by_id(1);
  ASSERT_TRUE(run.ok() && run->has_value());
  EXPECT_EQ((*run)->name, "old");
  auto rails = (*store)->rails();
  ASSERT_TRUE(rails.ok());
  ASSERT_EQ(rails->size(), 2u);
  EXPECT_EQ((*rails)[1].power_unit_uw, 1000);
  auto e_hwmon = (*store)->energy_uj(1, 1, {0, 1'000'000'000});
  auto e_iio = (*store)->energy_uj(1, 2, {100'000'000, 900'000'000});
  ASSERT_TRUE(e_hwmon.ok() && e_hwmon->has_value());
  ASSERT_TRUE(e_iio.ok() && e_iio->has_value());
  EXPECT_NEAR(**e_hwmon, 4e6, 1e-3);
  EXPECT_NEAR(**e_iio, 1.6e6, 1e-3);
  store->reset();
  auto again = Store::open(path, StoreRole::kWriter, 1000);  // already version 2: nothing to do
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*(*again)->sample_count(), 11);
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
