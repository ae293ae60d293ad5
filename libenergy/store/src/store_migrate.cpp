// Schema migrations 1 -> 2 (one row per rail reading becomes chunks with
// running energy, chunker.h), 2 -> 3 (downsampled tiers, tiers.h), 3 -> 4
// (run clocks, board context), 4 -> 5 (rail averaging lag), 5 -> 6 (the
// energy counters) and 6 -> 7 (runs' item counts). Each runs inside one transaction.
#include <map>

#include "energy/store.h"
#include "sqlite.h"

namespace energy {
namespace {

constexpr int64_t kChunkSweeps = 600;

constexpr const char* kSchemaV2 = R"sql(
ALTER TABLE rails ADD COLUMN power_unit_uw INTEGER NOT NULL DEFAULT 0;
UPDATE rails SET power_unit_uw = CASE driver WHEN 'ina3221x' THEN 1000 WHEN 'ina238' THEN 1 ELSE 0 END;
CREATE TABLE chunks(id INTEGER PRIMARY KEY, boot INTEGER NOT NULL, t_first_ns INTEGER NOT NULL,
                    t_last_ns INTEGER NOT NULL, sweeps INTEGER NOT NULL, wall_offset_ns INTEGER NOT NULL,
                    times BLOB NOT NULL, UNIQUE(boot, t_first_ns));
CREATE TABLE rail_chunks(chunk INTEGER NOT NULL, rail INTEGER NOT NULL, data BLOB NOT NULL,
                         valid INTEGER NOT NULL, failed INTEGER NOT NULL, min_uw INTEGER NOT NULL,
                         max_uw INTEGER NOT NULL, first_t_ns INTEGER, first_uw INTEGER, first_cum_uj REAL,
                         last_t_ns INTEGER, last_uw INTEGER, last_cum_uj REAL, UNIQUE(chunk, rail));
)sql";

// Rows of consecutive buckets of one rail in one tier (1 = 1 s, 2 = 1 min);
// running energy at the row's edges; for 1 s rows the last valid raw
// reading integrated, which bridges to the next readings.
constexpr const char* kSchemaV3 = R"sql(
CREATE TABLE tier_chunks(id INTEGER PRIMARY KEY, tier INTEGER NOT NULL, boot INTEGER NOT NULL, rail INTEGER NOT NULL,
                         t_first_ns INTEGER NOT NULL, t_end_ns INTEGER NOT NULL, buckets INTEGER NOT NULL,
                         wall_offset_ns INTEGER NOT NULL, first_cum_uj REAL NOT NULL, last_cum_uj REAL NOT NULL,
                         last_t_ns INTEGER, last_uw INTEGER, data BLOB NOT NULL,
                         UNIQUE(tier, boot, rail, t_first_ns));
CREATE INDEX tier_chunks_by_age ON tier_chunks(tier, boot, t_first_ns);
PRAGMA user_version=3;
)sql";

// Runs keep what mark.stop reported about clocks (JSON: clock_pins and
// clock_events). context is a change log of polled board state: a row each
// time a source's value differs from its previous row in that boot (kind
// `clock`: cur Hz in value; `governor`: text; `thermal`: m°C in value, null
// when unreadable or gated). context_sources names the sources.
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE runs ADD COLUMN clocks TEXT;
CREATE INDEX runs_by_start ON runs(start_wall_ns);
CREATE TABLE context_sources(id INTEGER PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL, UNIQUE(kind, name));
CREATE TABLE context(boot INTEGER NOT NULL, source INTEGER NOT NULL, t_ns INTEGER NOT NULL, value INTEGER, text TEXT,
                     PRIMARY KEY(boot, source, t_ns)) WITHOUT ROWID;
PRAGMA user_version=4;
)sql";

// Rails carry their monitor's averaging lag (rails.h RailInfo::filter_ns)
// and the one it replaced, with where the change happened. Rows from before
// schema 5 were read without a known setting: 0 (no correction).
constexpr const char* kSchemaV5 = R"sql(
ALTER TABLE rails ADD COLUMN filter_ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rails ADD COLUMN filter_before_ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rails ADD COLUMN filter_from_boot INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rails ADD COLUMN filter_from_ns INTEGER NOT NULL DEFAULT 0;
PRAGMA user_version=5;
)sql";

// The joule counters of `energy.counters`, one row per rail label, each
// row carrying the counters' id and start (one record, kept on one page so
// that rewriting it with every flush adds a single page to the commit).
// Written in the transaction of the sweeps they count (StorageWriter).
constexpr const char* kSchemaV6 = R"sql(
CREATE TABLE energy_counters(label TEXT PRIMARY KEY, counters_id TEXT NOT NULL, created_wall_ns INTEGER NOT NULL,
                             energy_uj REAL NOT NULL) WITHOUT ROWID;
PRAGMA user_version=6;
)sql";

// A run's work items (mark.start / mark.stop `items`, a positive number) for
// energy per item; runs from before schema 7 have none (NULL).
constexpr const char* kSchemaV7 = R"sql(
ALTER TABLE runs ADD COLUMN items REAL;
PRAGMA user_version=7;
)sql";

// Sweeps (sweep_records.h): the spec is JSON text kept verbatim; sweep_runs
// keeps the order runs were added in (seq), a run in one sweep at most
// (run_id UNIQUE) and one measure run per (point, repeat) of a sweep.
constexpr const char* kSchemaV8 = R"sql(
CREATE TABLE sweeps(id INTEGER PRIMARY KEY, name TEXT NOT NULL, state TEXT NOT NULL,
                    created_wall_ns INTEGER NOT NULL, updated_wall_ns INTEGER NOT NULL, spec TEXT NOT NULL);
