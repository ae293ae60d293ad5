#include "run_queries.h"

#include <map>

#include "energy/report.h"
#include "energy/run_summary.h"
#include "export_rows.h"

namespace energy::daemon {
namespace {

constexpr int kBusyTimeoutMs = 5000;
// A page under construction asks whether its client is still there this often.
constexpr size_t kRowsPerCancelCheck = 4096;

// Where a run's figures end: its stop, or for an open run its boot's newest
// stored reading (at most one flush interval old).
Result<int64_t> run_end_ns(Store& store, const RunRecord& run) {
  if (run.stop_ns) return *run.stop_ns;
  auto last = store.last_sample_ns(run.boot);
  if (!last) return last.take_error();
  return std::max(run.start_ns, last->value_or(run.start_ns));
}

Result<nlohmann::json> list_entry(Store& store, const RunRecord& run, const std::vector<StoredRail>& total_rails,
                                  std::map<int64_t, int64_t>& open_end_by_boot) {
  int64_t end = 0;
  if (run.stop_ns) {
    end = *run.stop_ns;
  } else if (auto it = open_end_by_boot.find(run.boot); it != open_end_by_boot.end()) {
    end = std::max(it->second, run.start_ns);
  } else {
    auto e = run_end_ns(store, run);
    if (!e) return e.take_error();
    end = open_end_by_boot[run.boot] = *e;
  }
  auto summary = summarize_run(store, run, end, total_rails);
  if (!summary) return summary.take_error();
  nlohmann::json j = run_to_json(run);
  j["summary"] = run_summary_json(*summary);
  return j;
}

}  // namespace

Result<nlohmann::json> list_runs(Store& store, const RunFilter& filter) {
  RunFilter one_more = filter;
  one_more.limit = filter.limit + 1;  // tells whether another page exists
  auto runs = store.find_runs(one_more);
  if (!runs) return runs.take_error();
  auto total_rails = total_stored_rails(store);
  if (!total_rails) return total_rails.take_error();
  bool more = static_cast<int64_t>(runs->size()) > filter.limit;
  if (more) runs->pop_back();
  nlohmann::json out = nlohmann::json::array();
  std::map<int64_t, int64_t> open_end_by_boot;
  for (const auto& run : *runs) {
    auto entry = list_entry(store, run, *total_rails, open_end_by_boot);
    if (!entry) return entry.take_error();
    out.push_back(std::move(entry).value());
  }
  nlohmann::json reply = {{"runs", std::move(out)}};
  if (more) reply["next_before_id"] = runs->back().id;
  return reply;
}

Result<RunRecord> resolve_run(Store& store, const RunRef& ref) {
  if (ref.id) {
    auto rec = store.run_by_id(*ref.id);
    if (!rec) return rec.take_error();
    if (rec->has_value()) return **rec;
    if (ref.name.empty()) return make_error(ErrorCode::kNotFound, "no run numbered " + std::to_string(*ref.id));
  }
  auto rec = store.newest_run_named(ref.name);
  if (!rec) return rec.take_error();
  if (rec->has_value()) return **rec;
  return make_error(ErrorCode::kNotFound, "no run named or numbered '" + ref.name + "'");
}

Result<nlohmann::json> show_run(Store& store, const RunRecord& run, int64_t gap_threshold_ns,
                                const RunClocksFn& live_clocks) {
  auto end = run_end_ns(store, run);
  if (!end) return end.take_error();
  nlohmann::json clocks = stored_clocks(run);
  if (run.state == RunState::kOpen && live_clocks) clocks = live_clocks(run.id, run.start_ns, *end);
  return run_report_json(store, run, *end, gap_threshold_ns, clocks);
}

Result<nlohmann::json> export_rows_json(const std::vector<Store::ExportRow>& rows, const CancelFn& cancelled) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i % kRowsPerCancelCheck == 0 && cancelled && cancelled()) {
      return make_error(ErrorCode::kState, "export cancelled: its client has gone");
    }
    out.push_back(export_row_json(rows[i]));
  }
  return out;
}

