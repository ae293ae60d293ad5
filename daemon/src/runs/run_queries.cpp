#include "run_queries.h"

#include <algorithm>
#include <map>
#include <optional>
#include <thread>

#include "energy/baseline.h"
#include "energy/quality.h"
#include "energy/report.h"
#include "energy/run_summary.h"
#include "export_rows.h"
#include "listing_page.h"
#include "sweep_verbs.h"

namespace energy::daemon {
namespace {

Result<std::unique_ptr<Store>> open_reader(const std::string& db_path) {
  auto store = Store::open(db_path, StoreRole::kReader, Store::kBusyTimeoutMs);
  if (!store) return make_error(store.error().code, "storage unavailable: " + store.error().describe());
  return store;
}

// How long a large reply (an export page) waits on its worker for the
// replies queued across all connections to fall under the server's total
// output limit, and how often it looks: clients that read make room within
// milliseconds, and one that stops reading is cut off after client_deadline
// (10 s by default), which frees its share.
constexpr auto kOutputRoomWait = std::chrono::seconds(10);
constexpr auto kOutputRoomPoll = std::chrono::milliseconds(5);

enum class ReplySize { kSmall, kLarge };

// On the worker: true once there is room for a large reply; false when its
// client has gone or the wait ran out.
bool wait_for_output_room(const Responder& r) {
  auto until = std::chrono::steady_clock::now() + kOutputRoomWait;
  while (r.server_backlogged()) {
    if (r.cancelled() || std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(kOutputRoomPoll);
  }
  return true;
}

// Why the reply to `r` is not built now, if it is not.
std::optional<Error> refusal(const Responder& r, ReplySize size) {
  if (r.backlogged()) {
    return make_error(ErrorCode::kState,
                      "not built: this connection has client_output_limit_bytes of replies unread; read them before "
                      "asking for more");
  }
  if (size == ReplySize::kLarge && !wait_for_output_room(r)) {
    return make_error(ErrorCode::kState,
                      "not built: energyd's clients have left its total output limit of replies unread for " +
                          std::to_string(kOutputRoomWait.count()) + " s; ask again later");
  }
  return std::nullopt;
}

// Runs `work` on `worker` and posts its result, sent by `send`, back to the
// loop thread for `r` (post_work, post_text_work).
template <typename T, typename Send>
void post_result(TaskRunner& worker, Poster& poster, const Responder& r, ReplySize size,
                 std::function<Result<T>()> work, Send send) {
  worker.post([&poster, r, size, work = std::move(work), send] {
    if (r.cancelled()) return;  // its client left while it waited
    auto refused = refusal(r, size);
    Result<T> reply = refused ? Result<T>(*refused) : work();
    if (r.cancelled()) return;
    poster.post([r, send, reply = std::move(reply)]() mutable {
      if (!reply) return r.fail(reply.error());
      send(r, std::move(reply).value());
    });
  });
}

// Where a run's figures end: its stop, or for an open run its boot's newest
// stored reading (at most one flush interval old).
Result<int64_t> run_end_ns(Store& store, const RunRecord& run) {
  if (run.stop_ns) return *run.stop_ns;
  auto last = store.readings().last_sample_ns(run.boot);
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
  // The verdict stored after the stop (quality.h); null while open or not yet judged.
  auto verdict = run_tag(run, kRunQualityTag);
  if (verdict) {
    nlohmann::json failed = nlohmann::json::array();
    std::string list = run_tag(run, kRunQualityFailedTag).value_or("");
    for (size_t from = 0; from < list.size();) {
      size_t comma = std::min(list.find(',', from), list.size());
      if (comma > from) failed.push_back(list.substr(from, comma - from));
      from = comma + 1;
    }
    j["quality"] = {{"verdict", *verdict}, {"failed", std::move(failed)}};
  } else {
    j["quality"] = nullptr;
  }
  return j;
}

}  // namespace

Result<nlohmann::json> run_list_entries(Store& store, const std::vector<RunRecord>& runs) {
  auto total_rails = total_stored_rails(store);
  if (!total_rails) return total_rails.take_error();
  nlohmann::json out = nlohmann::json::array();
  std::map<int64_t, int64_t> open_end_by_boot;
  for (const auto& run : runs) {
    auto entry = list_entry(store, run, *total_rails, open_end_by_boot);
    if (!entry) return entry.take_error();
    out.push_back(std::move(entry).value());
  }
  return out;
}

Result<nlohmann::json> list_runs(Store& store, const RunFilter& filter) {
  auto page = listing_page<RunRecord>(filter, [&](const RunFilter& f) { return store.runs().find(f); });
  if (!page) return page.take_error();
  auto out = run_list_entries(store, page->rows);
  if (!out) return out.take_error();
  nlohmann::json reply = {{"runs", std::move(out).value()}};
  if (page->more) reply["next_before_id"] = page->rows.back().id;
  return reply;
}

Result<RunRecord> resolve_run(Store& store, const RunRef& ref) {
  if (ref.id) {
    auto rec = store.runs().by_id(*ref.id);
    if (!rec) return rec.take_error();
    if (rec->has_value()) return **rec;
    if (ref.name.empty()) return make_error(ErrorCode::kNotFound, "no run numbered " + std::to_string(*ref.id));
  }
  auto rec = store.runs().newest_named(ref.name);
  if (!rec) return rec.take_error();
  if (rec->has_value()) return **rec;
  return make_error(ErrorCode::kNotFound, "no run named or numbered '" + ref.name + "'");
}

Result<nlohmann::json> show_run(Store& store, const RunRecord& run, int64_t period_ns, const RunClocksFn& live_clocks) {
  auto end = run_end_ns(store, run);
  if (!end) return end.take_error();
  nlohmann::json clocks = stored_clocks(run);
  if (run.state == RunState::kOpen && live_clocks) clocks = live_clocks(run.id, run.start_ns, *end);
  return run_report_json(store, run, *end, period_ns, clocks);
}

void post_work(TaskRunner& worker, Poster& poster, const Responder& r, std::function<Result<nlohmann::json>()> work) {
  post_result(worker, poster, r, ReplySize::kSmall, std::move(work),
              [](const Responder& to, nlohmann::json result) { to.reply(std::move(result)); });
}

void post_text_work(TaskRunner& worker, Poster& poster, const Responder& r, std::function<Result<std::string>()> work) {
  post_result(worker, poster, r, ReplySize::kLarge, std::move(work),
              [](const Responder& to, std::string result) { to.reply_text(std::move(result)); });
}

Result<std::string> run_export_page(Store& store, const RunExportArgs& args, size_t page_rows,
                                    const CancelFn& cancelled) {
  auto rec = store.runs().by_id(args.run_id);
  if (!rec) return rec.take_error();
  if (!rec->has_value())
    return make_error(ErrorCode::kNotFound, "export: no run numbered " + std::to_string(args.run_id));
  const RunRecord& run = **rec;
  int64_t from = std::max(run.start_ns, args.since_ns.value_or(run.start_ns));
  int64_t to = run.stop_ns.value_or(INT64_MAX);
  auto rows = store.readings().export_boot_readings(run.boot, EnergyWindow{from, to}, args.rail, page_rows);
  if (!rows) return rows.take_error();
  bool truncated = rows->size() > page_rows;
  int64_t next = truncated ? (*rows)[page_rows].t_ns : 0;
  if (truncated) {  // end the page before the sweep the next page starts with
    while (!rows->empty() && rows->back().t_ns >= next) rows->pop_back();
  }
  nlohmann::json fields = {{"run", run.id}, {"truncated", truncated}};
  if (truncated) fields["next_since_ns"] = next;
  return export_page_text(*rows, fields, cancelled);
}

RunQueries::RunQueries(std::string db_path, Poster& poster, TaskRunner& bulk, int64_t period_ns,
                       RunClocksFn live_clocks)
    : poster_(poster),
      bulk_(bulk),
      shared_(std::make_shared<Shared>(Shared{std::move(db_path), period_ns, std::move(live_clocks)})) {}

// Each query opens its own reader connection (on the worker, so a slow
// open never touches the loop).
void RunQueries::submit(Query query, const Responder& r, TaskRunner& on) {
  post_work(on, poster_, r, [shared = shared_, query = std::move(query)]() -> Result<nlohmann::json> {
    auto store = open_reader(shared->db_path);
    if (!store) return store.take_error();
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
        return show_run(store, *run, s.period_ns, s.live_clocks);
      },
      r, worker_);
}

void RunQueries::sweeps(const SweepFilter& filter, const Responder& r) {
  submit([f = filter](Store& store, const Shared&) { return list_sweeps(store, f); }, r, worker_);
}

void RunQueries::sweep(const SweepRef& ref, const Responder& r) {
  submit([ref](Store& store, const Shared&) { return show_sweep(store, ref.id); }, r, worker_);
}

void RunQueries::export_run(const RunExportArgs& args, const Responder& r) {
  post_text_work(bulk_, poster_, r, [shared = shared_, a = args, r]() -> Result<std::string> {
    auto store = open_reader(shared->db_path);
    if (!store) return store.take_error();
    return run_export_page(**store, a, kExportPageRows, [r] { return r.cancelled(); });
  });
}

}  // namespace energy::daemon
