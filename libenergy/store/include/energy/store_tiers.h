// StoreTiers: the downsampled tiers of a Store (tiers.h: 1 s and 1 min
// buckets per rail in rows of consecutive buckets, carrying the raw tier's
// running energy at their edges) and retention, which moves history down
// the tiers and keeps the database within a disk budget, a few rows per
// transaction. Obtained from Store::tiers(); it shares the Store's
// connection.
//
// Time: t_ns is CLOCK_BOOTTIME of `boot`; retention ages by boot time for
// the current boot and by wall clock for earlier ones.
// Thread-safety: that of its Store (one thread at a time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "energy/integrate.h"
#include "energy/result.h"
#include "energy/store_context.h"
#include "energy/store_readings.h"
#include "energy/tiers.h"

namespace energy {

namespace sql {
class Db;
}

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
  // Raw chunks that age out go together: none until the oldest is this much
  // past raw_retention_ns, then every one past it (in steps). Each
  // transaction that downsamples rewrites about 100 kB of pages whatever it
  // holds (its tier rows, the table and freelist pages), so one a minute
  // wrote 172 MB a day on a week of data; 30 min batches write 34 MB in
  // steps of 8 chunks, 24 MB in steps of 32 (storage_bench
  // BM_RetentionWrites/30/8 and /30/32, issue 16). 0: each chunk as it ages.
  int64_t raw_batch_ns = 0;
  int64_t max_context_rows_per_step = 4096;  // board context rows deleted per transaction
  // true: freed pages stay in the file for the next chunks, up to the WAL's
  // allowance (counted in the budget), and go back beyond it or while
  // shrinking for the budget. false (energyd's): every step gives them back.
  // storage_bench BM_WeekWrites compares the two; in the daemon keeping
  // them wrote more (docs/PERFORMANCE.md, session 21), so energyd does not.
  bool keep_free_pages = false;
};

// energyd's max_units_per_step for a board of `rails` rails: as many raw
// chunks as make 96 rail-chunks (32 for 3 rails, 10 for 9), at least 8 and
// at most 32. A step's time grows with its rail-chunks (storage_bench
// BM_RetentionStep: about 20 ms here for 3 x 32, 9 x 10 and 12 x 8), so no
// board's step takes longer than a 12-rail board's 8 chunks (boards of more
// rails keep the 8 they had), while a board
// of few rails downsamples a 30-minute batch in fewer transactions, each of
// which rewrites about 100 kB whatever it holds (BM_RetentionWrites).
int retention_units_per_step(size_t rails);

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

class StoreTiers {
 public:
  // `path`: the database's (its WAL is <path>-wal).
  StoreTiers(sql::Db* db, const std::string& path, StoreReadings& readings, StoreContext& context)
      : db_(db), path_(path), readings_(readings), context_(context) {}
  StoreTiers(const StoreTiers&) = delete;
  StoreTiers& operator=(const StoreTiers&) = delete;

  // Buckets of one rail in a downsampled tier whose start is in [begin, end).
  Result<std::vector<Bucket>> rail_buckets(int64_t boot, int64_t rail_id, Tier tier, EnergyWindow window);
  // One rail's downsampled history over a window, for reports of runs whose
  // raw readings are gone: buckets of [begin, raw_from), each stretch from the
  // finest tier holding it (1 min, then 1 s); from raw_from on, the raw tier
  // holds the readings (StoreReadings::rail_points). `coarsest` is the coarsest tier used.
  struct RailHistory {
    std::vector<Bucket> buckets;
    int64_t raw_from_ns = INT64_MAX;
    Tier coarsest = Tier::kRaw;
  };
  Result<RailHistory> rail_history(int64_t boot, int64_t rail_id, EnergyWindow window);
  // One bounded step of retention (at most policy.max_units_per_step raw
  // chunks or tier rows, one transaction): (a) raw chunks older than the raw
  // retention become 1 s buckets (in batches: policy.raw_batch_ns), (b) 1 s rows older than theirs become 1 min
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

 private:
  friend class Retention;  // apply_retention's passes (retention.cpp)
  // How far back a boot's board context is kept: as far as its 1 s (or raw)
  // history reaches, or, over the disk budget, as far as its raw readings do.
  enum class ContextReach { kSecondTier, kRawTier };
  // Board context beyond that reach, keeping each source's newest row before the cut.
  Result<StoreContext::Trimmed> retain_context(const RetentionPolicy& policy, const RetentionNow& now,
                                               ContextReach reach);
  Result<int64_t> context_cut(int64_t boot, const RetentionPolicy& policy, const RetentionNow& now, ContextReach reach);
  Result<int64_t> budget_bytes_used(int64_t wal_allowance_bytes);
  // apply_retention's steps (retention.cpp).
  Status retention_transaction(const RetentionPolicy& policy, const RetentionNow& now, RetentionStep& step,
                               bool& context_more);
  void settle_budget(const RetentionPolicy& policy, bool was_shrinking, bool context_more, RetentionStep& step);

  sql::Db* db_;
  const std::string& path_;  // the Store's
  StoreReadings& readings_;
  StoreContext& context_;
  bool shrinking_ = false;       // over the disk budget: retention shortens tiers until 90% of it
  bool raw_batch_open_ = false;  // a batch of aged raw chunks is being downsampled (raw_batch_ns)
};

}  // namespace energy
