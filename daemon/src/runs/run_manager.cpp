#include "run_manager.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <memory>
#include <optional>

#include "energy/attr_file.h"
#include "energy/attribution.h"
#include "energy/baseline.h"
#include "energy/chunker.h"
#include "energy/quality.h"

namespace energy::daemon {
namespace {

// The owner as the energyd.uid tag spells it; "" when there is none.
std::string owner_key(const nlohmann::json& tags) {
  const auto it = tags.find(kRunOwnerTag);
  return it != tags.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The stop's times: its sample's, or with a command span (at or before the
// sample), the span, in whole microseconds as samples are stored: the run's
// interval becomes the command's.
void set_stop_times(RunRecord& run, const Sample& s, const std::optional<CommandSpan>& command) {
  run.stop_ns = s.t_ns;
  run.stop_wall_ns = s.wall_ns;
  if (!command) return;
  int64_t start = std::max(to_stored_ns(command->start_ns), run.start_ns);
  int64_t end = std::min(to_stored_ns(command->end_ns), s.t_ns);
  run.start_wall_ns += start - run.start_ns;
  run.start_ns = start;
  run.stop_ns = end;
  run.stop_wall_ns = s.wall_ns - (s.t_ns - end);
}

// A stop waiting for its sample and for the stop hook's continuation; the
// last of the two to arrive pushes the stop (when it did not fail).
struct StopJoin {
  std::atomic<int> pending{2};
  std::optional<MarkOp> op;  // written by the sample's callback before it arrives
};

}  // namespace

Result<std::string> merge_run_tags(const std::string& tags_json, const nlohmann::json& extra) {
  auto tags = nlohmann::json::parse(tags_json, nullptr, false);
  if (!tags.is_object()) tags = nlohmann::json::object();
  if (extra.is_object()) tags.update(extra);
  if (tags.size() > kMaxRunTags) {
    return make_error(ErrorCode::kInvalid, "mark.stop: the run would have " + std::to_string(tags.size()) +
                                               " tags; a run holds at most " + std::to_string(kMaxRunTags));
  }
  return tags.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

RunManager::RunManager(Sampler& sampler, StorageWriter& writer, Poster& poster, ReaderFn reader, int64_t period_ns)
    : sampler_(sampler), writer_(writer), poster_(poster), reader_(std::move(reader)), period_ns_(period_ns) {}

void RunManager::adopt(std::vector<RunRecord> open_runs) {
  for (auto& r : open_runs) open_[r.id] = std::move(r);
}

size_t RunManager::open_runs_of(const std::string& owner) const {
  size_t n = 0;
  for (const auto& [id, run] : open_) {
    const auto tags = nlohmann::json::parse(run.tags_json, nullptr, false);
    if (owner_key(tags.is_object() ? tags : nlohmann::json::object()) == owner) ++n;
  }
  const auto pending = starting_.find(owner);
  return n + (pending != starting_.end() ? pending->second : 0);
}

// An exclusive run opens only while no other run is open or opening.
Status RunManager::check_exclusive(const nlohmann::json& tags) const {
  const auto it = tags.find(kRunExclusiveTag);
  if (it == tags.end() || *it != "true") return ok_status();
  if (open_.empty() && starting_.empty()) return ok_status();
  std::string ids;
  for (const auto& [id, run] : open_) ids += (ids.empty() ? "" : ", ") + std::to_string(id) + " (" + run.name + ")";
  if (ids.empty()) ids = "one being opened";
  return make_error(ErrorCode::kState, "mark.start: an exclusive run opens only when no other run is open; open: " +
                                           ids + ". Stop them, or start without \"exclusive\"");
}

void RunManager::start(const std::string& name, const nlohmann::json& tags, std::optional<double> items, RunDone done) {
  if (auto st = check_exclusive(tags); !st) return done(st.take_error());
  const std::string owner = owner_key(tags);
  const size_t held = open_runs_of(owner);
  if (held >= open_run_limit_) {
    return done(make_error(ErrorCode::kState,
                           "mark.start: " + (owner.empty() ? std::string("runs without an owner") : "uid " + owner) +
                               " already " + (owner.empty() ? "number " : "has ") + std::to_string(held) +
                               " open runs (max_open_runs_per_user is " + std::to_string(open_run_limit_) +
                               "); stop one first"));
  }
  ++starting_[owner];
  MarkOp op;
  op.kind = MarkOp::Kind::kStart;
  op.run.name = name;
  op.run.tags_json = tags.dump();
  op.run.items = items;
  op.done = [this, done = std::move(done), owner](Result<RunRecord> rec) {
    poster_.post([this, done, rec = std::move(rec), owner]() {
      if (--starting_[owner] == 0) starting_.erase(owner);
      if (rec) open_[rec->id] = *rec;
      auto pid = rec ? run_tag(*rec, kRunPidTag) : std::nullopt;
      if (pid && ledger_ != nullptr) ledger_->opened(rec->id, std::strtoll(pid->c_str(), nullptr, 10));
      done(rec);
    });
  };
  if (start_hook_) start_hook_();
  sampler_.request_sample([this, op](const Sample& s) mutable {
    op.run.start_ns = s.t_ns;
    op.run.start_wall_ns = s.wall_ns;
    writer_.push_mark(std::move(op));
  });
}

void RunManager::start_at_reply(int64_t run_id, RunDone done) {
  sampler_.request_sample([this, run_id, done = std::move(done)](const Sample& s) {
    poster_.post([this, run_id, done, s] {
      auto it = open_.find(run_id);
      if (it == open_.end() || stopping_.count(run_id) != 0) {
        auto rec = open_run(std::to_string(run_id));
        return done(rec ? rec : make_error(ErrorCode::kState, "run " + std::to_string(run_id) + " was stopped"));
      }
      it->second.start_ns = s.t_ns;
      it->second.start_wall_ns = s.wall_ns;
      start_moved_.insert(run_id);
      done(it->second);
    });
  });
}

Result<int64_t> RunManager::resolve(const std::string& key) const {
  int64_t id = 0;
  if (all_digits(key) && std::from_chars(key.data(), key.data() + key.size(), id).ec == std::errc()) {
    if (open_.count(id) != 0) return id;
    auto reader = reader_();
    auto rec = reader ? (*reader)->runs().by_id(id) : Result<std::optional<RunRecord>>(std::optional<RunRecord>());
    if (rec && rec->has_value()) {
      return make_error(ErrorCode::kState,
                        "run " + key + " (" + (*rec)->name + ") is already " + run_state_name((*rec)->state));
    }
  }
  std::vector<int64_t> matches;
  for (const auto& [run_id, r] : open_) {
    if (r.name == key) matches.push_back(run_id);
  }
  if (matches.size() == 1) return matches.front();
  if (matches.empty()) return make_error(ErrorCode::kNotFound, "no open run named or numbered '" + key + "'");
  std::string ids;
  for (auto m : matches) ids += (ids.empty() ? "" : ", ") + std::to_string(m);
  return make_error(ErrorCode::kState, std::to_string(matches.size()) + " open runs are named '" + key + "' (ids " +
                                           ids + "); stop one by id");
}

Result<RunRecord> RunManager::open_run(const std::string& name_or_id) const {
  auto id = resolve(name_or_id);
  if (!id) return id.take_error();
  return open_.at(*id);
}

// The stop's merged tags and items, in `op` (kInvalid: too many tags).
Status RunManager::stop_fields(const StopRequest& request, MarkOp& op) const {
  if (request.tags.is_object() && !request.tags.empty()) {
    auto merged = merge_run_tags(op.run.tags_json, request.tags);
    if (!merged) return merged.take_error();
    op.run.tags_json = std::move(merged).value();
    op.store_tags = true;
  }
  if (request.items) {
    op.run.items = request.items;
    op.store_items = true;
  }
  if (request.command && request.command->start_ns < op.run.start_ns) {
    return make_error(ErrorCode::kInvalid, "mark.stop: argument \"command_start_ns\" (" +
                                               std::to_string(request.command->start_ns) +
                                               ") is before the run's start (" + std::to_string(op.run.start_ns) +
                                               "): the command's span must lie within its run");
  }
  op.store_start = start_moved_.count(op.run.id) != 0 || request.command.has_value();
  return ok_status();
}

void RunManager::stop(const StopRequest& request, ReportDone done) {
  auto run = open_run(request.run);
  if (!run) return done(run.take_error());
  std::string thing = "run " + std::to_string(run->id) + " (" + run->name + ")";
  if (auto st = check_owner(thing, "stop it", run_owner(*run), request.caller); !st) return done(st.take_error());
  MarkOp op;
  op.kind = MarkOp::Kind::kStop;
  op.run = *run;
  if (auto st = stop_fields(request, op); !st) return done(st.take_error());
  int64_t id = run->id;
  if (!stopping_.insert(id).second) {
    return done(make_error(ErrorCode::kState, "run " + std::to_string(id) + " is already being stopped"));
  }
  if (clocks_) {
    op.clocks = [clocks = clocks_](const RunRecord& r) {
      return clocks(r.id, r.start_ns, r.stop_ns.value_or(r.start_ns)).dump();
    };
  }
  op.done = [this, done = std::move(done), run_id = id](Result<RunRecord> rec) {
    poster_.post([this, done, rec = std::move(rec), run_id]() {
      stopping_.erase(run_id);
      if (rec) start_moved_.erase(run_id);
      finish_stop(rec, done);
    });
  };
  // The stop goes to the writer once both its sample (sampler's thread) and
  // the stop hook's continuation (the poller's thread) have come, by
  // whichever comes last; no lock is held while pushing.
  auto join = std::make_shared<StopJoin>();
  auto arrive = [this, join] {
    if (join->pending.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    if (join->op) writer_.push_mark(std::move(*join->op));
  };
  if (stop_hook_) {
    stop_hook_(arrive);
  } else {
    arrive();
  }
  sampler_.request_sample([op = std::move(op), command = request.command, join, arrive](const Sample& s) mutable {
    if (command && command->end_ns > s.t_ns) {
      op.done(make_error(ErrorCode::kInvalid, "mark.stop: argument \"command_end_ns\" (" +
                                                  std::to_string(command->end_ns) + ") is in the future (now " +
                                                  std::to_string(s.t_ns) + " on CLOCK_BOOTTIME)"));
    } else {
      set_stop_times(op.run, s, command);
      join->op = std::move(op);
    }
    arrive();
  });
}

void RunManager::finish_stop(Result<RunRecord> rec, const ReportDone& done) {
  if (!rec) return done(rec.take_error());
  open_.erase(rec->id);
  if (stopped_hook_) stopped_hook_(rec->id);
  auto reader = reader_();
  if (!reader) return done(reader.take_error());
  if (run_tag(*rec, kRunPidTag)) attribute(*rec);
  auto report = run_report_json(**reader, *rec, rec->stop_ns.value_or(rec->start_ns), period_ns_, stored_clocks(*rec));
  if (report) store_verdict(rec->id, *rec, *report);  // and into the reply's run.tags, as stored
  done(std::move(report));
}

// A stopped run that named its processes: its share of the CPU rails'
// energy (attribution.h), into its tags (stored with the verdict).
void RunManager::attribute(RunRecord& run) {
  auto pid = std::strtoll(run_tag(run, kRunPidTag).value_or("0").c_str(), nullptr, 10);
  auto snapshots = ledger_ != nullptr ? ledger_->closed(run.id) : std::nullopt;
  auto reader = reader_();
  CpuAttribution a;
  if (!snapshots) {
    a.reason = "the kernel's accounting was not read when the run opened (energyd restarted while it was open)";
  } else if (reader) {
    a = cpu_attribution(**reader, run, *snapshots);
  } else {
    a.reason = reader.error().describe();
  }
  a.pid = pid;
  auto merged = merge_run_tags(run.tags_json, {{kRunCpuAttributionTag, attribution_to_json(a, 0).dump()}});
  if (merged) run.tags_json = std::move(merged).value();
}

// The stopped run's verdict (quality.h) and CPU attribution, as tags for
// listings, sweeps and later reports.
// Derived data: a crash before it is stored leaves a run that runs.show
// still judges; the write is not waited for.
void RunManager::store_verdict(int64_t run_id, const RunRecord& run, nlohmann::json& report) {
  std::vector<std::pair<std::string, std::string>> tags;
  const auto& q = report.value("quality", nlohmann::json::object());
  std::string verdict = q.value("verdict", "");
  if (!verdict.empty()) {
    std::string failed;
    for (const auto& c : q.value("checks", nlohmann::json::array())) {
      if (c.value("outcome", "") == "fail") failed += (failed.empty() ? "" : ",") + c.value("name", "");
    }
    tags.emplace_back(kRunQualityTag, verdict);
    tags.emplace_back(kRunQualityFailedTag, failed);
  }
  if (auto a = run_tag(run, kRunCpuAttributionTag)) tags.emplace_back(kRunCpuAttributionTag, *a);
  const auto& precision = report.value("total", nlohmann::json::object()).value("precision_j", nlohmann::json());
  if (precision.is_number()) tags.emplace_back(kRunPrecisionTag, precision.dump());
  if (tags.empty()) return;
  auto& shown = report["run"]["tags"];
  if (shown.is_object()) {
    for (const auto& [key, value] : tags) shown[key] = value;
  }
  StoreWrite w;
  w.apply = [run_id, tags](Store& store) { return store.runs().set_tag_values(run_id, tags); };
  w.done = [](const Status&) {};
  writer_.push_write(std::move(w));
}

std::vector<RunRecord> RunManager::open_runs() const {
  std::vector<RunRecord> out;
  for (const auto& [id, r] : open_) out.push_back(r);
  return out;
}

}  // namespace energy::daemon
