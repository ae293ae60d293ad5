// The Store across tiers: energy from the finest tier holding each edge,
// buckets of a tier, and the database's footprint.
#include "energy/store_tiers.h"

#include <sys/stat.h>

#include <algorithm>

#include "sqlite.h"
#include "tier_rows.h"

namespace energy {
namespace {

int64_t file_size_or_zero(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}

std::optional<int64_t> optional_int(const sql::Stmt& st, int col) {
  return st.null_at(col) ? std::optional<int64_t>() : std::optional<int64_t>(st.int_at(col));
}

// Rows, payload bytes and wall-clock span of a tier from one aggregate query.
Result<TierFootprint> tier_footprint(sql::Db& db, Tier tier, const std::string& sql) {
  auto st = db.prepare(sql);
  if (!st) return st.take_error();
  if (tier != Tier::kRaw) st->bind(1, static_cast<int64_t>(tier));
  auto r = st->step();
  if (!r) return r.take_error();
  return TierFootprint{tier, st->int_at(0), st->int_at(1), optional_int(*st, 2), optional_int(*st, 3)};
}

}  // namespace

Result<std::optional<EnergyAnswer>> StoreReadings::running_energy_any(int64_t boot, int64_t rail_id, int64_t t_ns) {
  auto raw = running_energy_at(boot, rail_id, t_ns);
  if (!raw) return raw.take_error();
  if (raw->has_value()) {
    EnergyAnswer e{(*raw)->cum_uj, 0, Tier::kRaw};
    e.end_power_uw = (*raw)->power_uw;
    return std::optional<EnergyAnswer>(e);
  }
  TierRows rows(*db_);
  for (Tier tier : {Tier::kSecond, Tier::kMinute}) {
    auto r = rows.running_energy(tier, boot, rail_id, t_ns);
    if (!r || r->has_value()) return r;
  }
  return std::optional<EnergyAnswer>();
}

Result<std::optional<EnergyAnswer>> StoreReadings::energy(int64_t boot, int64_t rail_id, EnergyWindow w) {
  auto live = refresh_live();
  if (!live) return live.take_error();
  auto a = running_energy_any(boot, rail_id, w.begin_ns);
  if (!a) return a.take_error();
  auto b = running_energy_any(boot, rail_id, w.end_ns);
  if (!b) return b.take_error();
  if (!a->has_value() || !b->has_value()) return std::optional<EnergyAnswer>();
  // A point's answer carries its power in end_power_uw.
  EnergyAnswer e{(*b)->energy_uj - (*a)->energy_uj, (*a)->error_bound_uj + (*b)->error_bound_uj,
                 std::max((*a)->tier, (*b)->tier)};
  e.begin_power_uw = (*a)->end_power_uw;
  e.end_power_uw = (*b)->end_power_uw;
  e.edge_spread_uw = (*a)->edge_spread_uw + (*b)->edge_spread_uw;
  return std::optional<EnergyAnswer>(e);
}

Result<std::vector<Bucket>> StoreTiers::rail_buckets(int64_t boot, int64_t rail_id, Tier tier, EnergyWindow w) {
  if (tier == Tier::kRaw) return make_error(ErrorCode::kInvalid, "the raw tier has readings, not buckets");
  return TierRows(*db_).buckets(tier, boot, rail_id, w);
}

namespace {

void append_range(std::vector<Bucket>& out, const std::vector<Bucket>& in, int64_t from_ns, int64_t until_ns) {
  for (const auto& b : in) {
    if (b.start_ns >= from_ns && b.start_ns < until_ns) out.push_back(b);
  }
}

int64_t first_valid_ns(const std::vector<PowerPoint>& pts) {
  for (const auto& p : pts) {
    if (p.valid) return p.t_ns;
  }
  return INT64_MAX;
}

}  // namespace

// Tier boundaries: the 1 min tier reaches the minute holding the first 1 s
// row's start, the 1 s tier the second after the first raw reading
// (retention.cpp), so each stretch is taken from exactly one tier.
Result<StoreTiers::RailHistory> StoreTiers::rail_history(int64_t boot, int64_t rail_id, EnergyWindow w) {
  const int64_t sec = tier_width_ns(Tier::kSecond), min = tier_width_ns(Tier::kMinute);
  auto pts = readings_.rail_points(boot, rail_id, w);
  if (!pts) return pts.take_error();
  auto sec_from = TierRows(*db_).first_start(Tier::kSecond, boot, rail_id);
  if (!sec_from) return sec_from.take_error();
  RailHistory h;
  int64_t raw_from = first_valid_ns(*pts);
  if (raw_from <= w.begin_ns) return h;  // all raw
  int64_t raw_edge = raw_from == INT64_MAX ? INT64_MAX : floor_to(raw_from, sec) + sec;
  int64_t min_edge = sec_from->has_value() ? ceil_to(**sec_from, min) : raw_edge;
  int64_t lo = floor_to(w.begin_ns, min), hi = std::min(w.end_ns, raw_edge);
  auto minutes = rail_buckets(boot, rail_id, Tier::kMinute, {lo, std::min(hi, min_edge)});
  if (!minutes) return minutes.take_error();
  append_range(h.buckets, *minutes, lo, min_edge);
  auto seconds = rail_buckets(boot, rail_id, Tier::kSecond, {std::max(lo, min_edge), hi});
  if (!seconds) return seconds.take_error();
  append_range(h.buckets, *seconds, min_edge, raw_edge);
  h.raw_from_ns = raw_edge;
  h.coarsest = !minutes->empty() ? Tier::kMinute : !seconds->empty() ? Tier::kSecond : Tier::kRaw;
  return h;
}

// Live pages plus the WAL's allowance: the WAL file goes back to the
// allowance (journal_size_limit) after each checkpoint, so counting its
// momentary size would make retention delete data to pay for a transient.
Result<int64_t> StoreTiers::budget_bytes_used(int64_t wal_allowance_bytes) {
  auto pages = db_->query_int("PRAGMA page_count");
  if (!pages) return pages.take_error();
  auto free_pages = db_->query_int("PRAGMA freelist_count");
  if (!free_pages) return free_pages.take_error();
  auto page_size = db_->query_int("PRAGMA page_size");
  if (!page_size) return page_size.take_error();
  const int64_t kept_free = std::min(*free_pages * *page_size, wal_allowance_bytes);
  return (*pages - *free_pages) * *page_size + kept_free + wal_allowance_bytes;
}

Result<StoreFootprint> StoreTiers::footprint() {
  StoreFootprint f;
  auto pages = db_->query_int("PRAGMA page_count");
  auto free_pages = db_->query_int("PRAGMA freelist_count");
  auto page_size = db_->query_int("PRAGMA page_size");
  if (!pages || !free_pages || !page_size) return db_->error("cannot read the database's page counts");
  f.file_bytes = *pages * *page_size;
  f.free_bytes = *free_pages * *page_size;
  f.wal_bytes = file_size_or_zero(path_ + "-wal");
  auto raw = tier_footprint(*db_, Tier::kRaw,
                            "SELECT count(*), coalesce(sum(length(times)), 0) + "
                            "(SELECT coalesce(sum(length(data)), 0) FROM rail_chunks), "
                            "min(t_first_ns + wall_offset_ns), max(t_last_ns + wall_offset_ns) FROM chunks");
  if (!raw) return raw.take_error();
  f.tiers.push_back(*raw);
  for (Tier tier : {Tier::kSecond, Tier::kMinute}) {
    auto t = tier_footprint(*db_, tier,
                            "SELECT count(*), coalesce(sum(length(data)), 0), min(t_first_ns + wall_offset_ns), "
                            "max(t_end_ns + wall_offset_ns) FROM tier_chunks WHERE tier = ?1");
    if (!t) return t.take_error();
    f.tiers.push_back(*t);
  }
  return f;
}

}  // namespace energy
