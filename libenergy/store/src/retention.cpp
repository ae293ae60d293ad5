// Retention: moves history down the tiers and keeps the database within its
// disk budget, a few rows per transaction (see StoreTiers::apply_retention).
//
// Raw -> 1 s: a chunk's readings become the buckets from the rail's 1 s
// watermark up to the bucket holding the rail's next valid reading (in a
// later chunk, still raw), so that once the chunk is deleted every instant
// is still answered by one tier and the running energy is continuous. The
// last valid reading integrated is kept with the row: it bridges the next
// step when a rail's readings failed for a while.
// 1 s -> 1 min: the same with 1 s rows, up to the minute holding the row's end.
// Board context rows (store_context.cpp) age out with the 1 s tier: before
// where a boot's 1 s and raw history starts, only each source's newest row
// is kept, so the state there stays known.
#include <algorithm>

#include "energy/store_tiers.h"
#include "sqlite.h"
#include "tier_rows.h"

namespace energy {

struct RawChunkRef {
  int64_t id = 0;
  int64_t boot = 0;
  int64_t t_first_ns = 0;
  int64_t t_last_ns = 0;
  int64_t wall_offset_ns = 0;
};

// Why a pass may take a row: it is old, or the database is over budget.
enum class Pass { kAge, kBudget };

class Retention {
 public:
  Retention(StoreTiers& tiers, const RetentionPolicy& policy, const RetentionNow& now)
      : tiers_(tiers), db_(*tiers.db_), rows_(db_), policy_(policy), now_(now) {}

  Status run(RetentionStep& step);

 private:
  Result<int64_t> raw_pass(Pass pass, int64_t limit);
  Result<int64_t> second_pass(Pass pass, int64_t limit);
  Result<int64_t> minute_pass(Pass pass, int64_t limit);
  Result<std::vector<RawChunkRef>> oldest_chunks(int64_t limit);
  Result<bool> raw_protected(const RawChunkRef& c);
  Result<bool> newest_second_row_of_current_boot(const TierRow& row);
  Status downsample_chunk(const RawChunkRef& c);
  Status downsample_chunk_rail(const RawChunkRef& c, int64_t rail, const RailCursor& first, const RailCursor& last);
  Status downsample_second_row(const TierRow& row);
  int64_t age_ns(int64_t boot, int64_t t_ns, int64_t wall_offset_ns) const;
  bool old_enough(int64_t age, int64_t retention_ns, Pass pass) const {
    return pass == Pass::kBudget || (retention_ns > 0 && age > retention_ns);
  }

