// RunManager: daemon-owned runs opened and closed by marks.
//
// A mark takes an immediate sample (so a run's edges are exact readings),
// is committed durably with every sample before it, and only then is
// acknowledged. Several runs may be open at once, nested or overlapping.
// Stopping names a run by id, or by name when exactly one open run has it;
// only the run's owner, root or the daemon's uid may stop it (owner.h).
//
// Thread-safety: loop thread only; completions arrive through the Poster.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cpu_ledger.h"
#include "energy/store.h"
#include "energy/time_source.h"
#include "event_loop.h"
#include "owner.h"
#include "run_args.h"
#include "run_reports.h"
#include "sampler.h"
#include "writer.h"

namespace energy::daemon {

// A run holds at most this many tags: the start's, energyd's own and the stop's.
constexpr size_t kMaxRunTags = 64;

// The run's stored tags with `extra` (an object of strings) merged in
// (extra wins on a shared key); kInvalid when the result has more than
// kMaxRunTags tags.
Result<std::string> merge_run_tags(const std::string& tags_json, const nlohmann::json& extra);

struct StopRequest {
  std::string run;                                 // id (decimal) or name
  nlohmann::json tags = nlohmann::json::object();  // merged into the run's tags
  Caller caller;
  std::optional<double> items;  // the run's work items; replaces the start's
  // The command's span: the run's interval becomes it. Refused unless it
  // lies within the run (start at or after the run's, end not in the future).
  std::optional<CommandSpan> command;
};

class RunManager {
 public:
  using RunDone = std::function<void(Result<RunRecord>)>;
  using ReportDone = std::function<void(Result<nlohmann::json>)>;

  // Opens (or returns) the query connection; loop thread only.
  using ReaderFn = std::function<Result<Store*>()>;

  RunManager(Sampler& sampler, StorageWriter& writer, Poster& poster, ReaderFn reader, int64_t period_ns);

  // Runs left open by a previous daemon of this boot continue (the downtime
  // is a gap in their data); the caller closes other boots' runs before.
  void adopt(std::vector<RunRecord> open_runs);
  // How many runs one owner (the energyd.uid tag) may hold open, counting
  // starts not yet stored; a start beyond it fails with kState naming the
  // limit. Runs without an owner count together. Default 64.
  void set_open_run_limit(size_t per_owner) { open_run_limit_ = per_owner; }
  // `tags` carries the owner (energyd.uid) the caller set; `items` (the
  // run's work items, for energy per item) is stored with the run. A run
  // tagged energyd.exclusive=true is refused (kState, naming the open runs)
  // while another run is open or opening.
  void start(const std::string& name, const nlohmann::json& tags, std::optional<double> items, RunDone done);
  // Moves open run `run_id`'s start to a sample taken now: called once the
  // run is durably open and everything mark.start does is done, right before
  // its reply, so the run begins as the client learns that it may start its
  // work (not at the sample before the commit, tens of ms earlier). The new
  // start is in the run's record at once and stored with its stop. A run
  // stopped meanwhile is given back unchanged.
  void start_at_reply(int64_t run_id, RunDone done);
  // The request's tags (an object, possibly empty) are merged into the
  // run's tags and stored with the stop; so are the run's clocks
  // (set_clocks_source). kDenied unless the caller may stop the run.
  void stop(const StopRequest& request, ReportDone done);
  // Where a stopping run's clock pins and events come from (called on the
  // writer thread, inside the stop's transaction).
  void set_clocks_source(RunClocksFn clocks) { clocks_ = std::move(clocks); }
  std::vector<RunRecord> open_runs() const;
  // Where runs that name their processes (tag energyd.pid) are accounted
  // (cpu_ledger.h); unset: their reports say attribution is not available.
  void set_cpu_ledger(CpuLedger* ledger) { ledger_ = ledger; }
  // Called at every mark.start before its sample is requested (the board
  // context poller's poll_now); must not block.
  void set_start_hook(std::function<void()> hook) { start_hook_ = std::move(hook); }
  // Called at every mark.stop before its sample is requested, with a
  // continuation: the stop is stored (and its report built) only once the
  // continuation was called and the stop's sample taken, so what the hook
  // hands to the writer before calling it (a fresh context poll's rows) is
  // in the stop's transaction. Must not block; may call the continuation at
  // once or later from any thread, and must call it exactly once. Unset:
  // the stop waits for its sample only.
  using StopHook = std::function<void(std::function<void()> then)>;
  void set_stop_hook(StopHook hook) { stop_hook_ = std::move(hook); }
  // Called on the loop with a run's id once its stop is stored, before its
  // report is built: what ends with the run (its clock leases) ends even
  // when the report then fails (a run without readings).
  void set_stopped_hook(std::function<void(int64_t run_id)> hook) { stopped_hook_ = std::move(hook); }
  // The open run named or numbered `name_or_id` (as stop resolves it).
  Result<RunRecord> open_run(const std::string& name_or_id) const;

 private:
  Result<int64_t> resolve(const std::string& name_or_id) const;
  Status check_exclusive(const nlohmann::json& tags) const;
  size_t open_runs_of(const std::string& owner) const;
  Status stop_fields(const StopRequest& request, MarkOp& op) const;
  void finish_stop(Result<RunRecord> rec, const ReportDone& done);
  void store_verdict(int64_t run_id, const RunRecord& run, nlohmann::json& report);
  void attribute(RunRecord& run);

  Sampler& sampler_;
  StorageWriter& writer_;
  Poster& poster_;
  ReaderFn reader_;
  int64_t period_ns_;
  RunClocksFn clocks_;
  std::map<int64_t, RunRecord> open_;
  std::set<int64_t> stopping_;
  std::set<int64_t> start_moved_;  // open runs whose start differs from the stored one
  size_t open_run_limit_ = 64;
  std::map<std::string, size_t> starting_;  // owner -> starts not yet stored
  std::function<void()> start_hook_;
  StopHook stop_hook_;
  std::function<void(int64_t)> stopped_hook_;
  CpuLedger* ledger_ = nullptr;
};

}  // namespace energy::daemon
