#include "energy/store.h"

#include <unistd.h>

#include <cstdio>

#include "sqlite.h"

namespace energy {
namespace {

// Migrations run in order from the database's user_version; never edit one
// that has shipped. A fresh database runs them all, so every migration is
// exercised by every test that opens a store.
constexpr const char* kSchemaV1 = R"sql(
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
)sql";

// Every connection's page cache is held to this many KiB (PRAGMA
// cache_size) instead of SQLite's 2,000: the writer's open reads every page
// (quick_check), and with the default its cache kept up to 2 MB of a large
// database resident for the daemon's lifetime (issue 16, docs/PERFORMANCE.md
// "The RSS at 1 ms, and the release build"). A commit, a retention step or
// a query touches a few B-tree paths again; other pages come from the
// kernel's page cache.
constexpr int kPageCacheKiB = 512;

}  // namespace

Store::Store(std::unique_ptr<sql::Db> db, std::string path, StoreRole role)
    : db_(std::move(db)), path_(std::move(path)), reader_(role == StoreRole::kReader) {}
Store::~Store() = default;

Result<std::unique_ptr<Store>> Store::open(const std::string& path, StoreRole role, int busy_timeout_ms) {
  auto mode = role == StoreRole::kWriter ? sql::OpenMode::kReadWriteCreate : sql::OpenMode::kReadOnly;
  BeforeOpen before;
  if (role == StoreRole::kWriter) before = guard_before_open(path);  // before SQLite replays the WAL
  auto db = sql::Db::open(path, mode);
  if (!db) return db.take_error();
  sqlite3_busy_timeout(db->raw(), busy_timeout_ms);
  std::unique_ptr<Store> store(new Store(std::make_unique<sql::Db>(std::move(db).value()), path, role));
  auto cache = store->db_->exec("PRAGMA cache_size=-" + std::to_string(kPageCacheKiB));
  if (!cache) return cache.take_error();
  if (role == StoreRole::kReader) return store;
  // auto_vacuum takes effect only on a database without tables (a new one;
  // the v2 -> v3 migration converts older files). journal_size_limit: the
  // WAL file shrinks back to this after each checkpoint instead of keeping
  // its largest size.
  for (const char* pragma :
       {"PRAGMA auto_vacuum=INCREMENTAL", "PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL",
        "PRAGMA foreign_keys=ON", "PRAGMA wal_autocheckpoint=0", "PRAGMA journal_size_limit=4194304"}) {
    auto st = store->db_->exec(pragma);
    if (!st) return st.take_error();
  }
  auto check = store->quick_check();
  if (!check) return check.take_error();
  auto mig = store->migrate();
  if (!mig) return mig.take_error();
  auto guard = store->guard_after_open(std::move(before));
  if (!guard) return guard.take_error();
  auto tail = store->replay_tail();
  if (!tail) return tail.take_error();
  return store;
}

Status Store::quick_check() {
  auto st = db_->prepare("PRAGMA quick_check");
  if (!st) return st.take_error();
  auto r = st->step();
  if (!r) return r.take_error();
  std::string verdict = *r == sql::StepResult::kRow ? st->text_at(0) : "no answer";
  if (verdict == "ok") return ok_status();
  return make_error(ErrorCode::kCorrupt, "database failed its integrity check: " + verdict);
}

Result<std::string> Store::move_aside(const std::string& path, const std::string& suffix) {
  std::string target = path + ".corrupt-" + suffix;
  for (const char* ext : {"", "-wal", "-shm"}) {
    std::string from = path + ext;
    if (::access(from.c_str(), F_OK) != 0) continue;
    if (::rename(from.c_str(), (target + ext).c_str()) != 0) return errno_error("cannot move " + from + " aside");
  }
  return target;
}

Status Store::migrate() {
  auto version = db_->query_int("PRAGMA user_version");
  if (!version) return version.take_error();
  if (*version > kSchemaVersion) {
    return make_error(ErrorCode::kStorage, "database schema version " + std::to_string(*version) +
                                               " is newer than this energyd (" + std::to_string(kSchemaVersion) + ")");
  }
  if (*version < 1) {
    auto st = db_->exec(std::string("BEGIN;") + kSchemaV1 + "PRAGMA user_version=1; COMMIT;");
    if (!st) return st;
  }
  if (*version < 2) {
    auto st = migrate_v1_to_v2();
    if (!st) return st;
  }
  if (*version < 3) {
    auto st = migrate_v2_to_v3();
    if (!st) return st;
  }
  if (*version < 4) {
    auto st = migrate_v3_to_v4();
    if (!st) return st;
  }
  if (*version < 5) {
    auto st = migrate_v4_to_v5();
    if (!st) return st;
  }
  if (*version < 6) {
    auto st = migrate_v5_to_v6();
    if (!st) return st;
  }
  if (*version < 7) {
    auto st = migrate_v6_to_v7();
    if (!st) return st;
  }
  if (*version < 8) return migrate_v7_to_v8();
  return ok_status();
}

