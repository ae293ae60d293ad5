// StoreReadings: the raw tier of a Store: chunks of sweeps (chunker.h), one
// row of sweep timestamps per chunk and one row per rail with its encoded
// readings and its running energy at the chunk's edges, so energy over a
// window is a difference of two running values (O(log n)). energy() takes
// each edge from the finest tier that holds it (tiers.h).
//
// A reader's queries of the raw tier also read the sweep tail (<path>-tail,
// sweep_tail.h): the sweeps the writer has handed to the kernel but not yet
// committed, so they see every sweep. Obtained from Store::readings(); it
// shares the Store's connection and transaction.
//
// Time: t_ns is CLOCK_BOOTTIME of `boot` (a row id of the boots table).
// Units: uW, mV, mA as integers, energy in uJ.
// Thread-safety: that of its Store (one thread at a time).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "energy/chunker.h"
#include "energy/integrate.h"
#include "energy/result.h"
#include "energy/store_counters.h"
#include "energy/tiers.h"

namespace energy {

namespace sql {
class Db;
}
struct TailFrame;

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

class StoreReadings {
 public:
  // `path`: the database's (its tail is <path>-tail); `reader`: a kReader store's.
  StoreReadings(sql::Db* db, const std::string& path, bool reader) : db_(db), path_(path), reader_(reader) {}
  StoreReadings(const StoreReadings&) = delete;
  StoreReadings& operator=(const StoreReadings&) = delete;

  // Inserts or rewrites a chunk; rail_ids maps the chunk's rail positions to rail rows.
  Status put_chunk(int64_t boot, const std::vector<int64_t>& rail_ids, const Chunk& chunk);
  // Running-energy cursors at each rail's last stored valid reading of a boot
  // (parallel to rail_ids), so a restarted daemon continues them.
  Result<std::vector<RailCursor>> resume_cursors(int64_t boot, const std::vector<int64_t>& rail_ids);
  // Readings of one rail in [begin, end] plus the nearest valid reading on
  // each side, so the window's edges can be interpolated.
  Result<std::vector<PowerPoint>> rail_points(int64_t boot, int64_t rail_id, EnergyWindow window);
  // Energy of one rail over a window from the raw tier: two chunk lookups and
  // at most two decoded chunks. nullopt when an edge is outside the raw readings.
  Result<std::optional<double>> energy_uj(int64_t boot, int64_t rail_id, EnergyWindow window);
  // Energy of one rail over a window, each edge taken from the finest tier
  // that holds it (raw, then 1 s, then 1 min): O(log n) per edge. nullopt
  // when an edge is in no tier.
  Result<std::optional<EnergyAnswer>> energy(int64_t boot, int64_t rail_id, EnergyWindow window);
  // The raw readings of one rail interpolated at t_ns; nullopt when no valid
  // reading of the raw tier is on each side.
  Result<std::optional<double>> power_at(int64_t boot, int64_t rail_id, int64_t t_ns);
  // Number of stored sweeps.
  Result<int64_t> sample_count();
  // Time of the last reading stored for a boot, or nullopt if none.
  Result<std::optional<int64_t>> last_sample_ns(int64_t boot);

  struct ExportRow {
    std::string boot_id;
    std::string rail;
    int64_t t_ns = 0;     // CLOCK_BOOTTIME of that boot
    int64_t wall_ns = 0;  // display only
    codec::Reading reading;
  };
  // Raw readings whose wall-clock time is in [since, until], oldest first;
  // `rail_label` empty means every rail. Reads whole raw chunks until more
  // than `limit` rows are collected, as export_boot_readings does.
  Result<std::vector<ExportRow>> export_readings(int64_t since_wall_ns, int64_t until_wall_ns,
                                                 const std::string& rail_label, size_t limit);
  // Raw readings of one boot whose boot time is in [window.begin, window.end]
  // (a run's readings), oldest first; `rail_label` empty means every rail.
  // Reads whole raw chunks until more than `limit` rows are collected, so
  // every sweep is complete (all its rails) in the rows returned; a caller
  // paging at row `limit` cuts the page before that row's sweep.
  Result<std::vector<ExportRow>> export_boot_readings(int64_t boot, EnergyWindow window, const std::string& rail_label,
                                                      size_t limit);

