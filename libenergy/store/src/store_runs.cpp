// Run queries of the Store: filtered listings (runs.list), lookups by name,
// baselines, overlaps, and tag updates. Every value is a bound parameter;
// tags are matched through json_each, so any key or value is safe.
#include "energy/store_runs.h"

#include <string>
#include <variant>
#include <vector>

#include "run_rows.h"
#include "sqlite.h"

namespace energy {

namespace run_rows {

RunRecord run_from_row(const sql::Stmt& st) {
  RunRecord r;
  r.id = st.int_at(0);
  r.name = st.text_at(1);
  r.tags_json = st.text_at(2);
  r.boot = st.int_at(3);
  r.start_ns = st.int_at(4);
  r.start_wall_ns = st.int_at(5);
  if (!st.null_at(6)) r.stop_ns = st.int_at(6);
  if (!st.null_at(7)) r.stop_wall_ns = st.int_at(7);
  r.state = run_state_from_name(st.text_at(8)).value_or(RunState::kStopped);
  if (!st.null_at(9)) r.clocks_json = st.text_at(9);
  if (!st.null_at(10)) r.items = st.double_at(10);
  return r;
}

Result<std::vector<RunRecord>> collect_runs(sql::Stmt& st) {
  std::vector<RunRecord> out;
  auto rows = sql::for_each_row(st, [&] { out.push_back(run_from_row(st)); });
  if (!rows) return rows.take_error();
  return out;
}

Result<std::optional<RunRecord>> first_run(sql::Stmt& st) {
  auto r = st.step();
  if (!r) return r.take_error();
  if (*r == sql::StepResult::kDone) return std::optional<RunRecord>();
  return std::optional<RunRecord>(run_from_row(st));
}

}  // namespace run_rows

namespace {

// "key = value" for one tag; values stored as numbers compare as their text.
std::string tag_condition(const std::string& key_param, const std::string& value_param) {
  return "EXISTS (SELECT 1 FROM json_each(runs.tags) j WHERE j.key = " + key_param +
         " AND CAST(j.value AS TEXT) = " + value_param + ")";
}

// Conditions joined by AND, with their parameters in order (?1, ?2, ...).
struct Where {
  std::string sql = "WHERE 1";
  std::vector<std::variant<int64_t, std::string>> params;