Result<int64_t> Store::ensure_boot(const std::string& boot_id, int64_t wall_ns) {
  auto ins = db_->prepare("INSERT OR IGNORE INTO boots(boot_id, first_wall_ns) VALUES(?1, ?2)");
  if (!ins) return ins.take_error();
  auto done = ins->bind(1, boot_id).bind(2, wall_ns).run();
  if (!done) return done.take_error();
  auto sel = db_->prepare("SELECT id FROM boots WHERE boot_id = ?1");
  if (!sel) return sel.take_error();
  auto r = sel->bind(1, boot_id).step();
  if (!r) return r.take_error();
  return sel->int_at(0);
}

int64_t power_unit_uw(MonitorDriver driver) {
  switch (driver) {
    case MonitorDriver::kIna3221xIio: return 1000;  // in_power<c>_input is mW
    case MonitorDriver::kIna238Hwmon: return 1;     // power1_input is uW
    case MonitorDriver::kIna3221Hwmon: return 0;    // no power file
  }
  return 0;
}

Result<std::vector<int64_t>> Store::ensure_rails(const std::vector<RailInfo>& rails, FilterSince since) {
  // A new rail's setting applies to all its readings (before = now); a changed
  // one keeps the old value for the readings before `since`.
  auto ins = db_->prepare(
      "INSERT INTO rails(label, driver, device, channel, power_unit_uw, filter_ns, filter_before_ns, filter_from_boot, "
      "filter_from_ns) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7, ?8) "
      "ON CONFLICT(label) DO UPDATE SET driver=?2, device=?3, channel=?4, power_unit_uw=?5, "
      "filter_before_ns = CASE WHEN filter_ns = ?6 THEN filter_before_ns ELSE filter_ns END, "
      "filter_from_boot = CASE WHEN filter_ns = ?6 THEN filter_from_boot ELSE ?7 END, "
      "filter_from_ns = CASE WHEN filter_ns = ?6 THEN filter_from_ns ELSE ?8 END, filter_ns = ?6");
  auto sel = db_->prepare("SELECT id FROM rails WHERE label = ?1");
  if (!ins) return ins.take_error();
  if (!sel) return sel.take_error();
  std::vector<int64_t> ids;
  for (const auto& r : rails) {
    ins->bind(1, r.label).bind(2, driver_name(r.driver)).bind(3, r.device).bind(4, int64_t{r.channel});
    ins->bind(5, power_unit_uw(r.driver)).bind(6, r.filter_ns).bind(7, since.boot);
    auto done = ins->bind(8, since.t_ns).run();
    if (!done) return done.take_error();
    auto row = sel->bind(1, r.label).step();
    if (!row) return row.take_error();
    ids.push_back(sel->int_at(0));
    sel->reset();
  }
  return ids;
}

Status Store::begin() { return db_->exec("BEGIN"); }
Status Store::commit() { return db_->exec("COMMIT"); }
Status Store::rollback() { return db_->exec("ROLLBACK"); }

Status Store::set_durability(Durability d) {
  return db_->exec(d == Durability::kSynced ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL");
}

Status Store::checkpoint() { return db_->exec("PRAGMA wal_checkpoint(PASSIVE)"); }

Result<std::vector<StoredRail>> Store::rails() {
  auto st = db_->prepare(
      "SELECT id, label, driver, device, channel, power_unit_uw, filter_ns, filter_before_ns, filter_from_boot, "
      "filter_from_ns FROM rails ORDER BY id");
  if (!st) return st.take_error();
  std::vector<StoredRail> out;
  auto rows = sql::for_each_row(*st, [&] {
    out.push_back(StoredRail{st->int_at(0), st->text_at(1), st->text_at(2), st->text_at(3), st->int_at(4),
                             st->int_at(5), st->int_at(6), st->int_at(7), st->int_at(8), st->int_at(9)});
  });
  if (!rows) return rows.take_error();
  return out;
}

}  // namespace energy
