#include "sweep_verbs.h"

#include <memory>
#include <utility>

#include "listing_page.h"
#include "run_queries.h"

namespace energy::daemon {
namespace {

using nlohmann::json;

// The database's own failures fail the writer's transaction; anything else
// is this request's refusal.
bool is_storage_failure(const Error& e) { return e.code == ErrorCode::kStorage || e.code == ErrorCode::kCorrupt; }

Result<json> sweep_reply(Result<SweepRecord> rec) {
  if (!rec) return rec.take_error();
  return json{{"sweep", sweep_json(*rec, SweepDetail::kHeader)}};
}

// A run of the sweep: where it belongs, and runs.list's object for it.
json sweep_run_json(const SweepRunRecord& r, json run) {
  json j = {{"run_id", r.run_id},
            {"point", r.point},
            {"repeat", r.repeat},
            {"role", sweep_role_name(r.role)},
            {"cooldown_ms", r.cooldown_ms ? json(*r.cooldown_ms) : json(nullptr)}};
  j["run"] = std::move(run);
  return j;
}

// runs.list's objects for the sweep's runs, in the order they were added.
Result<json> sweep_runs_json(Store& store, int64_t sweep_id) {
  auto members = store.sweeps().runs(sweep_id);
  if (!members) return members.take_error();
  std::vector<RunRecord> runs;
  for (const auto& m : *members) {
    auto rec = store.runs().by_id(m.run_id);
    if (!rec) return rec.take_error();
    if (!rec->has_value()) return make_error(ErrorCode::kCorrupt, "run " + std::to_string(m.run_id) + " is missing");
    runs.push_back(std::move(**rec));
  }
  auto entries = run_list_entries(store, runs);
  if (!entries) return entries.take_error();
  json out = json::array();
  for (size_t i = 0; i < members->size(); ++i) out.push_back(sweep_run_json((*members)[i], (*entries)[i]));
  return out;
}

}  // namespace

json sweep_json(const SweepRecord& sweep, SweepDetail detail) {
  json j = {{"id", sweep.id},
            {"name", sweep.name},
            {"state", sweep_state_name(sweep.state)},
            {"created_wall_ns", sweep.created_wall_ns},
            {"updated_wall_ns", sweep.updated_wall_ns}};
  if (detail == SweepDetail::kListing) {
    j["runs"] = sweep.measure_runs;
    j["points"] = sweep.measured_points;
  }
  if (detail == SweepDetail::kWithSpec) j["spec"] = json::parse(sweep.spec_json, nullptr, false);
  return j;
}

Result<json> list_sweeps(Store& store, const SweepFilter& filter) {
  auto page = listing_page<SweepRecord>(filter, [&](const SweepFilter& f) { return store.sweeps().find(f); });
  if (!page) return page.take_error();
  json out = json::array();
  for (const auto& s : page->rows) out.push_back(sweep_json(s, SweepDetail::kListing));
  json reply = {{"sweeps", std::move(out)}};
  if (page->more) reply["next_before_id"] = page->rows.back().id;
  return reply;
}

Result<json> show_sweep(Store& store, int64_t sweep_id) {
  auto sweep = store.sweeps().by_id(sweep_id);
  if (!sweep) return sweep.take_error();
  if (!sweep->has_value()) return make_error(ErrorCode::kNotFound, "no sweep " + std::to_string(sweep_id));
  auto runs = sweep_runs_json(store, sweep_id);
  if (!runs) return runs.take_error();
  json j = sweep_json(**sweep, SweepDetail::kWithSpec);
  j["runs"] = std::move(runs).value();
  return json{{"sweep", std::move(j)}};
}

Result<json> create_sweep(Store& store, const SweepCreateArgs& args, int64_t wall_ns) {
  return sweep_reply(store.sweeps().create(args.name, args.spec_json, wall_ns));
}

Result<json> add_sweep_run(Store& store, const SweepRunRecord& run, int64_t wall_ns) {
  return sweep_reply(store.sweeps().add_run(run, wall_ns));
}

Result<json> set_sweep_state(Store& store, const SweepStateArgs& args, int64_t wall_ns) {
  return sweep_reply(store.sweeps().set_state(args.sweep, args.state, wall_ns));
}

void SweepWrites::create(const SweepCreateArgs& args, const Responder& r) {
  submit([args](Store& s, int64_t wall) { return create_sweep(s, args, wall); }, r);
}

void SweepWrites::add_run(const SweepRunRecord& run, const Responder& r) {
  submit([run](Store& s, int64_t wall) { return add_sweep_run(s, run, wall); }, r);
}

void SweepWrites::set_state(const SweepStateArgs& args, const Responder& r) {
  submit([args](Store& s, int64_t wall) { return set_sweep_state(s, args, wall); }, r);
}

// The answer is kept from inside the transaction and sent once it commits.
void SweepWrites::submit(Work work, const Responder& r) {
  auto answer = std::make_shared<Result<json>>(make_error(ErrorCode::kInternal, "the write was not carried out"));
  int64_t wall_ns = clock_.wall_ns();
  StoreWrite write;
  write.apply = [answer, work = std::move(work), wall_ns](Store& store) -> Status {
    *answer = work(store, wall_ns);
    if (!*answer && is_storage_failure(answer->error())) return answer->error();
    return ok_status();
  };
  write.done = [poster = &poster_, answer, r](const Status& committed) {
    poster->post([answer, r, committed] {
      if (!committed) return r.fail(committed.error());
      if (!*answer) return r.fail(answer->error());
      r.reply(**answer);
    });
  };
  writer_.push_write(std::move(write));
}

}  // namespace energy::daemon