 private:
  friend class Store;      // replays the tail at open (chunks_from_tail)
  friend class Retention;  // downsamples up to the next valid reading (cursor_after)
  struct Edge;
  struct RunningEnergy {
    double cum_uj = 0;
    double power_uw = 0;  // the readings interpolated at t
  };
  struct Around {
    std::optional<RailCursor> before;  // the last valid reading at or before t
    std::optional<RailCursor> after;   // the first at or after t, when in the chunk holding t
  };
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
  Result<std::optional<RunningEnergy>> running_energy_at(int64_t boot, int64_t rail_id, int64_t t_ns);
  Result<std::optional<EnergyAnswer>> running_energy_any(int64_t boot, int64_t rail_id, int64_t t_ns);
  Result<std::optional<Edge>> chunk_at_or_before(int64_t boot, int64_t rail_id, int64_t t_ns);
  Result<std::optional<RailCursor>> cursor_after(int64_t boot, int64_t rail_id, int64_t t_ns);
  Result<std::optional<RailCursor>> cursor_before(int64_t boot, int64_t rail_id, int64_t t_ns);
  Result<std::optional<RailCursor>> first_cursor_after_chunk(int64_t boot, int64_t rail_id, int64_t t_ns);
  Result<Around> cursors_around(int64_t boot, int64_t rail_id, int64_t t_ns);
  Result<std::vector<StoredReading>> decode(int64_t chunk_id, int64_t rail_id);
  Result<std::optional<int64_t>> stored_last_ns(int64_t boot);
  Status append_points(int64_t chunk_id, int64_t rail_id, EnergyWindow w, std::vector<PowerPoint>& out);
  // Reader: where live_ was read up to, so that frames appended since to
  // the same file are decoded and chunked alone (issue 16: a tail of many
  // closed chunks is not decoded again after every append).
  struct LiveCursor {
    uint64_t ino = 0;
    size_t bytes = 0;                        // the valid prefix read
    Chunker chunker;                         // holds live_'s open chunk (its last, when not empty)
    int64_t newest_ns = 0;                   // the newest sweep chunked
    int64_t stored_last_ns = 0;              // the database's newest sweep of the boot then
    std::optional<StoredCounters> counters;  // what the next frame's counters may refer to
  };
  // `keep`: where the reader's cursor goes (nullptr for a replay).
  Result<LiveChunks> chunks_from_tail(const std::vector<TailFrame>& frames, int64_t boot,
                                      const std::vector<int64_t>& rail_ids, std::optional<LiveCursor>* keep = nullptr);
  Result<LiveChunks> live_rails(int64_t boot, const std::vector<int64_t>& rail_ids);
  // Reader: the database as of one moment, for every statement of a
  // query (a savepoint), taken after the sweep tail was read, so that
  // live_ and the stored chunks the query lists neither overlap nor leave
  // a gap (store_tail.cpp). Empty for a writer. No public query calls
  // another, so snapshots do not nest.
  class Snapshot {
   public:
    Snapshot() = default;
    Snapshot(Snapshot&& o) noexcept : owner_(o.owner_) { o.owner_ = nullptr; }
    Snapshot(const Snapshot&) = delete;
    Snapshot& operator=(const Snapshot&) = delete;
    Snapshot& operator=(Snapshot&&) = delete;
    ~Snapshot();

   private:
    friend class StoreReadings;
    explicit Snapshot(StoreReadings* owner) : owner_(owner) {}
    StoreReadings* owner_ = nullptr;
  };
  // What the sweep tail holds beyond live_ (store_tail.cpp).
  struct TailRead;
  // Reader: brings live_ up to the tail and the sweep ring, and opens the
  // snapshot the query runs in (before each public query of the raw tier).
  Result<Snapshot> refresh_live();
  Result<Snapshot> open_snapshot();
  void close_snapshot();
  // The tail file's frames beyond live_, or all of them (no database access).
  Result<TailRead> read_tail() const;
  // Adds what read_tail() found to live_, in the open snapshot; false when
  // the database took sweeps since live_ was chunked, so live_ must be
  // read afresh from the whole file, before a new snapshot.
  Result<bool> apply_tail(const TailRead& read);
  Status add_ring_sweeps();
  void chunk_live(const std::vector<const std::vector<Sample>*>& batches);
  Result<std::string> boot_id_of(int64_t boot);
  void drop_live();
  // The position of rail_id among live_'s rails for `boot`, or -1.
  int live_rail(int64_t boot, int64_t rail_id) const;
  Status append_live_rows(const std::function<bool(int64_t, int64_t)>& keep, const std::string& rail_label,
                          size_t limit, std::vector<ExportRow>& out);
  std::string tail_path() const { return path_ + "-tail"; }

  sql::Db* db_;
  const std::string& path_;  // the Store's
  bool reader_;
  std::optional<LiveChunks> live_;         // reader only
  std::string live_key_;                   // the tail file live_ was read from (inode, size, mtime)
  std::optional<LiveCursor> live_cursor_;  // reader only, with live_
};

}  // namespace energy
