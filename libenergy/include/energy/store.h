// Store: the SQLite database of samples and runs under the state directory.
//
// Raw readings live in chunks (chunker.h): one row of sweep timestamps per
// chunk and one row per rail with its encoded readings and its running energy
// at the chunk's edges. Owns one connection. The daemon's writer thread holds a kWriter store and
// batches samples into transactions; queries use their own kReader store so
// they never block the writer (WAL mode). Schema versions are migrated on
// open by the writer.
//
// Time: t_ns values are CLOCK_BOOTTIME of the boot identified by `boot` (a
// row id of the boots table); they are never compared across boots.
// Units: uW, mV, mA as integers; err is the errno of a failed read.
//
// Thread-safety: one thread at a time per Store.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "energy/chunker.h"
#include "energy/integrate.h"
#include "energy/rails.h"
#include "energy/result.h"
#include "energy/sample.h"

namespace energy {

namespace sql {
class Db;
}

enum class StoreRole { kWriter, kReader };

enum class RunState { kOpen, kStopped, kInterrupted };
const char* run_state_name(RunState s);

struct RunRecord {
  int64_t id = 0;
  std::string name;
  std::string tags_json = "{}";  // object of string -> string
  int64_t boot = 0;
  int64_t start_ns = 0;
  int64_t start_wall_ns = 0;
  std::optional<int64_t> stop_ns;
  std::optional<int64_t> stop_wall_ns;
  RunState state = RunState::kOpen;
};

struct StoredRail {
  int64_t id = 0;
  std::string label;
  std::string driver;
  std::string device;
  int64_t channel = 0;
  int64_t power_unit_uw = 0;  // unit of the driver's power file (codec.h); 0: none
};

// The unit of a driver's power file in uW, as the raw tier stores it.
int64_t power_unit_uw(MonitorDriver driver);

class Store {
 public:
  static constexpr int kSchemaVersion = 2;

  // The writer checks the file (PRAGMA quick_check) before migrating; a
  // damaged file gives ErrorCode::kCorrupt.
  static Result<std::unique_ptr<Store>> open(const std::string& path, StoreRole role, int busy_timeout_ms);
  // Renames a damaged database (and its -wal and -shm files) to
  // <path>.corrupt-<suffix>, so a fresh one can be created; returns the new name.
  static Result<std::string> move_aside(const std::string& path, const std::string& suffix);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Row id of a boot, created if new.
  Result<int64_t> ensure_boot(const std::string& boot_id, int64_t wall_ns);
  // Row ids of rails, by label, created if new; same order as `rails`.
  Result<std::vector<int64_t>> ensure_rails(const std::vector<RailInfo>& rails);

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

  Result<int64_t> insert_run(const RunRecord& run);
  Status finish_run(int64_t id, int64_t stop_ns, int64_t stop_wall_ns, RunState state);
  Result<std::vector<RunRecord>> runs_in_state(RunState state);
  Result<std::optional<RunRecord>> run_by_id(int64_t id);

  Result<std::vector<StoredRail>> rails();
  // Readings of one rail in [begin, end] plus the nearest valid reading on
  // each side, so the window's edges can be interpolated.
  Result<std::vector<PowerPoint>> rail_points(int64_t boot, int64_t rail_id, EnergyWindow window);
  // Energy of one rail over a window from the running energy: two chunk
  // lookups (O(log n)) and at most two decoded chunks. nullopt when an edge of
  // the window is outside the stored readings.
  Result<std::optional<double>> energy_uj(int64_t boot, int64_t rail_id, EnergyWindow window);
  // Raw readings whose wall-clock time is in [since, until], oldest first,
  // at most `limit` of them; `rail_label` empty means every rail.
  struct ExportRow {
    std::string boot_id;
    std::string rail;
    int64_t t_ns = 0;     // CLOCK_BOOTTIME of that boot
    int64_t wall_ns = 0;  // display only
    codec::Reading reading;
  };
  Result<std::vector<ExportRow>> export_readings(int64_t since_wall_ns, int64_t until_wall_ns,
                                                 const std::string& rail_label, size_t limit);
  // Number of stored sweeps.
  Result<int64_t> sample_count();
  // Time of the last reading stored for a boot, or nullopt if none.
  Result<std::optional<int64_t>> last_sample_ns(int64_t boot);

 private:
  explicit Store(std::unique_ptr<sql::Db> db);
  Status migrate();
  Status quick_check();
  Status migrate_v1_to_v2();
  struct Edge;
  Result<std::optional<double>> running_energy_at(int64_t boot, int64_t rail_id, int64_t t_ns);
  Result<std::optional<Edge>> chunk_at_or_before(int64_t boot, int64_t rail_id, int64_t t_ns);
  Result<std::optional<RailCursor>> cursor_after(int64_t boot, int64_t rail_id, int64_t t_ns);
  Result<std::optional<RailCursor>> cursor_before(int64_t boot, int64_t rail_id, int64_t t_ns);
  Result<std::vector<StoredReading>> decode(int64_t chunk_id, int64_t rail_id);

  std::unique_ptr<sql::Db> db_;
};

}  // namespace energy