void post_work(TaskRunner& worker, Poster& poster, const Responder& r, std::function<Result<nlohmann::json>()> work) {
  worker.post([&poster, r, work = std::move(work)] {
    if (r.cancelled()) return;  // its client left while it waited
    Result<nlohmann::json> reply =
        r.backlogged()
            ? Result<nlohmann::json>(make_error(ErrorCode::kState,
                                                "not built: this connection has client_output_limit_bytes of replies "
                                                "unread; read them before asking for more"))
            : work();
    if (r.cancelled()) return;
    poster.post([r, reply = std::move(reply)]() {
      if (!reply) return r.fail(reply.error());
      r.reply(*reply);
    });
  });
}

Result<nlohmann::json> run_export_page(Store& store, const RunExportArgs& args, size_t page_rows,
                                       const CancelFn& cancelled) {
  auto rec = store.run_by_id(args.run_id);
  if (!rec) return rec.take_error();
  if (!rec->has_value())
    return make_error(ErrorCode::kNotFound, "export: no run numbered " + std::to_string(args.run_id));
  const RunRecord& run = **rec;
  int64_t from = std::max(run.start_ns, args.since_ns.value_or(run.start_ns));
  int64_t to = run.stop_ns.value_or(INT64_MAX);
  auto rows = store.export_boot_readings(run.boot, EnergyWindow{from, to}, args.rail, page_rows);
  if (!rows) return rows.take_error();
  bool truncated = rows->size() > page_rows;
  int64_t next = truncated ? (*rows)[page_rows].t_ns : 0;
  if (truncated) {  // end the page before the sweep the next page starts with
    while (!rows->empty() && rows->back().t_ns >= next) rows->pop_back();
  }
  auto out = export_rows_json(*rows, cancelled);
  if (!out) return out.take_error();
  nlohmann::json page = {{"run", run.id}, {"rows", std::move(out).value()}, {"truncated", truncated}};
  if (truncated) page["next_since_ns"] = next;
  return page;
}

RunQueries::RunQueries(std::string db_path, Poster& poster, TaskRunner& bulk, int64_t gap_threshold_ns,
                       RunClocksFn live_clocks)
    : poster_(poster),
      bulk_(bulk),
      shared_(std::make_shared<Shared>(Shared{std::move(db_path), gap_threshold_ns, std::move(live_clocks)})) {}

// Each query opens its own reader connection (on the worker, so a slow
// open never touches the loop).
void RunQueries::submit(Query query, const Responder& r, TaskRunner& on) {
  post_work(on, poster_, r, [shared = shared_, query = std::move(query)]() -> Result<nlohmann::json> {
    auto store = Store::open(shared->db_path, StoreRole::kReader, kBusyTimeoutMs);
    if (!store) return make_error(store.error().code, "storage unavailable: " + store.error().describe());
    return query(**store, *shared);
  });
}

void RunQueries::list(const RunFilter& filter, const Responder& r) {
  submit([f = filter](Store& store, const Shared&) { return list_runs(store, f); }, r, worker_);
}

void RunQueries::show(const RunRef& ref, const Responder& r) {
  submit(
      [ref](Store& store, const Shared& s) -> Result<nlohmann::json> {
        auto run = resolve_run(store, ref);
        if (!run) return run.take_error();
        return show_run(store, *run, s.gap_threshold_ns, s.live_clocks);
      },
      r, worker_);
}

void RunQueries::export_run(const RunExportArgs& args, const Responder& r) {
  auto cancelled = [r] { return r.cancelled(); };
  submit([a = args, cancelled](Store& store,
                               const Shared&) { return run_export_page(store, a, kExportPageRows, cancelled); },
         r, bulk_);
}

}  // namespace energy::daemon
