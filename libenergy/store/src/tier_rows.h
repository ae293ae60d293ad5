// TierRows: the downsampled tiers' table (tier_chunks), internal to the Store.
//
// A row holds up to kRowBuckets consecutive buckets of one rail, one boot and
// one tier, encoded by encode_buckets, with the rail's running energy at the
// row's start and end. A tier's rows of one (boot, rail) are contiguous: a
// new row starts where the previous one ends (its t_end_ns, the tier's
// watermark), so any instant between the first row's start and the last
// row's end is answered by exactly one row.
//
// Thread-safety: the Store's thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "energy/store.h"
#include "energy/tiers.h"
#include "sqlite.h"

namespace energy {

struct TierRow {
  int64_t id = 0;
  Tier tier = Tier::kSecond;
  int64_t boot = 0;
  int64_t rail = 0;
  int64_t t_first_ns = 0;
  int64_t t_end_ns = 0;
  int64_t buckets = 0;
  int64_t wall_offset_ns = 0;
  double first_cum_uj = 0;
  double last_cum_uj = 0;
  std::optional<PowerPoint> last_reading;  // 1 s rows: the last valid raw reading integrated
  std::string data;
};

// New buckets for [begin, end) of a rail, continuing the tier at its watermark.
struct TierAppend {
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  double cum_begin_uj = 0;
  std::vector<Bucket> buckets;
  int64_t wall_offset_ns = 0;
  std::optional<PowerPoint> last_reading;
};

class TierRows {
 public:
  static constexpr int64_t kRowBuckets = 600;  // 10 min of 1 s buckets, 10 h of 1 min buckets

  explicit TierRows(sql::Db& db) : db_(db) {}

  // The row of (tier, boot, rail) starting at or before t (INT64_MAX: the last one).
  Result<std::optional<TierRow>> at_or_before(Tier tier, int64_t boot, int64_t rail, int64_t t_ns);
  // Where the tier's rows of (boot, rail) begin, or nullopt without rows.
  Result<std::optional<int64_t>> first_start(Tier tier, int64_t boot, int64_t rail);
  Status append(Tier tier, int64_t boot, int64_t rail, const TierAppend& a);
  Result<std::vector<Bucket>> buckets(Tier tier, int64_t boot, int64_t rail, EnergyWindow w);
  // The oldest rows of a tier, all rails: by boot, then start time.
  Result<std::vector<TierRow>> oldest(Tier tier, int64_t limit);
  Status remove(int64_t row_id);
  // The running energy at t from this tier, with its error bound; nullopt
  // when t is outside the tier's rows.
  Result<std::optional<EnergyAnswer>> running_energy(Tier tier, int64_t boot, int64_t rail, int64_t t_ns);

 private:
  Status insert(Tier tier, int64_t boot, int64_t rail, const TierAppend& a);
  Status extend(const TierRow& row, const TierAppend& a);

  sql::Db& db_;
};

}  // namespace energy
