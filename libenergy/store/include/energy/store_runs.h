// StoreRuns: the runs table of a Store (store.h) and the marks journal's
// appends. A run is a named, tagged interval of one boot (marks); its
// times are CLOCK_BOOTTIME of that boot plus the wall clock for display.
// Tags are a JSON object of strings, matched through json_each, so any key
// or value is safe. Obtained from Store::runs(); it shares the Store's
// connection and transaction.
//
// Thread-safety: that of its Store (one thread at a time).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "energy/integrate.h"
#include "energy/result.h"
#include "energy/store_guard.h"

namespace energy {

namespace sql {
class Db;
}

enum class RunState { kOpen, kStopped, kInterrupted };
const char* run_state_name(RunState s);
// The state named "open", "stopped" or "interrupted"; nullopt for anything else.
std::optional<RunState> run_state_from_name(const std::string& name);

struct RunRecord {
  int64_t id = 0;
  std::string name;
  std::string tags_json = "{}";  // object of string -> string
  int64_t boot = 0;
  int64_t start_ns = 0;
  int64_t start_wall_ns = 0;
  std::optional<int64_t> stop_ns;
  std::optional<int64_t> stop_wall_ns;
  RunState state = RunState::kOpen;
  std::optional<std::string> clocks_json;  // stopped runs: {"clock_pins": [...], "clock_events": [...]}
  std::optional<double> items;             // work items the run processed (mark.start/stop `items`), > 0
};

// Which runs StoreRuns::find returns; every field set must match.
struct RunFilter {
  std::optional<std::string> name;          // exact name
  std::map<std::string, std::string> tags;  // each key must have exactly this value
  std::optional<int64_t> since_wall_ns;     // started at or after
  std::optional<int64_t> until_wall_ns;     // started at or before
  std::optional<RunState> state;
  std::optional<int64_t> before_id;  // paging: only ids below this
  int64_t limit = 100;
};

class StoreRuns {
 public:
  StoreRuns(sql::Db* db, std::optional<MarksJournal>* journal) : db_(db), journal_(journal) {}
  StoreRuns(const StoreRuns&) = delete;
  StoreRuns& operator=(const StoreRuns&) = delete;

  Result<int64_t> insert(const RunRecord& run);
  Status finish(int64_t id, int64_t stop_ns, int64_t stop_wall_ns, RunState state);
  // Moves a run's start (energyd moves it to the sample taken as mark.start
  // replies, and stores it with the stop).
  Status set_start(int64_t id, int64_t start_ns, int64_t start_wall_ns);
  // What the run's report said about clocks (JSON object), kept with the run.
  Status set_clocks(int64_t id, const std::string& clocks_json);
  // The run's item count (mark.stop's `items` replaces the start's).
  Status set_items(int64_t id, double items);
  // Replaces the run's tags (JSON object of strings).
  Status set_tags(int64_t id, const std::string& tags_json);
  // Sets these tags of a run (energyd's own, derived after its stop: the
  // quality verdict, the CPU attribution), keeping its other tags. Keys must
  // not hold a double quote.
  Status set_tag_values(int64_t id, const std::vector<std::pair<std::string, std::string>>& tags);

  Result<std::vector<RunRecord>> in_state(RunState state);
  Result<std::optional<RunRecord>> by_id(int64_t id);
  // Runs matching `filter`, newest (highest id) first, at most filter.limit.
  Result<std::vector<RunRecord>> find(const RunFilter& filter);
  // The newest run (highest id) named `name`, if any.
  Result<std::optional<RunRecord>> newest_named(const std::string& name);
  // The newest stopped run tagged `tag_key`=`tag_value` (a baseline, see
  // baseline.h) that ended before `run` started: one of its own boot first
  // (compared on boot time), else of an earlier boot (on the wall clock).
  Result<std::optional<RunRecord>> latest_tagged_before(const RunRecord& run, const std::string& tag_key,
                                                        const std::string& tag_value);
  // Runs of `boot` other than `except_id` open at any time in (begin, end).
  Result<std::vector<RunRecord>> overlapping(int64_t boot, EnergyWindow window, int64_t except_id);

  // Appends an acknowledged mark to the marks journal (store_guard.h),
  // synced: call after the mark's commit and before its reply.
  // `kRewritten`: a stop that stored new tags. kStorage when the journal
  // could not be opened.
  enum class JournalTags { kUnchanged, kRewritten };
  Status journal_mark(const RunRecord& run, MarkEntry::Op op, JournalTags tags = JournalTags::kUnchanged);

 private:
  sql::Db* db_;
  std::optional<MarksJournal>* journal_;  // the Store's; empty for a reader or when it could not be opened
};

}  // namespace energy
