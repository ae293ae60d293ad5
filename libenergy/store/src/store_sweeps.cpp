// Sweeps of the Store (schema 8, sweep_records.h). The writing calls read
// and check first and write last, so a refusal never leaves half a write in
// the caller's transaction (the daemon's writer batches it with samples).
#include "energy/store_sweeps.h"

#include <string>
#include <vector>

#include "sqlite.h"

namespace energy {
namespace {

constexpr const char* kSweepColumns =
    "SELECT s.id, s.name, s.state, s.created_wall_ns, s.updated_wall_ns, "
    "(SELECT COUNT(*) FROM sweep_runs r WHERE r.sweep_id = s.id AND r.role = 'measure'), "
    "(SELECT COUNT(DISTINCT point) FROM sweep_runs r WHERE r.sweep_id = s.id AND r.role = 'measure') ";

SweepRecord sweep_from_row(const sql::Stmt& st, bool with_spec) {
  SweepRecord s;
  s.id = st.int_at(0);
  s.name = st.text_at(1);
  s.state = sweep_state_from_name(st.text_at(2)).value_or(SweepState::kInterrupted);
  s.created_wall_ns = st.int_at(3);
  s.updated_wall_ns = st.int_at(4);
  s.measure_runs = st.int_at(5);
  s.measured_points = st.int_at(6);
  if (with_spec) s.spec_json = st.text_at(7);
  return s;
}

std::string sweep_name(int64_t id) { return "sweep " + std::to_string(id); }

Error not_found(const std::string& what) { return make_error(ErrorCode::kNotFound, "no " + what); }

}  // namespace

const char* sweep_state_name(SweepState s) {
  switch (s) {
    case SweepState::kRunning: return "running";
    case SweepState::kInterrupted: return "interrupted";
    case SweepState::kComplete: return "complete";
  }
  return "unknown";
}

std::optional<SweepState> sweep_state_from_name(const std::string& name) {
  for (SweepState s : {SweepState::kRunning, SweepState::kInterrupted, SweepState::kComplete}) {
    if (name == sweep_state_name(s)) return s;
  }
  return std::nullopt;
}

bool sweep_transition_allowed(SweepState from, SweepState to) { return from == to || from != SweepState::kComplete; }

const char* sweep_role_name(SweepRole r) {
  switch (r) {
    case SweepRole::kMeasure: return "measure";
    case SweepRole::kWarmup: return "warmup";
    case SweepRole::kBaseline: return "baseline";
    case SweepRole::kRejected: return "rejected";
  }
  return "unknown";
}

std::optional<SweepRole> sweep_role_from_name(const std::string& name) {
  for (SweepRole r : {SweepRole::kMeasure, SweepRole::kWarmup, SweepRole::kBaseline, SweepRole::kRejected}) {
    if (name == sweep_role_name(r)) return r;
  }
  return std::nullopt;
}

Result<SweepRecord> StoreSweeps::create(const std::string& name, const std::string& spec_json, int64_t wall_ns) {
  auto st = db_->prepare(
      "INSERT INTO sweeps(name, state, created_wall_ns, updated_wall_ns, spec) VALUES(?1, 'running', ?2, ?2, ?3)");
  if (!st) return st.take_error();
  auto done = st->bind(1, name).bind(2, wall_ns).bind(3, spec_json).run();
  if (!done) return done.take_error();
  auto rec = by_id(db_->last_insert_rowid());
  if (!rec) return rec.take_error();
  if (!rec->has_value()) return make_error(ErrorCode::kStorage, "the new sweep was not found after its insert");
  return **rec;
}

Result<std::optional<SweepRecord>> StoreSweeps::by_id(int64_t sweep_id) {
  auto st = db_->prepare(std::string(kSweepColumns) + ", s.spec FROM sweeps s WHERE s.id = ?1");
  if (!st) return st.take_error();
  auto r = st->bind(1, sweep_id).step();
  if (!r) return r.take_error();
  if (*r == sql::StepResult::kDone) return std::optional<SweepRecord>();
  return std::optional<SweepRecord>(sweep_from_row(*st, true));
}

Result<std::vector<SweepRecord>> StoreSweeps::find(const SweepFilter& filter) {
  auto st = db_->prepare(std::string(kSweepColumns) +
                         "FROM sweeps s WHERE (?1 IS NULL OR s.state = ?1) AND (?2 IS NULL OR s.id < ?2) "
                         "ORDER BY s.id DESC LIMIT ?3");
  if (!st) return st.take_error();
  if (filter.state) st->bind(1, std::string_view(sweep_state_name(*filter.state)));
  if (filter.before_id) st->bind(2, *filter.before_id);
  st->bind(3, filter.limit);
  std::vector<SweepRecord> out;
  auto rows = sql::for_each_row(*st, [&] { out.push_back(sweep_from_row(*st, false)); });
  if (!rows) return rows.take_error();
  return out;
}

Result<std::vector<SweepRunRecord>> StoreSweeps::runs(int64_t sweep_id) {
  auto st =
      db_->prepare("SELECT run_id, point, repeat, role, cooldown_ms FROM sweep_runs WHERE sweep_id = ?1 ORDER BY seq");
  if (!st) return st.take_error();
  st->bind(1, sweep_id);
  std::vector<SweepRunRecord> out;
  auto rows = sql::for_each_row(*st, [&] {
    SweepRunRecord rec{sweep_id,
                       st->int_at(0),
                       st->int_at(1),
                       st->int_at(2),
                       sweep_role_from_name(st->text_at(3)).value_or(SweepRole::kWarmup),
                       std::nullopt};
    if (!st->null_at(4)) rec.cooldown_ms = st->int_at(4);
    out.push_back(rec);
  });
  if (!rows) return rows.take_error();
  return out;
}

// The sweep exists and is not complete; the run exists, is closed and in no sweep.
Status StoreSweeps::check_run(const SweepRunRecord& run) {
  auto sweep = by_id(run.sweep_id);
  if (!sweep) return sweep.take_error();
  if (!sweep->has_value()) return not_found(sweep_name(run.sweep_id));
  if ((*sweep)->state == SweepState::kComplete)
    return make_error(ErrorCode::kState, sweep_name(run.sweep_id) + " is complete; it takes no more runs");
  auto rec = runs_.by_id(run.run_id);
  if (!rec) return rec.take_error();
  std::string run_name = "run " + std::to_string(run.run_id);
  if (!rec->has_value()) return not_found(run_name);
  if ((*rec)->state == RunState::kOpen)
    return make_error(ErrorCode::kState, run_name + " is still open; stop it before adding it to a sweep");
  auto in = db_->prepare("SELECT sweep_id FROM sweep_runs WHERE run_id = ?1");
  if (!in) return in.take_error();
  auto r = in->bind(1, run.run_id).step();
  if (!r) return r.take_error();
  if (*r == sql::StepResult::kRow)
    return make_error(ErrorCode::kState, run_name + " already belongs to " + sweep_name(in->int_at(0)));
  return ok_status();
}

Result<SweepRecord> StoreSweeps::add_run(const SweepRunRecord& run, int64_t wall_ns) {
  if (auto st = check_run(run); !st) return st.take_error();
  auto twice = db_->prepare(
      "SELECT run_id FROM sweep_runs WHERE sweep_id = ?1 AND point = ?2 AND repeat = ?3 AND role = 'measure'");
  if (!twice) return twice.take_error();
  auto r = twice->bind(1, run.sweep_id).bind(2, run.point).bind(3, run.repeat).step();
  if (!r) return r.take_error();
  if (*r == sql::StepResult::kRow && run.role == SweepRole::kMeasure) {
    return make_error(ErrorCode::kState, sweep_name(run.sweep_id) + " already has a measure run at point " +
                                             std::to_string(run.point) + ", repeat " + std::to_string(run.repeat) +
                                             " (run " + std::to_string(twice->int_at(0)) + ")");
  }
  twice->reset();
  auto ins = db_->prepare(
      "INSERT INTO sweep_runs(sweep_id, run_id, point, repeat, role, cooldown_ms) VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
  if (!ins) return ins.take_error();
  ins->bind(1, run.sweep_id).bind(2, run.run_id).bind(3, run.point).bind(4, run.repeat);
  ins->bind(5, std::string_view(sweep_role_name(run.role)));
  if (run.cooldown_ms) ins->bind(6, *run.cooldown_ms);
  if (auto st = ins->run(); !st) return st.take_error();
  return update(run.sweep_id, std::nullopt, wall_ns);
}

Result<SweepRecord> StoreSweeps::set_state(int64_t sweep_id, SweepState state, int64_t wall_ns) {
  auto sweep = by_id(sweep_id);
  if (!sweep) return sweep.take_error();
  if (!sweep->has_value()) return not_found(sweep_name(sweep_id));
  SweepState from = (*sweep)->state;
  if (from == state) return **sweep;  // a no-op: updated_wall_ns stays
  if (!sweep_transition_allowed(from, state)) {
    return make_error(ErrorCode::kState, sweep_name(sweep_id) + " is complete, which is final; it cannot become " +
                                             sweep_state_name(state));
  }
  return update(sweep_id, state, wall_ns);
}

// Sets updated_wall_ns, and the state when given; the sweep exists.
Result<SweepRecord> StoreSweeps::update(int64_t sweep_id, std::optional<SweepState> state, int64_t wall_ns) {
  auto st = db_->prepare("UPDATE sweeps SET updated_wall_ns = ?2, state = COALESCE(?3, state) WHERE id = ?1");
  if (!st) return st.take_error();
  st->bind(1, sweep_id).bind(2, wall_ns);
  if (state) st->bind(3, std::string_view(sweep_state_name(*state)));
  if (auto done = st->run(); !done) return done.take_error();
  auto rec = by_id(sweep_id);
  if (!rec) return rec.take_error();
  if (!rec->has_value()) return not_found(sweep_name(sweep_id));
  return **rec;
}

}  // namespace energy
