// The board context change log (context.h) in the Store: sources, rows,
// windows for run reports, the end of an earlier daemon's polling, and
// retention with the 1 s tier.
#include "energy/store_context.h"

#include <algorithm>

#include "sqlite.h"

namespace energy {
namespace {

struct SourceRef {
  int64_t id = 0;
  ContextKind kind = ContextKind::kClock;
  std::string name;
};

Result<std::vector<SourceRef>> all_sources(sql::Db& db) {
  auto st = db.prepare("SELECT id, kind, name FROM context_sources ORDER BY kind, name");
  if (!st) return st.take_error();
  std::vector<SourceRef> out;
  auto rows = sql::for_each_row(*st, [&] {
    auto kind = parse_context_kind(st->text_at(1));
    if (kind) out.push_back(SourceRef{st->int_at(0), *kind, st->text_at(2)});  // kinds of a later version: skipped
  });
  if (!rows) return rows.take_error();
  return out;
}

ContextRow row_at(const sql::Stmt& st) {
  ContextRow r;
  r.t_ns = st.int_at(0);
  if (!st.null_at(1)) r.v.number = st.int_at(1);
  if (!st.null_at(2)) r.v.text = st.text_at(2);
  return r;
}

// The source's last row at or before t, if any.
Result<std::optional<ContextRow>> row_at_or_before(sql::Db& db, int64_t boot, int64_t source, int64_t t_ns) {
  auto st = db.prepare(
      "SELECT t_ns, value, text FROM context WHERE boot = ?1 AND source = ?2 AND t_ns <= ?3 "
      "ORDER BY t_ns DESC LIMIT 1");
  if (!st) return st.take_error();
  auto r = st->bind(1, boot).bind(2, source).bind(3, t_ns).step();
  if (!r) return r.take_error();
  if (*r == sql::StepResult::kDone) return std::optional<ContextRow>();
  return std::optional<ContextRow>(row_at(*st));
}

Status rows_after(sql::Db& db, int64_t boot, int64_t source, EnergyWindow w, ContextRowSink& sink) {
  auto st = db.prepare(
      "SELECT t_ns, value, text FROM context WHERE boot = ?1 AND source = ?2 AND t_ns > ?3 AND t_ns <= ?4 "
      "ORDER BY t_ns");
  if (!st) return st.take_error();
  st->bind(1, boot).bind(2, source).bind(3, w.begin_ns).bind(4, w.end_ns);
  return sql::for_each_row(*st, [&] { sink.row(row_at(*st)); });
}

// Collects the streamed rows into series.
class SeriesCollector final : public ContextRowSink {
 public:
  void source(ContextKind kind, const std::string& name) override { out.push_back(ContextSeries{kind, name, {}}); }
  void row(const ContextRow& r) override { out.back().rows.push_back(r); }
  std::vector<ContextSeries> out;
};

Status insert_row(sql::Db& db, int64_t boot, int64_t source, const ContextRow& row) {
  auto st = db.prepare("INSERT OR REPLACE INTO context(boot, source, t_ns, value, text) VALUES(?1, ?2, ?3, ?4, ?5)");
  if (!st) return st.take_error();
  st->bind(1, boot).bind(2, source).bind(3, row.t_ns);
  if (row.v.number)
    st->bind(4, *row.v.number);
  else
    st->bind_null(4);
  if (row.v.text)
    st->bind(5, *row.v.text);
  else
    st->bind_null(5);
  return st->run();
}

Result<std::vector<int64_t>> boot_ids(sql::Db& db) {
  auto st = db.prepare("SELECT id FROM boots ORDER BY id");
  if (!st) return st.take_error();
  std::vector<int64_t> out;
  auto rows = sql::for_each_row(*st, [&] { out.push_back(st->int_at(0)); });
  if (!rows) return rows.take_error();
  return out;
}

// Deletes the source's rows before `keep_t` (its newest row at or before the
// cut), at most `budget` of them, oldest first. Returns how many went.
Result<int64_t> delete_before(sql::Db& db, int64_t boot, int64_t source, int64_t keep_t, int64_t budget) {
  auto nth = db.prepare(
      "SELECT t_ns FROM context WHERE boot = ?1 AND source = ?2 AND t_ns < ?3 ORDER BY t_ns LIMIT 1 OFFSET ?4");
  if (!nth) return nth.take_error();
  auto r = nth->bind(1, boot).bind(2, source).bind(3, keep_t).bind(4, budget).step();
  if (!r) return r.take_error();
  int64_t until = *r == sql::StepResult::kRow ? nth->int_at(0) : keep_t;  // more than the budget: stop at the budget
  nth->reset();
  auto del = db.prepare("DELETE FROM context WHERE boot = ?1 AND source = ?2 AND t_ns < ?3");
  if (!del) return del.take_error();
  auto done = del->bind(1, boot).bind(2, source).bind(3, until).run();
  if (!done) return done.take_error();
  return static_cast<int64_t>(sqlite3_changes(db.raw()));
}

}  // namespace

Result<int64_t> StoreContext::ensure_source(ContextKind kind, const std::string& name) {
  auto ins = db_->prepare("INSERT OR IGNORE INTO context_sources(kind, name) VALUES(?1, ?2)");
  if (!ins) return ins.take_error();
  auto done = ins->bind(1, context_kind_name(kind)).bind(2, name).run();
  if (!done) return done.take_error();
  auto sel = db_->prepare("SELECT id FROM context_sources WHERE kind = ?1 AND name = ?2");
  if (!sel) return sel.take_error();
  auto r = sel->bind(1, context_kind_name(kind)).bind(2, name).step();
  if (!r) return r.take_error();
  return sel->int_at(0);
}

Status StoreContext::put_row(int64_t boot, int64_t source, const ContextRow& row) {
  return insert_row(*db_, boot, source, row);
}

Status StoreContext::scan(int64_t boot, EnergyWindow window, ContextRowSink& sink) {
  auto sources = all_sources(*db_);
  if (!sources) return sources.take_error();
  auto any = db_->prepare("SELECT 1 FROM context WHERE boot = ?1 AND source = ?2 LIMIT 1");
  if (!any) return any.take_error();
  for (const auto& s : *sources) {
    auto polled = any->bind(1, boot).bind(2, s.id).step();
    if (!polled) return polled.take_error();
    any->reset();
    if (*polled == sql::StepResult::kDone) continue;  // not a source of this boot
    sink.source(s.kind, s.name);
    auto first = row_at_or_before(*db_, boot, s.id, window.begin_ns);
    if (!first) return first.take_error();
    if (first->has_value()) sink.row(**first);
    auto st = rows_after(*db_, boot, s.id, window, sink);
    if (!st) return st;
  }
  return ok_status();
}

Result<std::vector<ContextSeries>> StoreContext::window(int64_t boot, EnergyWindow window) {
  SeriesCollector collect;
  auto st = scan(boot, window, collect);
  if (!st) return st.take_error();
  return std::move(collect.out);
}

Result<int64_t> StoreContext::close(int64_t boot, int64_t stopped_ns) {
  auto sources = all_sources(*db_);
  if (!sources) return sources.take_error();
  int64_t added = 0;
  for (const auto& s : *sources) {
    auto last = row_at_or_before(*db_, boot, s.id, INT64_MAX);
    if (!last) return last.take_error();
    if (!last->has_value() || (*last)->v == ContextValue::unknown()) continue;
    auto st =
        insert_row(*db_, boot, s.id, ContextRow{std::max(stopped_ns, (*last)->t_ns + 1), ContextValue::unknown()});
    if (!st) return st.take_error();
    ++added;
  }
  return added;
}

Result<bool> StoreContext::restart_between(int64_t boot, int64_t from_ns, int64_t to_ns) {
  auto sources = all_sources(*db_);
  if (!sources) return sources.take_error();
  auto unknown = db_->prepare(
      "SELECT 1 FROM context WHERE boot = ?1 AND source = ?2 AND t_ns BETWEEN ?3 AND ?4 "
      "AND value IS NULL AND text IS NULL LIMIT 1");
  if (!unknown) return unknown.take_error();
  size_t held = 0;
  for (const auto& s : *sources) {
    auto before = row_at_or_before(*db_, boot, s.id, from_ns);
    if (!before) return before.take_error();
    if (!before->has_value() || (*before)->v == ContextValue::unknown()) continue;
    ++held;
    unknown->reset();
    unknown->bind(1, boot).bind(2, s.id).bind(3, from_ns).bind(4, to_ns);
    auto r = unknown->step();
    if (!r) return r.take_error();
    if (*r != sql::StepResult::kRow) return false;
  }
  return held > 0;
}

Result<StoreContext::Trimmed> StoreContext::trim(const std::function<Result<int64_t>(int64_t boot)>& cut,
                                                 int64_t max_rows) {
  auto boots = boot_ids(*db_);
  if (!boots) return boots.take_error();
  auto sources = all_sources(*db_);
  if (!sources) return sources.take_error();
  Trimmed out;
  const int64_t budget = std::max<int64_t>(1, max_rows);
  for (int64_t boot : *boots) {
    auto until = cut(boot);
    if (!until) return until.take_error();
    for (const auto& s : *sources) {
      auto keep = row_at_or_before(*db_, boot, s.id, *until);
      if (!keep) return keep.take_error();
      if (!keep->has_value()) continue;
      auto gone = delete_before(*db_, boot, s.id, (*keep)->t_ns, budget - out.rows_deleted);
      if (!gone) return gone.take_error();
      out.rows_deleted += *gone;
      if (out.rows_deleted >= budget) {
        out.more = true;
        return out;
      }
    }
  }
  return out;
}

}  // namespace energy
