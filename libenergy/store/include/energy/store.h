// Store: the SQLite database of samples and runs under the state directory.
//
// Raw readings live in chunks (chunker.h): one row of sweep timestamps per
// chunk and one row per rail with its encoded readings and its running energy
// at the chunk's edges. Older history lives in downsampled tiers (tiers.h):
// 1 s and 1 min buckets per rail in rows of consecutive buckets, carrying the
// same running energy at their edges, so energy over any interval is a
// difference of two running values whichever tier holds each edge.
// apply_retention moves data down the tiers and keeps the database within a
// disk budget. Owns one connection. The daemon's writer thread holds a kWriter store and
// batches samples into transactions; queries use their own kReader store so
// they never block the writer (WAL mode). Schema versions are migrated on
// open by the writer.
//
// Time: t_ns values are CLOCK_BOOTTIME of the boot identified by `boot` (a
// row id of the boots table); they are never compared across boots.
// Units: uW, mV, mA as integers; err is the errno of a failed read.
//
// The open chunk is not in the database: the daemon's writer commits only
// sealed chunks and keeps the newer sweeps in the sweep tail (<path>-tail,
// sweep_tail.h). A writer's open() replays what the tail holds that the
// database lacks (a kill -9 or a power cut stopped the daemon before it
// committed them), unless a live writer holds the tail's lock; a reader's
// queries of the raw tier read the tail too, so they see every sweep the
// writer has handed to the kernel (docs/ARCHITECTURE.md "Storage").
//
// Thread-safety: one thread at a time per Store.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "energy/chunker.h"
#include "energy/context.h"
#include "energy/integrate.h"
#include "energy/rails.h"
#include "energy/result.h"
#include "energy/sample.h"
#include "energy/store_context.h"
#include "energy/store_counters.h"
#include "energy/store_guard.h"
#include "energy/store_runs.h"
#include "energy/store_sweeps.h"
#include "energy/tiers.h"

namespace energy {

namespace sql {
class Db;
}
struct TailFrame;

enum class StoreRole { kWriter, kReader };

struct StoredRail {
  int64_t id = 0;
  std::string label;
  std::string driver;
  std::string device;
  int64_t channel = 0;
  int64_t power_unit_uw = 0;  // unit of the driver's power file (codec.h); 0: none
  // The monitor's averaging lag (RailInfo::filter_ns): filter_ns from
  // (filter_from_boot, filter_from_ns) on, filter_before_ns for readings
  // before that (the setting it replaced; one change is remembered).
  int64_t filter_ns = 0;
  int64_t filter_before_ns = 0;
  int64_t filter_from_boot = 0;
  int64_t filter_from_ns = 0;
  // The lag in force for readings of `boot` at t_ns.
  int64_t filter_at(int64_t boot, int64_t t_ns) const {
    bool after = boot > filter_from_boot || (boot == filter_from_boot && t_ns >= filter_from_ns);
    return after ? filter_ns : filter_before_ns;
  }
};

// Where a rail's averaging setting starts to apply: readings of this boot
// from t_ns on (ensure_rails).
struct FilterSince {
  int64_t boot = 0;
  int64_t t_ns = 0;
};

// The unit of a driver's power file in uW, as the raw tier stores it.
int64_t power_unit_uw(MonitorDriver driver);

// Energy of a window from the finest tier holding each of its edges.
struct EnergyAnswer {
  double energy_uj = 0;
  double error_bound_uj = 0;  // |energy from the raw readings - energy_uj| <= this (0 from raw)
  Tier tier = Tier::kRaw;     // the coarsest tier that answered an edge
  // The power at the window's edges, for the averaging correction
  // (averaging_correction.h): raw, the readings interpolated there; a tier, the mean of the
  // bucket holding the edge, which may be off by up to edge_spread_uw (the
  // buckets' max - min; 0 from raw).
  double begin_power_uw = 0;
  double end_power_uw = 0;
  double edge_spread_uw = 0;
};

// What apply_retention keeps. Ages are measured from RetentionNow: by boot
// time for the current boot (wall-clock steps change nothing), by wall
// clock for earlier boots.
struct RetentionPolicy {
  int64_t raw_retention_ns = 7 * 86'400'000'000'000;      // raw chunks older than this go to 1 s buckets
  int64_t second_retention_ns = 90 * 86'400'000'000'000;  // 1 s rows older than this go to 1 min buckets
  int64_t minute_retention_ns = 0;                        // 1 min rows older than this are deleted; 0: kept
  int64_t disk_budget_bytes = 1024LL * 1024 * 1024;       // database pages + WAL; 0: no budget
  int64_t protect_recent_ns = 600'000'000'000;            // the current boot's newest raw data the budget never takes
  int max_units_per_step = 8;                             // raw chunks or tier rows per transaction
  int64_t max_context_rows_per_step = 4096;               // board context rows deleted per transaction
};

struct RetentionNow {
  int64_t boot = 0;     // row id of the current boot
  int64_t boot_ns = 0;  // CLOCK_BOOTTIME now
  int64_t wall_ns = 0;  // CLOCK_REALTIME now
};

struct RetentionStep {
  int64_t raw_chunks_downsampled = 0;
  int64_t second_rows_downsampled = 0;
  int64_t minute_rows_deleted = 0;
  int64_t context_rows_deleted = 0;  // board context rows aged out with the 1 s tier (not in units())
  int64_t budget_bytes_used = 0;     // what the budget counts, after the step
  bool more = false;                 // work remains: call again (after letting other writes in)
  bool over_budget = false;          // over budget with nothing left that may be removed
  int64_t units() const { return raw_chunks_downsampled + second_rows_downsampled + minute_rows_deleted; }
};

struct TierFootprint {
  Tier tier = Tier::kRaw;
  int64_t rows = 0;        // raw: chunks; tiers: rows of buckets (all rails)
  int64_t data_bytes = 0;  // encoded payload (blobs), without SQLite overhead
  std::optional<int64_t> oldest_wall_ns;
  std::optional<int64_t> newest_wall_ns;
};

struct StoreFootprint {
  int64_t file_bytes = 0;            // database pages (page_count x page_size)
  int64_t free_bytes = 0;            // of which on the freelist (reused before the file grows)
  int64_t wal_bytes = 0;             // the -wal file
  std::vector<TierFootprint> tiers;  // raw, 1s, 1min
};

class Store {
 public:
  static constexpr int kSchemaVersion = 8;