  StoreTiers& tiers_;
  sql::Db& db_;
  TierRows rows_;
  const RetentionPolicy& policy_;
  RetentionNow now_;
  std::optional<int64_t> newest_chunk_ns_;  // t_first of the current boot's newest chunk
};

int64_t Retention::age_ns(int64_t boot, int64_t t_ns, int64_t wall_offset_ns) const {
  if (boot == now_.boot) return now_.boot_ns - t_ns;
  return now_.wall_ns - (t_ns + wall_offset_ns);
}

Result<std::vector<RawChunkRef>> Retention::oldest_chunks(int64_t limit) {
  auto st = db_.prepare(
      "SELECT id, boot, t_first_ns, t_last_ns, wall_offset_ns FROM chunks "
      "ORDER BY boot, t_first_ns LIMIT ?1");
  if (!st) return st.take_error();
  st->bind(1, limit);
  std::vector<RawChunkRef> out;
  auto rows = sql::for_each_row(*st, [&] {
    out.push_back(RawChunkRef{st->int_at(0), st->int_at(1), st->int_at(2), st->int_at(3), st->int_at(4)});
  });
  if (!rows) return rows.take_error();
  return out;
}

// The current boot's newest chunk (being written) and its recent minutes stay raw.
Result<bool> Retention::raw_protected(const RawChunkRef& c) {
  if (c.boot != now_.boot) return false;
  if (!newest_chunk_ns_) {
    auto newest = db_.query_int("SELECT max(t_first_ns) FROM chunks WHERE boot = " + std::to_string(now_.boot));
    if (!newest) return newest.take_error();
    newest_chunk_ns_ = *newest;
  }
  return c.t_first_ns >= *newest_chunk_ns_ || c.t_last_ns > now_.boot_ns - policy_.protect_recent_ns;
}

// By age, chunks go in batches (RetentionPolicy::raw_batch_ns): a batch
// opens when the oldest chunk is raw_batch_ns past the retention and takes,
// over as many steps as it needs, every chunk past the retention.
Result<int64_t> Retention::raw_pass(Pass pass, int64_t limit) {
  auto chunks = oldest_chunks(limit);
  if (!chunks) return chunks.take_error();
  const bool batched = pass == Pass::kAge && policy_.raw_batch_ns > 0;
  if (batched && !tiers_.raw_batch_open_ && !chunks->empty()) {
    const RawChunkRef& oldest = chunks->front();
    auto prot = raw_protected(oldest);
    if (!prot) return prot.take_error();
    const int64_t age = age_ns(oldest.boot, oldest.t_last_ns, oldest.wall_offset_ns);
    tiers_.raw_batch_open_ =
        !*prot && policy_.raw_retention_ns > 0 && age > policy_.raw_retention_ns + policy_.raw_batch_ns;
  }
  if (batched && !tiers_.raw_batch_open_) return int64_t{0};
  int64_t done = 0;
  for (const auto& c : *chunks) {
    auto prot = raw_protected(c);
    if (!prot) return prot.take_error();
    if (*prot || !old_enough(age_ns(c.boot, c.t_last_ns, c.wall_offset_ns), policy_.raw_retention_ns, pass)) break;
    auto st = downsample_chunk(c);
    if (!st) return st.take_error();
    ++done;
  }
  // The batch ends with the last chunk past the retention.
  if (batched && done < limit) tiers_.raw_batch_open_ = false;
  return done;
}

Status Retention::downsample_chunk(const RawChunkRef& c) {
  auto st = db_.prepare(
      "SELECT rail, first_t_ns, first_uw, first_cum_uj, last_t_ns, last_uw, last_cum_uj "
      "FROM rail_chunks WHERE chunk = ?1 ORDER BY rail");
  if (!st) return st.take_error();
  st->bind(1, c.id);
  auto rows = sql::for_each_row(*st, [&] {
    RailCursor first = st->null_at(1) ? RailCursor{} : RailCursor{true, st->int_at(1), st->int_at(2), st->double_at(3)};
    RailCursor last = st->null_at(4) ? RailCursor{} : RailCursor{true, st->int_at(4), st->int_at(5), st->double_at(6)};
    return downsample_chunk_rail(c, st->int_at(0), first, last);
  });
  if (!rows) return rows;
  auto del = db_.exec("DELETE FROM rail_chunks WHERE chunk = " + std::to_string(c.id) +
                      "; DELETE FROM chunks WHERE id = " + std::to_string(c.id));
  return del;
}

namespace {

// The last valid reading at or before t: it bridges to the next step.
std::optional<PowerPoint> last_valid_until(const std::vector<PowerPoint>& pts, int64_t t_ns) {
  for (auto it = pts.rbegin(); it != pts.rend(); ++it) {
    if (it->valid && it->t_ns <= t_ns) return *it;
  }
  return std::nullopt;
}

}  // namespace

Status Retention::downsample_chunk_rail(const RawChunkRef& c, int64_t rail, const RailCursor& first,
                                        const RailCursor& last) {
  const int64_t width = tier_width_ns(Tier::kSecond);
  auto wm = rows_.at_or_before(Tier::kSecond, c.boot, rail, INT64_MAX);
  if (!wm) return wm.take_error();
  if (!wm->has_value() && !first.has_last) return ok_status();  // nothing measured yet
  int64_t begin = wm->has_value() ? (*wm)->t_end_ns : floor_to(first.last_t_ns, width);
  auto next = tiers_.readings_.cursor_after(c.boot, rail, c.t_last_ns + 1);
  if (!next) return next.take_error();
  int64_t until = next->has_value() ? (*next)->last_t_ns : (last.has_last ? last.last_t_ns : c.t_last_ns);
  int64_t end = floor_to(until, width) + width;
  if (end <= begin) return ok_status();
  auto pts = tiers_.readings_.rail_points(c.boot, rail, {begin, end});
  if (!pts) return pts.take_error();
  const auto* bridge = wm->has_value() && (*wm)->last_reading ? &*(*wm)->last_reading : nullptr;
  if (bridge != nullptr && (pts->empty() || pts->front().t_ns > bridge->t_ns)) pts->insert(pts->begin(), *bridge);
  TierAppend a;
  a.begin_ns = begin;
  a.end_ns = end;
  a.cum_begin_uj = wm->has_value() ? (*wm)->last_cum_uj : first.cum_uj;
  a.buckets = bucketize(*pts, begin, end, width);
  a.wall_offset_ns = c.wall_offset_ns;
  a.last_reading = last_valid_until(*pts, end);
  return rows_.append(Tier::kSecond, c.boot, rail, a);
}

// A rail's newest 1 s row of the current boot is still being extended.
Result<bool> Retention::newest_second_row_of_current_boot(const TierRow& row) {
  if (row.boot != now_.boot) return false;
  auto newest = rows_.at_or_before(Tier::kSecond, row.boot, row.rail, INT64_MAX);
  if (!newest) return newest.take_error();
  return newest->has_value() && (*newest)->id == row.id;
}

Result<int64_t> Retention::second_pass(Pass pass, int64_t limit) {
  auto rows = rows_.oldest(Tier::kSecond, limit * 2 + 16);  // room to skip rails' newest rows
  if (!rows) return rows.take_error();
  int64_t done = 0;
  for (const auto& row : *rows) {
    if (done >= limit) break;
    auto newest = newest_second_row_of_current_boot(row);
    if (!newest) return newest.take_error();
    if (*newest) continue;
    if (!old_enough(age_ns(row.boot, row.t_end_ns, row.wall_offset_ns), policy_.second_retention_ns, pass)) break;
    auto st = downsample_second_row(row);
    if (!st) return st.take_error();
    ++done;
  }
  return done;
}

Status Retention::downsample_second_row(const TierRow& row) {
  const int64_t width = tier_width_ns(Tier::kMinute);
  auto wm = rows_.at_or_before(Tier::kMinute, row.boot, row.rail, INT64_MAX);
  if (!wm) return wm.take_error();
  int64_t begin = wm->has_value() ? (*wm)->t_end_ns : floor_to(row.t_first_ns, width);
  int64_t end = ceil_to(row.t_end_ns, width);
  if (end > begin) {
    auto seconds = rows_.buckets(Tier::kSecond, row.boot, row.rail, {begin, end});
    if (!seconds) return seconds.take_error();
    TierAppend a;
    a.begin_ns = begin;
    a.end_ns = end;
    a.cum_begin_uj = wm->has_value() ? (*wm)->last_cum_uj : row.first_cum_uj;
    a.buckets = aggregate(*seconds, begin, end, width);
    a.wall_offset_ns = row.wall_offset_ns;
    auto st = rows_.append(Tier::kMinute, row.boot, row.rail, a);
    if (!st) return st;
  }
  return rows_.remove(row.id);
}

Result<int64_t> Retention::minute_pass(Pass pass, int64_t limit) {
  if (pass == Pass::kAge && policy_.minute_retention_ns == 0) return int64_t{0};
  auto rows = rows_.oldest(Tier::kMinute, limit);
  if (!rows) return rows.take_error();
  int64_t done = 0;
  for (const auto& row : *rows) {
    if (!old_enough(age_ns(row.boot, row.t_end_ns, row.wall_offset_ns), policy_.minute_retention_ns, pass)) break;
    auto st = rows_.remove(row.id);
    if (!st) return st.take_error();
    ++done;
  }
  return done;
}

// Age first (every tier), then, if nothing was old and the budget is
// exceeded, board context older than the raw readings, then the finest tier
// that still has something to give.
Status Retention::run(RetentionStep& s) {
  const int64_t k = std::max(1, policy_.max_units_per_step);
  auto raw = raw_pass(Pass::kAge, k);
  if (!raw) return raw.take_error();
  s.raw_chunks_downsampled = *raw;
  auto sec = second_pass(Pass::kAge, k - s.units());
  if (!sec) return sec.take_error();
  s.second_rows_downsampled = *sec;
  auto min = minute_pass(Pass::kAge, k - s.units());
  if (!min) return min.take_error();
  s.minute_rows_deleted = *min;
  if (s.units() > 0 || !tiers_.shrinking_) return ok_status();
  // Over budget: board context beyond the raw readings' reach goes before any reading is downsampled.
  auto ctx = tiers_.retain_context(policy_, now_, StoreTiers::ContextReach::kRawTier);
  if (!ctx) return ctx.take_error();
  s.context_rows_deleted = ctx->rows_deleted;
  if (ctx->rows_deleted > 0) return ok_status();
  if (!(raw = raw_pass(Pass::kBudget, k))) return raw.take_error();
  s.raw_chunks_downsampled = *raw;
  if (s.units() > 0) return ok_status();
  if (!(sec = second_pass(Pass::kBudget, k))) return sec.take_error();
  s.second_rows_downsampled = *sec;
  if (s.units() > 0) return ok_status();
  if (!(min = minute_pass(Pass::kBudget, k))) return min.take_error();
  s.minute_rows_deleted = *min;
  return ok_status();
}

namespace {

constexpr int64_t kMaxWalAllowanceBytes = int64_t{4} * 1024 * 1024;

int64_t wal_allowance(const RetentionPolicy& p) {
  return p.disk_budget_bytes > 0 ? std::min(kMaxWalAllowanceBytes, p.disk_budget_bytes / 16) : kMaxWalAllowanceBytes;
}

}  // namespace

// One pass's rows, in one transaction: the tiers (Retention::run), then
// board context, which goes with the 1 s tier and is looked at once the
// tiers' work fits in a step (so once per pass, plus the steps it needs).
// Rolled back on any failure.
// Where a boot's context stops being kept: where its 1 s (or raw) history
// starts (kRawTier: its raw readings). A boot with none left keeps only
// each source's last row; the current boot with no history at all (no
// rails) ages by the 1 s retention.
Result<int64_t> StoreTiers::context_cut(int64_t boot, const RetentionPolicy& policy, const RetentionNow& now,
                                        ContextReach reach) {
  const std::string b = std::to_string(boot);
  auto raw = db_->query_int("SELECT min(t_first_ns) FROM chunks WHERE boot = " + b, INT64_MAX);
  if (!raw) return raw.take_error();
  auto second = db_->query_int("SELECT min(t_first_ns) FROM tier_chunks WHERE tier = 1 AND boot = " + b, INT64_MAX);
  if (!second) return second.take_error();
  int64_t history = std::min(*raw, *second);
  int64_t cut = reach == ContextReach::kRawTier ? *raw : history;
  if (history != INT64_MAX || boot != now.boot) return cut;
  return now.boot_ns - policy.second_retention_ns;
}

Result<StoreContext::Trimmed> StoreTiers::retain_context(const RetentionPolicy& policy, const RetentionNow& now,
                                                         ContextReach reach) {
  return context_.trim([&](int64_t boot) { return context_cut(boot, policy, now, reach); },
                       policy.max_context_rows_per_step);
}

Status StoreTiers::retention_transaction(const RetentionPolicy& policy, const RetentionNow& now, RetentionStep& step,
                                         bool& context_more) {
  const int64_t changes_before = sqlite3_total_changes(db_->raw());
  auto st = db_->exec("BEGIN");
  if (!st) return st;
  st = Retention(*this, policy, now).run(step);
  if (st && step.units() < policy.max_units_per_step && step.context_rows_deleted == 0) {
    auto ctx = retain_context(policy, now, ContextReach::kSecondTier);
    if (ctx) {
      step.context_rows_deleted = ctx->rows_deleted;
      context_more = ctx->more;
    } else {
      st = ctx.take_error();
    }
  }
  auto free_pages = st ? db_->query_int("PRAGMA freelist_count") : Result<int64_t>(int64_t{0});
  if (!free_pages) st = free_pages.take_error();
  // Freed pages go back to the file system, unless the policy keeps them
  // for the chunks written next (keep_free_pages: up to the WAL's allowance,
  // which budget_bytes_used counts, and not while shrinking for the budget).
  // The page size is read only for that policy.
  bool give_back = st && *free_pages > 0;
  if (give_back && policy.keep_free_pages && !shrinking_) {
    auto page_size = db_->query_int("PRAGMA page_size");
    if (!page_size) st = page_size.take_error();
    give_back = st && *free_pages * *page_size > wal_allowance(policy);
  }
  // A pass with nothing to do writes nothing (a commit would still put a
  // page or two through the WAL every retention_interval: issue 16).
  if (st && !give_back && sqlite3_total_changes(db_->raw()) == changes_before) return db_->exec("ROLLBACK");
  if (give_back) st = db_->exec("PRAGMA incremental_vacuum");
  if (st) st = db_->exec("COMMIT");
  if (st) return st;
  (void)db_->exec("ROLLBACK");
  return make_error(st.error().code, "retention step failed: " + st.error().describe());
}

// After a pass: whether the store keeps shrinking toward 90 % of the budget,
// whether the budget cannot be met, and whether another step is due.
void StoreTiers::settle_budget(const RetentionPolicy& policy, bool was_shrinking, bool context_more,
                               RetentionStep& step) {
  const int64_t budget = policy.disk_budget_bytes;
  const int64_t used = step.budget_bytes_used;
  // Moving rows down a tier can briefly take more pages than it frees; the
  // next step then works for the budget.
  if (budget > 0 && used > budget) shrinking_ = true;
  bool exhausted = was_shrinking && step.units() == 0 && step.context_rows_deleted == 0;
  step.over_budget = exhausted && used > budget;
  if (exhausted || used <= budget / 10 * 9) shrinking_ = false;
  step.more = step.units() >= policy.max_units_per_step || shrinking_ || context_more;
}

int retention_units_per_step(size_t rails) {
  constexpr size_t kRailChunks = 96, kFewest = 8, kMost = 32;
  return static_cast<int>(std::clamp(kRailChunks / std::max<size_t>(rails, 1), kFewest, kMost));
}

Result<RetentionStep> StoreTiers::apply_retention(const RetentionPolicy& policy, const RetentionNow& now) {
  const int64_t allowance = wal_allowance(policy);
  auto limit = db_->exec("PRAGMA journal_size_limit=" + std::to_string(allowance));
  if (!limit) return limit.take_error();
  auto used = budget_bytes_used(allowance);
  if (!used) return used.take_error();
  if (policy.disk_budget_bytes > 0 && *used > policy.disk_budget_bytes) shrinking_ = true;
  if (policy.disk_budget_bytes == 0) shrinking_ = false;
  const bool was_shrinking = shrinking_;
  RetentionStep step;
  bool context_more = false;
  auto st = retention_transaction(policy, now, step, context_more);
  if (!st) return st.take_error();
  if (!(used = budget_bytes_used(allowance))) return used.take_error();
  step.budget_bytes_used = *used;
  settle_budget(policy, was_shrinking, context_more, step);
  return step;
}

}  // namespace energy
