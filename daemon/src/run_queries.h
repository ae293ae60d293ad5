// RunQueries: the read-only run verbs (docs/PROTOCOL.md) — runs.list,
// runs.show and `export` of one run — answered on their own worker thread
// from a reader connection opened per request, so a slow query never delays
// the event loop, a mark or a sample.
//
// runs.list: matching runs newest first, each with a summary from the
// stored running energy (run_summary.h); runs.show: the full report
// (run_reports.h) of a run by id or name (newest of that name), an open run
// up to its newest stored reading; export of a run: its boot's readings
// between its start and stop (boot time), paged.
//
// Thread-safety: list/show/export_run/stop on the loop thread; replies are
// posted back to it. `live_clocks` is called on the worker (open runs).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "energy/store.h"
#include "event_loop.h"
#include "run_args.h"
#include "run_reports.h"
#include "server.h"
#include "task_runner.h"

namespace energy::daemon {

// A page of an export holds at most this many rows (~25 MB of JSON, inside
// the 64 MiB reply limit) and ends on a sweep boundary.
constexpr size_t kExportPageRows = 200'000;

// The verbs' work, on a Store the caller owns (tests call these directly).
Result<nlohmann::json> list_runs(Store& store, const RunFilter& filter);
Result<RunRecord> resolve_run(Store& store, const RunRef& ref);
// `live_clocks` may be empty: an open run's report then has no clocks.
Result<nlohmann::json> show_run(Store& store, const RunRecord& run, int64_t gap_threshold_ns,
                                const RunClocksFn& live_clocks);
Result<nlohmann::json> run_export_page(Store& store, const RunExportArgs& args, size_t page_rows);

class RunQueries {
 public:
  RunQueries(std::string db_path, Poster& poster, int64_t gap_threshold_ns, RunClocksFn live_clocks);
  // Arguments as read by verb_args.h.
  void list(const RunFilter& filter, const Responder& r);
  void show(const RunRef& ref, const Responder& r);
  void export_run(const RunExportArgs& args, const Responder& r);
  // Drops queued queries; a running one gets `grace` to finish.
  void stop(std::chrono::milliseconds grace) { worker_.stop(grace); }

 private:
  struct Shared {
    std::string db_path;
    int64_t gap_threshold_ns = 0;
    RunClocksFn live_clocks;
  };
  using Query = std::function<Result<nlohmann::json>(Store&, const Shared&)>;
  void submit(Query query, const Responder& r);

  Poster& poster_;
  std::shared_ptr<const Shared> shared_;  // outlives a worker detached at stop
  TaskRunner worker_;
};

}  // namespace energy::daemon