  // The writer checks the file (PRAGMA quick_check) before migrating; a
  // damaged file gives ErrorCode::kCorrupt. Before SQLite sees the files,
  // the writer scans the WAL, and after migrating it compares the database
  // with the marks journal <path>-marks (store_guard.h): what was lost is in
  // losses(), acknowledged runs and stops the database lacks are restored.
  static Result<std::unique_ptr<Store>> open(const std::string& path, StoreRole role, int busy_timeout_ms);
  // Renames a damaged database (and its -wal and -shm files) to
  // <path>.corrupt-<suffix>, so a fresh one can be created; returns the new name.
  static Result<std::string> move_aside(const std::string& path, const std::string& suffix);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Row id of a boot, created if new.
  Result<int64_t> ensure_boot(const std::string& boot_id, int64_t wall_ns);
  // Row ids of rails, by label, created if new; same order as `rails`. A
  // rail whose filter_ns differs from the stored one gets it from `since` on
  // (the old value still applies to the readings before).
  Result<std::vector<int64_t>> ensure_rails(const std::vector<RailInfo>& rails, FilterSince since = {});

  Status begin();
  Status commit();
  Status rollback();
  // kSynced: the next commits fsync the WAL (marks, leases: acknowledged data
  // survives a power cut). kBatched: the WAL is synced at checkpoints only,
  // so a power cut loses at most the time since the last checkpoint.
  enum class Durability { kBatched, kSynced };
  Status set_durability(Durability d);
  // Copies the WAL into the database and syncs both (PRAGMA wal_checkpoint).
  Status checkpoint();
  // Inserts or rewrites a chunk (the open chunk is rewritten at every flush);
  // rail_ids maps the chunk's rail positions to rail rows.
  Status put_chunk(int64_t boot, const std::vector<int64_t>& rail_ids, const Chunk& chunk);
  // Running-energy cursors at each rail's last stored valid reading of a boot
  // (parallel to rail_ids), so a restarted daemon continues them.
  Result<std::vector<RailCursor>> resume_cursors(int64_t boot, const std::vector<int64_t>& rail_ids);

  // What open() found lost or damaged, and what it did about it; empty
  // when nothing was (always empty for a reader).
  const std::vector<StorageLoss>& losses() const { return losses_; }
  // The sweep tail of this database (sweep_tail.h).
  std::string tail_path() const { return path_ + "-tail"; }
  // The parts, each with one job, sharing this connection and its transactions.
  StoreRuns& runs() { return runs_; }
  StoreSweeps& sweeps() { return sweeps_; }
  StoreContext& context() { return context_; }
  StoreCounters& counters() { return counters_; }