  std::string add(std::variant<int64_t, std::string> value) {
    params.push_back(std::move(value));
    return "?" + std::to_string(params.size());
  }
  void bind(sql::Stmt& st) const {
    for (size_t i = 0; i < params.size(); ++i) {
      int index = static_cast<int>(i + 1);
      if (const auto* n = std::get_if<int64_t>(&params[i]))
        st.bind(index, *n);
      else
        st.bind(index, std::string_view(std::get<std::string>(params[i])));
    }
  }
};

Where where_of(const RunFilter& f) {
  Where w;
  if (f.name) w.sql += " AND name = " + w.add(*f.name);
  if (f.state) w.sql += " AND state = " + w.add(std::string(run_state_name(*f.state)));
  if (f.since_wall_ns) w.sql += " AND start_wall_ns >= " + w.add(*f.since_wall_ns);
  if (f.until_wall_ns) w.sql += " AND start_wall_ns <= " + w.add(*f.until_wall_ns);
  if (f.before_id) w.sql += " AND id < " + w.add(*f.before_id);
  for (const auto& [key, value] : f.tags) {
    std::string k = w.add(key);
    w.sql += " AND " + tag_condition(k, w.add(value));
  }
  return w;
}

}  // namespace

const char* run_state_name(RunState s) {
  switch (s) {
    case RunState::kOpen: return "open";
    case RunState::kStopped: return "stopped";
    case RunState::kInterrupted: return "interrupted";
  }
  return "unknown";
}

std::optional<RunState> run_state_from_name(const std::string& name) {
  for (RunState s : {RunState::kOpen, RunState::kStopped, RunState::kInterrupted}) {
    if (name == run_state_name(s)) return s;
  }
  return std::nullopt;
}

Status StoreRuns::set_tags(int64_t id, const std::string& tags_json) {
  auto st = db_->prepare("UPDATE runs SET tags = ?2 WHERE id = ?1");
  if (!st) return st.take_error();
  return st->bind(1, id).bind(2, tags_json).run();
}

Status StoreRuns::set_tag_values(int64_t id, const std::vector<std::pair<std::string, std::string>>& tags) {
  if (tags.empty()) return ok_status();
  std::string sql = "UPDATE runs SET tags = json_set(CASE WHEN json_valid(tags) THEN tags ELSE '{}' END";
  for (size_t i = 0; i < tags.size(); ++i) {
    sql += ", ?" + std::to_string(2 + 2 * i) + ", ?" + std::to_string(3 + 2 * i);
  }
  sql += ") WHERE id = ?1";
  auto st = db_->prepare(sql);
  if (!st) return st.take_error();
  st->bind(1, id);
  std::vector<std::string> paths;
  paths.reserve(tags.size());
  for (size_t i = 0; i < tags.size(); ++i) {
    paths.push_back("$.\"" + tags[i].first + "\"");
    st->bind(static_cast<int>(2 + 2 * i), std::string_view(paths.back()));
    st->bind(static_cast<int>(3 + 2 * i), std::string_view(tags[i].second));
  }
  return st->run();
}

Result<std::vector<RunRecord>> StoreRuns::find(const RunFilter& filter) {
  Where w = where_of(filter);
  std::string limit = w.add(filter.limit);
  auto st = db_->prepare(std::string(run_rows::kRunColumns) + w.sql + " ORDER BY id DESC LIMIT " + limit);
  if (!st) return st.take_error();
  w.bind(*st);
  return run_rows::collect_runs(*st);
}

Result<std::optional<RunRecord>> StoreRuns::newest_named(const std::string& name) {
  auto st = db_->prepare(std::string(run_rows::kRunColumns) + "WHERE name = ?1 ORDER BY id DESC LIMIT 1");
  if (!st) return st.take_error();
  st->bind(1, name);
  return run_rows::first_run(*st);
}

Result<std::optional<RunRecord>> StoreRuns::latest_tagged_before(const RunRecord& run, const std::string& tag_key,
                                                                 const std::string& tag_value) {
  auto st = db_->prepare(std::string(run_rows::kRunColumns) + "WHERE state = 'stopped' AND id != ?1 AND " +
                         tag_condition("?5", "?6") +
                         " AND ((boot = ?2 AND stop_ns <= ?3) OR (boot != ?2 AND stop_wall_ns <= ?4))"
                         " ORDER BY boot = ?2 DESC, CASE WHEN boot = ?2 THEN stop_ns ELSE stop_wall_ns END DESC"
                         " LIMIT 1");
  if (!st) return st.take_error();
  st->bind(1, run.id).bind(2, run.boot).bind(3, run.start_ns).bind(4, run.start_wall_ns);
  st->bind(5, std::string_view(tag_key)).bind(6, std::string_view(tag_value));
  return run_rows::first_run(*st);
}

Result<std::vector<RunRecord>> StoreRuns::overlapping(int64_t boot, EnergyWindow window, int64_t except_id) {
  auto st = db_->prepare(std::string(run_rows::kRunColumns) +
                         "WHERE boot = ?1 AND id != ?2 AND start_ns < ?4 AND (stop_ns IS NULL OR stop_ns > ?3)"
                         " ORDER BY id");
  if (!st) return st.take_error();
  st->bind(1, boot).bind(2, except_id).bind(3, window.begin_ns).bind(4, window.end_ns);
  return run_rows::collect_runs(*st);
}

Result<int64_t> StoreRuns::insert(const RunRecord& run) {
  auto st = db_->prepare(
      "INSERT INTO runs(name, tags, boot, start_ns, start_wall_ns, state, items) "
      "VALUES(?1, ?2, ?3, ?4, ?5, 'open', ?6)");
  if (!st) return st.take_error();
  st->bind(1, run.name).bind(2, run.tags_json).bind(3, run.boot).bind(4, run.start_ns).bind(5, run.start_wall_ns);
  if (run.items) st->bind(6, *run.items);
  auto done = st->run();
  if (!done) return done.take_error();
  return db_->last_insert_rowid();
}

Status StoreRuns::finish(int64_t id, int64_t stop_ns, int64_t stop_wall_ns, RunState state) {
  auto st = db_->prepare("UPDATE runs SET stop_ns = ?2, stop_wall_ns = ?3, state = ?4 WHERE id = ?1");
  if (!st) return st.take_error();
  return st->bind(1, id).bind(2, stop_ns).bind(3, stop_wall_ns).bind(4, run_state_name(state)).run();
}

Status StoreRuns::set_start(int64_t id, int64_t start_ns, int64_t start_wall_ns) {
  auto st = db_->prepare("UPDATE runs SET start_ns = ?2, start_wall_ns = ?3 WHERE id = ?1");
  if (!st) return st.take_error();
  return st->bind(1, id).bind(2, start_ns).bind(3, start_wall_ns).run();
}

Status StoreRuns::set_clocks(int64_t id, const std::string& clocks_json) {
  auto st = db_->prepare("UPDATE runs SET clocks = ?2 WHERE id = ?1");
  if (!st) return st.take_error();
  return st->bind(1, id).bind(2, clocks_json).run();
}

Status StoreRuns::set_items(int64_t id, double items) {
  auto st = db_->prepare("UPDATE runs SET items = ?2 WHERE id = ?1");
  if (!st) return st.take_error();
  return st->bind(1, id).bind(2, items).run();
}

Result<std::vector<RunRecord>> StoreRuns::in_state(RunState state) {
  auto st = db_->prepare(std::string(run_rows::kRunColumns) + "WHERE state = ?1 ORDER BY id");
  if (!st) return st.take_error();
  st->bind(1, run_state_name(state));
  return run_rows::collect_runs(*st);
}

Result<std::optional<RunRecord>> StoreRuns::by_id(int64_t id) {
  auto st = db_->prepare(std::string(run_rows::kRunColumns) + "WHERE id = ?1");
  if (!st) return st.take_error();
  st->bind(1, id);
  return run_rows::first_run(*st);
}

Status StoreRuns::journal_mark(const RunRecord& run, MarkEntry::Op op, JournalTags tags) {
  if (!journal_->has_value()) return make_error(ErrorCode::kStorage, "no marks journal is open");
  MarkEntry e;
  e.op = op;
  e.run_id = run.id;
  bool start = op == MarkEntry::Op::kStart;
  e.t_ns = start ? run.start_ns : run.stop_ns.value_or(0);
  e.wall_ns = start ? run.start_wall_ns : run.stop_wall_ns.value_or(0);
  if (start || tags == JournalTags::kRewritten) e.tags_json = run.tags_json;
  e.items = run.items;
  if (!start) {
    e.start_ns = run.start_ns;
    e.start_wall_ns = run.start_wall_ns;
  }
  if (start) {
    e.name = run.name;
    auto sel = db_->prepare("SELECT boot_id FROM boots WHERE id = ?1");
    if (!sel) return sel.take_error();
    auto row = sel->bind(1, run.boot).step();
    if (!row) return row.take_error();
    if (*row == sql::StepResult::kRow) e.boot_id = sel->text_at(0);
  }
  return (*journal_)->append(e);
}

}  // namespace energy