CREATE TABLE sweep_runs(seq INTEGER PRIMARY KEY, sweep_id INTEGER NOT NULL REFERENCES sweeps(id),
                        run_id INTEGER NOT NULL UNIQUE REFERENCES runs(id), point INTEGER NOT NULL,
                        repeat INTEGER NOT NULL, role TEXT NOT NULL, cooldown_ms INTEGER);
CREATE INDEX sweep_runs_by_sweep ON sweep_runs(sweep_id, seq);
CREATE UNIQUE INDEX sweep_measure_once ON sweep_runs(sweep_id, point, repeat) WHERE role = 'measure';
PRAGMA user_version=8;
)sql";

// A migration that is one SQL script, in one transaction.
Status run_migration_script(sql::Db& db, int from, const char* script) {
  auto st = db.exec(std::string("BEGIN;") + script + "COMMIT;");
  if (st) return st;
  (void)db.exec("ROLLBACK");
  return make_error(ErrorCode::kStorage, "migration from schema " + std::to_string(from) + " to " +
                                             std::to_string(from + 1) + " failed: " + st.error().message);
}

struct V1Rail {
  int64_t id;
  int64_t unit;
};

Result<std::vector<V1Rail>> v1_rails(sql::Db& db) {
  auto st = db.prepare("SELECT id, power_unit_uw FROM rails ORDER BY id");
  if (!st) return st.take_error();
  std::vector<V1Rail> out;
  auto rows = sql::for_each_row(*st, [&] { out.push_back(V1Rail{st->int_at(0), st->int_at(1)}); });
  if (!rows) return rows.take_error();
  return out;
}

// Groups one boot's v1 rows into sweeps (same t_ns) and chunks them.
Status convert_boot(sql::Db& db, Store& store, int64_t boot, const std::vector<V1Rail>& rails) {
  std::vector<ChunkRail> layout;
  std::vector<int64_t> ids;
  std::map<int64_t, size_t> index;
  for (const auto& r : rails) {
    index[r.id] = layout.size();
    layout.push_back(ChunkRail{r.unit});
    ids.push_back(r.id);
  }
  Chunker chunker(layout, kChunkSweeps, {});
  auto st = db.prepare(
      "SELECT t_ns, wall_ns, rail, power_uw, voltage_mv, current_ma, err FROM samples "
      "WHERE boot = ?1 ORDER BY t_ns, rail");
  if (!st) return st.take_error();
  st->bind(1, boot);
  Sample sweep;
  auto emit = [&] {
    if (!sweep.values.empty()) chunker.add(sweep);
  };
  auto rows = sql::for_each_row(*st, [&] {
    if (st->int_at(0) != sweep.t_ns || sweep.values.empty()) {
      emit();
      sweep = Sample{st->int_at(0), st->int_at(1), std::vector<RailValue>(layout.size(), RailValue{0, 0, 0, ENODATA})};
    }
    sweep.values[index[st->int_at(2)]] =
        RailValue{st->int_at(3), static_cast<int32_t>(st->int_at(4)), static_cast<int32_t>(st->int_at(5)),
                  static_cast<int32_t>(st->int_at(6))};
  });
  if (!rows) return rows;
  emit();
  for (const auto& c : chunker.take_closed()) {
    auto put = store.readings().put_chunk(boot, ids, c);
    if (!put) return put;
  }
  return store.readings().put_chunk(boot, ids, chunker.open_chunk());
}

Status convert_all(sql::Db& db, Store& store) {
  auto st = db.exec(kSchemaV2);
  if (!st) return st;
  auto rails = v1_rails(db);
  if (!rails) return rails.take_error();
  auto boots = db.prepare("SELECT id FROM boots ORDER BY id");
  if (!boots) return boots.take_error();
  auto rows = sql::for_each_row(*boots, [&] { return convert_boot(db, store, boots->int_at(0), *rails); });
  if (!rows) return rows;
  return db.exec("DROP TABLE samples; PRAGMA user_version=2;");
}

}  // namespace

// A file made before schema 3 has no auto_vacuum; VACUUM rewrites it so that
// retention can return freed pages to the file system. Best effort: without
// the room for the copy the file stays as it is and freed pages are reused
// from its freelist instead (the budget counts live pages either way).
Status Store::migrate_v2_to_v3() {
  auto st = run_migration_script(*db_, 2, kSchemaV3);
  if (!st) return st;
  auto mode = db_->query_int("PRAGMA auto_vacuum");
  if (mode && *mode != 2) (void)db_->exec("PRAGMA auto_vacuum=INCREMENTAL; VACUUM;");
  return ok_status();
}

Status Store::migrate_v3_to_v4() { return run_migration_script(*db_, 3, kSchemaV4); }

Status Store::migrate_v1_to_v2() {
  auto st = db_->exec("BEGIN");
  if (!st) return st;
  st = convert_all(*db_, *this);
  if (!st) {
    (void)db_->exec("ROLLBACK");
    return make_error(ErrorCode::kStorage, "migration from schema 1 to 2 failed: " + st.error().message);
  }
  return db_->exec("COMMIT");
}

Status Store::migrate_v4_to_v5() { return run_migration_script(*db_, 4, kSchemaV5); }

Status Store::migrate_v5_to_v6() { return run_migration_script(*db_, 5, kSchemaV6); }

Status Store::migrate_v6_to_v7() { return run_migration_script(*db_, 6, kSchemaV7); }

Status Store::migrate_v7_to_v8() { return run_migration_script(*db_, 7, kSchemaV8); }

}  // namespace energy
