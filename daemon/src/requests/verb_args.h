// Verb arguments: one typed reader for the arguments of every verb of
// docs/PROTOCOL.md.
//
// Each verb declares its arguments in a table (verb_specs()): name, type,
// range, whether required. read_verb_args checks a request against its
// verb's declaration and returns typed arguments; handlers never look at
// the JSON. Refused: unknown keys, a missing required argument, a wrong
// JSON type (a float or string where an integer is expected, an unsigned
// integer above INT64_MAX, ...), a value out of range, text that is not
// valid UTF-8 or holds a control character (U+0000-001F, U+007F-009F),
// text longer than its limit (counted in characters, i.e. code points),
// more than kMaxTags tags, and client tags with the reserved prefix
// "energyd.". Every refusal is ErrorCode::kInvalid with a message naming
// the verb, the argument, what came (its JSON type and a short excerpt)
// and what was expected. A JSON null counts as an absent argument.
//
// Thread-safety: pure functions; read_verb_args never throws and has no
// side effects (a fuzz target calls it).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "energy/protocol.h"
#include "energy/quality.h"
#include "energy/result.h"
#include "energy/store.h"
#include "pin_engine.h"
#include "run_args.h"
#include "sweep_args.h"

namespace energy::daemon {

constexpr auto kMaxNameChars = static_cast<int64_t>(protocol::kMaxNameChars);  // run names and tag keys
constexpr int64_t kMaxTagValueChars = 1000;                                    // tag values
constexpr int64_t kMaxTags = 32;                                    // tags in one request; tag filters of runs.list
constexpr int64_t kMaxLeaseIds = 256;                               // lease ids in one clocks.unpin
constexpr int64_t kMaxDomains = 32;                                 // domains in one clocks.pin
constexpr int64_t kMaxShortText = 64;                               // rail labels, domain names, frequencies, governors
constexpr int64_t kMaxItems = int64_t{1} << 53;                     // items of a run: exact in a double
constexpr int64_t kMaxPid = int64_t{1} << 22;                       // Linux's PID_MAX_LIMIT
constexpr int64_t kMaxDurationMs = int64_t{30} * 24 * 3600 * 1000;  // a month: longer is a forgotten pin
// Tag keys starting so belong to energyd: clients may filter on them but not set them.
constexpr const char* kReservedTagPrefix = "energyd.";

enum class Verb {
  kStatus,
  kRails,
  kClocks,
  kClocksLeases,
  kExport,     // export of readings by wall-clock time
  kExportRun,  // export with `run`: one run's readings
  kRunsList,
  kRunsShow,
  kMarkStart,
  kMarkStop,
  kClocksPin,
  kClocksUnpin,
  kEnergyCounters,
  kSweepCreate,
  kSweepList,
  kSweepShow,
  kSweepAddRun,
  kSweepSetState,
};

enum class ArgType {
  kBool,
  kInt,       // an integer in [min, max]
  kText,      // a string of min..max characters
  kChoice,    // one of `choices`
  kRunRef,    // a run by id (positive integer or decimal string) or name (text of 1-200 characters)
  kRunId,     // a positive integer or a decimal string
  kTags,      // an object of up to `max` text values (keys 1-200 characters, values up to 1000)
  kLeaseIds,  // an array of up to `max` lease ids (positive integers)
  kDomains,   // an object of 1..`max` domain names -> frequency text
  kPin,       // an object of clocks.pin's domains, governor and allow_offline_cpus
  kPositive,  // a finite JSON number > 0 (integer or not), at most `max`
  kObject,    // a JSON object of at most `max` bytes serialised (compact)
};

struct ArgSpec {
  const char* name = "";
  ArgType type = ArgType::kBool;
  bool required = false;
  int64_t min = 0;  // kInt: the range; kText: characters; kTags, kLeaseIds, kDomains: entries
  int64_t max = 0;
  std::vector<const char*> choices;  // kChoice
};

struct VerbSpec {
  const char* verb = "";  // on the wire
  Verb id = Verb::kStatus;
  const char* label = "";  // in messages ("export of a run" for kExportRun)
  std::vector<ArgSpec> args;
};

// Every verb's declaration; the two forms of `export` are two entries
// (the one with `run` applies when the arguments contain the key "run").
const std::vector<VerbSpec>& verb_specs();

using Tags = std::map<std::string, std::string>;

struct NoArgs {};

struct ExportArgs {
  int64_t since_wall_ns = 0;
  int64_t until_wall_ns = INT64_MAX;
  std::string rail;  // empty: every rail
};

struct MarkStartArgs {
  std::string name;
  Tags tags;                         // never a reserved key
  std::optional<int64_t> baseline;   // the baseline run this run's report uses
  bool baseline_run = false;         // this run measures an idle baseline (energyd.kind=baseline)
  std::optional<PinOrder> pin;       // clocks pinned (and read back) before the run opens; kind unset
  std::optional<double> items;       // work items of the run (energy per item)
  bool end_with_connection = false;  // stopped by energyd if its connection closes first (connection_runs.h)
  // The run's quality gate (quality.h), stored as energyd.gate.* tags; absent: the defaults.
  std::optional<double> min_coverage;       // (0, 1]
  std::optional<double> max_gap_periods;    // [1, 1000]
  std::optional<int64_t> max_failed_reads;  // [0, 1e6]
  bool exclusive = false;                   // refused while another run is open; any overlap fails it
  std::optional<int64_t> pid;               // the root of the run's processes, for CPU attribution (attribution.h)
};

struct MarkStopArgs {
  std::string run;                     // id (decimal) or name, as RunManager resolves it
  Tags tags;                           // never a reserved key
  bool baseline_interrupted = false;   // a cut-short baseline (energyd.kind=baseline-interrupted)
  std::optional<double> items;         // work items of the run; replaces the start's
  std::optional<CommandSpan> command;  // command_start_ns/command_end_ns: the run's interval becomes it
};

// clocks.pin; `run_key` (run leases) is the run's id or name, resolved by
// the caller into order.run_id.
struct PinArgs {
  PinOrder order;
  std::string run_key;
};

struct UnpinArgs {
  std::vector<int64_t> leases;  // empty with `all`: every lease the caller may unpin
  bool all = false;
};

using VerbArgs =
    std::variant<NoArgs, ExportArgs, RunExportArgs, RunFilter, RunRef, MarkStartArgs, MarkStopArgs, PinArgs, UnpinArgs,
                 SweepCreateArgs, SweepFilter, SweepRef, SweepRunRecord, SweepStateArgs>;

struct VerbCall {
  Verb verb = Verb::kStatus;
  VerbArgs args;
};

// The typed arguments of a request; an unknown verb is kInvalid too.
Result<VerbCall> read_verb_args(const protocol::Request& request);

// Text rules shared with other entry points: valid UTF-8, no control
// character, min..max characters. `what` names the field in the message.
Status check_text(const std::string& what, const std::string& text, int64_t min_chars, int64_t max_chars);

}  // namespace energy::daemon