  Result<std::vector<StoredRail>> rails();
  // Readings of one rail in [begin, end] plus the nearest valid reading on
  // each side, so the window's edges can be interpolated.
  Result<std::vector<PowerPoint>> rail_points(int64_t boot, int64_t rail_id, EnergyWindow window);
  // Energy of one rail over a window from the raw tier's running energy: two
  // chunk lookups (O(log n)) and at most two decoded chunks. nullopt when an
  // edge of the window is outside the stored raw readings (see energy()).
  Result<std::optional<double>> energy_uj(int64_t boot, int64_t rail_id, EnergyWindow window);
  // Energy of one rail over a window, each edge taken from the finest tier
  // that holds it (raw, then 1 s, then 1 min): O(log n) per edge. nullopt
  // when an edge is in no tier.
  Result<std::optional<EnergyAnswer>> energy(int64_t boot, int64_t rail_id, EnergyWindow window);
  // The raw readings of one rail interpolated at t_ns; nullopt when no valid
  // reading of the raw tier is on each side.
  Result<std::optional<double>> power_at(int64_t boot, int64_t rail_id, int64_t t_ns);
  // Buckets of one rail in a downsampled tier whose start is in [begin, end).
  Result<std::vector<Bucket>> rail_buckets(int64_t boot, int64_t rail_id, Tier tier, EnergyWindow window);
  // One rail's downsampled history over a window, for reports of runs whose
  // raw readings are gone: buckets of [begin, raw_from), each stretch from the
  // finest tier holding it (1 min, then 1 s); from raw_from on, the raw tier
  // holds the readings (rail_points). `coarsest` is the coarsest tier used.
  struct RailHistory {
    std::vector<Bucket> buckets;
    int64_t raw_from_ns = INT64_MAX;
    Tier coarsest = Tier::kRaw;
  };
  Result<RailHistory> rail_history(int64_t boot, int64_t rail_id, EnergyWindow window);
  // One bounded step of retention (at most policy.max_units_per_step raw
  // chunks or tier rows, one transaction): (a) raw chunks older than the raw
  // retention become 1 s buckets, (b) 1 s rows older than theirs become 1 min
  // buckets, (c) 1 min rows older than theirs are deleted; (d) while over the
  // disk budget (until 90% of it), the finest tier is shortened first, then
  // the next. Never touches the current boot's newest raw chunk or its
  // protected recent minutes, nor the newest 1 s row of a current-boot rail.
  // Board context rows older than where a boot's 1 s (or raw) history starts
  // are deleted except each source's newest one before that point (at most
  // max_context_rows_per_step per step; once the tiers' work fits a step).
  // Over the budget, context older than the raw readings goes before any
  // raw chunk is downsampled (the readings are worth more than old context).
  // Freed pages are returned to the file system (incremental vacuum). Call it
  // again while `more`; it must not run inside a transaction.
  Result<RetentionStep> apply_retention(const RetentionPolicy& policy, const RetentionNow& now);
  Result<StoreFootprint> footprint();
  // Raw readings whose wall-clock time is in [since, until], oldest first;
  // `rail_label` empty means every rail. Reads whole raw chunks until more
  // than `limit` rows are collected, as export_boot_readings does.
  struct ExportRow {
    std::string boot_id;
    std::string rail;
    int64_t t_ns = 0;     // CLOCK_BOOTTIME of that boot
    int64_t wall_ns = 0;  // display only
    codec::Reading reading;
  };
  Result<std::vector<ExportRow>> export_readings(int64_t since_wall_ns, int64_t until_wall_ns,
                                                 const std::string& rail_label, size_t limit);
  // Raw readings of one boot whose boot time is in [window.begin, window.end]
  // (a run's readings), oldest first; `rail_label` empty means every rail.
  // Reads whole raw chunks until more than `limit` rows are collected, so
  // every sweep is complete (all its rails) in the rows returned; a caller
  // paging at row `limit` cuts the page before that row's sweep.
  Result<std::vector<ExportRow>> export_boot_readings(int64_t boot, EnergyWindow window, const std::string& rail_label,
                                                      size_t limit);
  // Number of stored sweeps.
  Result<int64_t> sample_count();
  // Time of the last reading stored for a boot, or nullopt if none.
  Result<std::optional<int64_t>> last_sample_ns(int64_t boot);

