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
#include "energy/store_readings.h"
#include "energy/store_runs.h"
#include "energy/store_sweeps.h"
#include "energy/store_tiers.h"
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

class Store {
 public:
  static constexpr int kSchemaVersion = 8;
  // How long energyd's connections wait on a locked database (busy_timeout_ms).
  static constexpr int kBusyTimeoutMs = 5000;

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
  StoreReadings& readings() { return readings_; }
  StoreTiers& tiers() { return tiers_; }

  Result<std::vector<StoredRail>> rails();

 private:
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
  Status replay_tail();
  Status replay_frames(const std::vector<TailFrame>& frames);
  void set_tail_aside(const std::string& why);

  std::unique_ptr<sql::Db> db_;
  std::string path_;
  std::vector<StorageLoss> losses_;
  std::optional<MarksJournal> journal_;
  bool reader_ = false;
  // The parts (declared last: they refer to the members above).
  StoreRuns runs_{db_.get(), &journal_};
  StoreSweeps sweeps_{db_.get(), runs_};
  StoreContext context_{db_.get()};
  StoreCounters counters_{db_.get(), path_, reader_};
  StoreReadings readings_{db_.get(), path_, reader_};
  StoreTiers tiers_{db_.get(), path_, readings_, context_};
};

}  // namespace energy
