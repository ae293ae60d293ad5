#include "tier_rows.h"

#include <algorithm>

namespace energy {
namespace {

constexpr const char* kRowColumns =
    "SELECT id, tier, boot, rail, t_first_ns, t_end_ns, buckets, wall_offset_ns, first_cum_uj, last_cum_uj, "
    "last_t_ns, last_uw, data FROM tier_chunks ";

TierRow row_from(const sql::Stmt& st) {
  TierRow r;
  r.id = st.int_at(0);
  r.tier = static_cast<Tier>(st.int_at(1));
  r.boot = st.int_at(2);
  r.rail = st.int_at(3);
  r.t_first_ns = st.int_at(4);
  r.t_end_ns = st.int_at(5);
  r.buckets = st.int_at(6);
  r.wall_offset_ns = st.int_at(7);
  r.first_cum_uj = st.double_at(8);
  r.last_cum_uj = st.double_at(9);
  if (!st.null_at(10)) r.last_reading = PowerPoint{st.int_at(10), st.int_at(11), true};
  r.data = st.blob_at(12);
  return r;
}

Result<std::vector<TierRow>> collect(sql::Stmt& st) {
  std::vector<TierRow> out;
  auto rows = sql::for_each_row(st, [&] { out.push_back(row_from(st)); });
  if (!rows) return rows.take_error();
  return out;
}

void bind_last_reading(sql::Stmt& st, int index, const std::optional<PowerPoint>& p) {
  if (!p) {
    st.bind_null(index).bind_null(index + 1);
    return;
  }
  st.bind(index, p->t_ns).bind(index + 1, p->power_uw);
}

Result<std::vector<Bucket>> decode_row(const TierRow& row) {
  return decode_buckets(row.data, row.t_first_ns, tier_width_ns(row.tier), row.first_cum_uj);
}

// The running energy at the end of the appended range.
double cum_end_of(const TierAppend& a, const std::vector<Bucket>& chained) {
  return chained.empty() ? a.cum_begin_uj : chained.back().cum_end_uj;
}

}  // namespace

Result<std::optional<TierRow>> TierRows::at_or_before(Tier tier, int64_t boot, int64_t rail, int64_t t_ns) {
  auto st = db_.prepare(std::string(kRowColumns) +
                        "WHERE tier = ?1 AND boot = ?2 AND rail = ?3 AND t_first_ns <= ?4 "
                        "ORDER BY t_first_ns DESC LIMIT 1");
  if (!st) return st.take_error();
  st->bind(1, static_cast<int64_t>(tier)).bind(2, boot).bind(3, rail).bind(4, t_ns);
  auto rows = collect(*st);
  if (!rows) return rows.take_error();
  if (rows->empty()) return std::optional<TierRow>();
  return std::optional<TierRow>(std::move(rows->front()));
}

Result<std::optional<int64_t>> TierRows::first_start(Tier tier, int64_t boot, int64_t rail) {
  auto st = db_.prepare("SELECT min(t_first_ns) FROM tier_chunks WHERE tier = ?1 AND boot = ?2 AND rail = ?3");
  if (!st) return st.take_error();
  auto r = st->bind(1, static_cast<int64_t>(tier)).bind(2, boot).bind(3, rail).step();
  if (!r) return r.take_error();
  if (*r != sql::StepResult::kRow || st->null_at(0)) return std::optional<int64_t>();
  return std::optional<int64_t>(st->int_at(0));
}

// Buckets continue the last row when it ends where they begin and has room;
// otherwise they start a new row there.
Status TierRows::append(Tier tier, int64_t boot, int64_t rail, const TierAppend& a) {
  auto last = at_or_before(tier, boot, rail, INT64_MAX);
  if (!last) return last.take_error();
  if (!last->has_value() && a.buckets.empty()) return ok_status();  // nothing measured, nothing to continue
  const auto& row = *last;
  bool fits =
      row && row->t_end_ns == a.begin_ns && row->buckets + static_cast<int64_t>(a.buckets.size()) <= kRowBuckets;
  return fits ? extend(*row, a) : insert(tier, boot, rail, a);
}

Status TierRows::insert(Tier tier, int64_t boot, int64_t rail, const TierAppend& a) {
  std::vector<Bucket> chained = a.buckets;
  chain_running_energy(chained, a.cum_begin_uj);
  int64_t width = tier_width_ns(tier);
  auto st = db_.prepare(
      "INSERT INTO tier_chunks(tier, boot, rail, t_first_ns, t_end_ns, buckets, wall_offset_ns, first_cum_uj, "
      "last_cum_uj, last_t_ns, last_uw, data) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
  if (!st) return st.take_error();
  st->bind(1, static_cast<int64_t>(tier)).bind(2, boot).bind(3, rail).bind(4, a.begin_ns).bind(5, a.end_ns);
  st->bind(6, static_cast<int64_t>(chained.size())).bind(7, a.wall_offset_ns).bind(8, a.cum_begin_uj);
  st->bind(9, cum_end_of(a, chained));
  bind_last_reading(*st, 10, a.last_reading);
  st->bind_blob(12, encode_buckets(chained, a.begin_ns, width, a.cum_begin_uj));
  return st->run();
}

Status TierRows::extend(const TierRow& row, const TierAppend& a) {
  auto old = decode_row(row);
  if (!old) return old.take_error();
  std::vector<Bucket> added = a.buckets;
  chain_running_energy(added, a.cum_begin_uj);
  double cum_end = cum_end_of(a, added);
  old->insert(old->end(), added.begin(), added.end());
  auto st = db_.prepare(
      "UPDATE tier_chunks SET t_end_ns = ?2, buckets = ?3, last_cum_uj = ?4, last_t_ns = ?5, last_uw = ?6, "
      "data = ?7 WHERE id = ?1");
  if (!st) return st.take_error();
  st->bind(1, row.id).bind(2, a.end_ns).bind(3, static_cast<int64_t>(old->size())).bind(4, cum_end);
  bind_last_reading(*st, 5, a.last_reading ? a.last_reading : row.last_reading);
  st->bind_blob(7, encode_buckets(*old, row.t_first_ns, tier_width_ns(row.tier), row.first_cum_uj));
  return st->run();
}

Result<std::vector<Bucket>> TierRows::buckets(Tier tier, int64_t boot, int64_t rail, EnergyWindow w) {
  auto first = at_or_before(tier, boot, rail, w.begin_ns);
  if (!first) return first.take_error();
  int64_t from = first->has_value() ? (*first)->t_first_ns : w.begin_ns;
  auto st = db_.prepare(std::string(kRowColumns) +
                        "WHERE tier = ?1 AND boot = ?2 AND rail = ?3 AND t_first_ns >= ?4 AND t_first_ns < ?5 "
                        "ORDER BY t_first_ns");
  if (!st) return st.take_error();
  st->bind(1, static_cast<int64_t>(tier)).bind(2, boot).bind(3, rail).bind(4, from).bind(5, w.end_ns);
  auto rows = collect(*st);
  if (!rows) return rows.take_error();
  std::vector<Bucket> out;
  for (const auto& row : *rows) {
    auto bs = decode_row(row);
    if (!bs) return bs.take_error();
    for (const auto& b : *bs) {
      if (b.start_ns >= w.begin_ns && b.start_ns < w.end_ns) out.push_back(b);
    }
  }
  return out;
}

Result<std::vector<TierRow>> TierRows::oldest(Tier tier, int64_t limit) {
  auto st = db_.prepare(std::string(kRowColumns) + "WHERE tier = ?1 ORDER BY boot, t_first_ns LIMIT ?2");
  if (!st) return st.take_error();
  st->bind(1, static_cast<int64_t>(tier)).bind(2, limit);
  return collect(*st);
}

Status TierRows::remove(int64_t row_id) {
  auto st = db_.prepare("DELETE FROM tier_chunks WHERE id = ?1");
  if (!st) return st.take_error();
  return st->bind(1, row_id).run();
}

// Whole buckets before t are exact (to the rounding of the running energy); the bucket
// holding t contributes its even-spread share with partial_energy's bound.
Result<std::optional<EnergyAnswer>> TierRows::running_energy(Tier tier, int64_t boot, int64_t rail, int64_t t_ns) {
  auto row = at_or_before(tier, boot, rail, t_ns);
  if (!row) return row.take_error();
  if (!row->has_value() || t_ns > (*row)->t_end_ns) return std::optional<EnergyAnswer>();
  auto bs = decode_row(**row);
  if (!bs) return bs.take_error();
  double cum = (*row)->first_cum_uj;
  // The power at t: the mean of the bucket holding it (or ending at it).
  auto with_power = [](EnergyAnswer e, const Bucket* b) {
    if (b != nullptr && b->integrated_ns > 0) {
      e.end_power_uw = b->energy_uj * 1e9 / static_cast<double>(b->integrated_ns);
      e.edge_spread_uw = static_cast<double>(b->max_power_uw - b->min_power_uw);
    }
    return std::optional<EnergyAnswer>(e);
  };
  const Bucket* last = nullptr;
  for (const auto& b : *bs) {
    if (b.start_ns > t_ns) break;
    if (b.end_ns() <= t_ns) {
      cum = b.cum_end_uj;
      last = &b;
      continue;
    }
    PartialEnergy p = partial_energy(b, t_ns);
    return with_power(EnergyAnswer{cum + p.energy_uj, std::max(p.bound_uj, kTierRoundingUj), tier}, &b);
  }
  return with_power(EnergyAnswer{cum, kTierRoundingUj, tier}, last);
}

}  // namespace energy
