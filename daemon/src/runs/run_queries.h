// RunQueries: the read-only run verbs (docs/PROTOCOL.md) — runs.list,
// runs.show, `export` of one run, sweep.list and sweep.show — answered on their own worker thread
// from a reader connection opened per request, so a slow query never delays
// the event loop, a mark or a sample.
//
// runs.list: matching runs newest first, each with a summary from the
// stored running energy (run_summary.h); runs.show: the full report
// (run_reports.h) of a run by id or name (newest of that name), an open run
// up to its newest stored reading; export of a run: its boot's readings
// between its start and stop (boot time), paged.
//
// Exports (bulk: up to a kExportPageRows page each, written as JSON text) run on the bulk worker the
// caller passes, shared with the raw `export`; list and show on this
// object's own worker. Work whose client has gone (Responder::cancelled) is
// dropped before it starts, and an export page stops being built when it goes.
//
// Thread-safety: list/show/export_run/stop on the loop thread; replies are
// posted back to it. `live_clocks` is called on the worker (open runs).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "energy/store.h"
#include "event_loop.h"
#include "run_args.h"
#include "run_reports.h"
#include "server.h"
#include "sweep_args.h"
#include "task_runner.h"

namespace energy::daemon {

// The verbs' work, on a Store the caller owns (tests call these directly).
Result<nlohmann::json> list_runs(Store& store, const RunFilter& filter);
// runs.list's object for each run (its fields and summary), in order.
Result<nlohmann::json> run_list_entries(Store& store, const std::vector<RunRecord>& runs);
Result<RunRecord> resolve_run(Store& store, const RunRef& ref);
// `live_clocks` may be empty: an open run's report then has no clocks.
Result<nlohmann::json> show_run(Store& store, const RunRecord& run, int64_t period_ns, const RunClocksFn& live_clocks);
// Called now and then while building a page; true stops it (a `state` error).
using CancelFn = std::function<bool()>;

// One page of a run's export as the JSON text of its reply's result
// (export_rows.h); `cancelled` may be empty (never cancelled).
Result<std::string> run_export_page(Store& store, const RunExportArgs& args, size_t page_rows,
                                    const CancelFn& cancelled = {});

// Runs `work` on `worker` for the request `r` and posts its result back to
// the loop thread, unless r's client has gone by then (nothing is sent).
// A client with output_limit_bytes of replies unread gets a `state` error
// instead of a large reply it could not take.
void post_work(TaskRunner& worker, Poster& poster, const Responder& r, std::function<Result<nlohmann::json>()> work);
// As post_work, for work whose result is JSON text (export pages), sent
// with Responder::reply_text. A large reply: it is built only once the
// replies queued across all connections are under the server's total
// output limit (Responder::server_backlogged), waiting on the worker for up
// to 10 s, then refused with a `state` error.
void post_text_work(TaskRunner& worker, Poster& poster, const Responder& r, std::function<Result<std::string>()> work);

class RunQueries {
 public:
  // `bulk` (exports) must outlive this object. Arguments as read by verb_args.h.
  RunQueries(std::string db_path, Poster& poster, TaskRunner& bulk, int64_t period_ns, RunClocksFn live_clocks);
  void list(const RunFilter& filter, const Responder& r);
  void show(const RunRef& ref, const Responder& r);
  void export_run(const RunExportArgs& args, const Responder& r);
  // sweep.list and sweep.show (sweep_verbs.h), on the same worker as list and show.
  void sweeps(const SweepFilter& filter, const Responder& r);
  void sweep(const SweepRef& ref, const Responder& r);
  // Drops queued queries; a running one gets `grace` to finish.
  void stop(std::chrono::milliseconds grace) { worker_.stop(grace); }

 private:
  struct Shared {
    std::string db_path;
    int64_t period_ns = 0;  // energyd's sampling period: judges runs that recorded none
    RunClocksFn live_clocks;
  };
  using Query = std::function<Result<nlohmann::json>(Store&, const Shared&)>;
  void submit(Query query, const Responder& r, TaskRunner& on);

  Poster& poster_;
  TaskRunner& bulk_;
  std::shared_ptr<const Shared> shared_;  // outlives a worker detached at stop
  TaskRunner worker_{"runs"};
};

}  // namespace energy::daemon