 private:
  friend class Retention;
  Store(std::unique_ptr<sql::Db> db, std::string path, StoreRole role);
  Status migrate();
  Status quick_check();
  // The guard (store_guard.h), around SQLite's open: the WAL scan and the
  // journal read before it, the comparison with the journal after migrating.
  struct BeforeOpen {
    bool database_empty = false;  // missing or 0 bytes
    std::optional<MarksJournalContents> journal;
    std::vector<StorageLoss> losses;
  };
  static BeforeOpen guard_before_open(const std::string& path);
  Status guard_after_open(BeforeOpen before);
  Result<std::string> ensure_store_id();
  Status restore_marks(const std::vector<MarkEntry>& entries);
  Status restore_start(const MarkEntry& e);
  Status restore_stop(const MarkEntry& e);
  void open_journal(const std::string& store_id, bool exists);
  Status migrate_v1_to_v2();
  Status migrate_v2_to_v3();
  Status migrate_v3_to_v4();
  Status migrate_v4_to_v5();
  Status migrate_v5_to_v6();
  Status migrate_v6_to_v7();
  Status migrate_v7_to_v8();
  struct ContextRetention {
    int64_t rows_deleted = 0;
    bool more = false;
  };
  // How far back a boot's board context is kept: as far as its 1 s (or raw)
  // history reaches, or, over the disk budget, as far as its raw readings do.
  enum class ContextReach { kSecondTier, kRawTier };
  // Board context beyond that reach, keeping each source's newest row before the cut.
  Result<ContextRetention> retain_context(const RetentionPolicy& policy, const RetentionNow& now, ContextReach reach);
  Result<int64_t> context_cut(int64_t boot, const RetentionPolicy& policy, const RetentionNow& now, ContextReach reach);
  Result<std::optional<EnergyAnswer>> running_energy_any(int64_t boot, int64_t rail_id, int64_t t_ns);
  Result<int64_t> budget_bytes_used(int64_t wal_allowance_bytes);
  // apply_retention's steps (retention.cpp).
  Status retention_transaction(const RetentionPolicy& policy, const RetentionNow& now, RetentionStep& step,
                               bool& context_more);
  void settle_budget(const RetentionPolicy& policy, bool was_shrinking, bool context_more, RetentionStep& step);
  struct Edge;
  struct RunningEnergy {
    double cum_uj = 0;
    double power_uw = 0;  // the readings interpolated at t
  };
  Result<std::optional<RunningEnergy>> running_energy_at(int64_t boot, int64_t rail_id, int64_t t_ns);
  Result<std::optional<Edge>> chunk_at_or_before(int64_t boot, int64_t rail_id, int64_t t_ns);
  Result<std::optional<RailCursor>> cursor_after(int64_t boot, int64_t rail_id, int64_t t_ns);
  Result<std::optional<RailCursor>> cursor_before(int64_t boot, int64_t rail_id, int64_t t_ns);
  Result<std::optional<RailCursor>> first_cursor_after_chunk(int64_t boot, int64_t rail_id, int64_t t_ns);
  struct Around {
    std::optional<RailCursor> before;  // the last valid reading at or before t
    std::optional<RailCursor> after;   // the first at or after t, when in the chunk holding t
  };
  Result<Around> cursors_around(int64_t boot, int64_t rail_id, int64_t t_ns);
  Result<std::vector<StoredReading>> decode(int64_t chunk_id, int64_t rail_id);
  Result<std::optional<int64_t>> stored_last_ns(int64_t boot);
  Status append_points(int64_t chunk_id, int64_t rail_id, EnergyWindow w, std::vector<PowerPoint>& out);

  // The sweep tail's sweeps the database lacks, as chunks (store_tail.cpp).
  // A live chunk's id is -1 - its index; it is newer than every stored one.
  struct LiveChunks {
    int64_t boot = 0;
    std::vector<int64_t> rail_ids;
    std::vector<int64_t> units;  // power_unit_uw, parallel to rail_ids
    std::vector<Chunk> chunks;   // oldest first
    std::string boot_id;         // for exports
    std::vector<std::string> labels;
  };
  Result<LiveChunks> chunks_from_tail(const std::vector<TailFrame>& frames, int64_t boot,
                                      const std::vector<int64_t>& rail_ids);
  Status replay_tail();
  Status replay_frames(const std::vector<TailFrame>& frames);
  void set_tail_aside(const std::string& why);
  // Reader: reloads live_ from the tail (before each public query of the raw tier).
  Status refresh_live();
  // The position of rail_id among live_'s rails for `boot`, or -1.
  int live_rail(int64_t boot, int64_t rail_id) const;
  Status append_live_rows(const std::function<bool(int64_t, int64_t)>& keep, const std::string& rail_label,
                          size_t limit, std::vector<ExportRow>& out);

  std::unique_ptr<sql::Db> db_;
  std::string path_;
  std::vector<StorageLoss> losses_;
  std::optional<MarksJournal> journal_;
  bool shrinking_ = false;  // over the disk budget: retention shortens tiers until 90% of it
  bool reader_ = false;
  std::optional<LiveChunks> live_;  // reader only
  std::string live_key_;            // the tail file live_ was read from (inode, size, mtime)
  // The parts (declared last: they refer to the members above).
  StoreRuns runs_{db_.get(), &journal_};
  StoreSweeps sweeps_{db_.get(), runs_};
  StoreContext context_{db_.get()};
  StoreCounters counters_{db_.get(), path_, reader_};
};

}  // namespace energy
