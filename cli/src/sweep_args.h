// `energyctl sweep` arguments: what the user typed, checked, and the spec a
// sweep is stored with (sweep.create's `spec`, read back on --resume).
//
//   energyctl sweep [--cpu L] [--gpu L] [--emc L] [--param NAME=v1,...]...
//       [--dvfs] [--repeat K | --ci PCT [--max-repeat K]] [--warmup N]
//       [--cooldown auto|DURATION|off] [--baseline DURATION]
//       [--items N|{NAME}] [--seed S] [--name N] [--progress text|json]
//       -- CMD [ARGS...]
//   energyctl sweep --search [--cpu L] [--gpu L] [--emc L] [--param ...]... [--dvfs]
//       [--repeat K] [--max-repeat K] [--max-runs N] ... -- CMD [ARGS...]
//   energyctl sweep --resume ID [--progress text|json] [--json]
//
// The clock lists are resolved against the board's clock tables
// (resolve_clock_axes, from the daemon's `clocks` reply) by libenergy's
// sweep module, so the stored spec holds frequencies in Hz and a resumed
// sweep never depends on how the lists were spelt. Every bad value is an
// error naming the option and the value.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "command.h"
#include "energy/result.h"
#include "energy/sweep_plan.h"
#include "sweep_progress.h"

namespace energy::cli {

enum class CooldownMode { kOff, kFixed, kAuto };

// The --cooldown auto timeout, and the defaults of --repeat, --max-repeat.
constexpr int64_t kAutoCooldownTimeoutMs = 60'000;
constexpr int kDefaultRepeat = 3;
constexpr int kDefaultMaxRepeat = 10;

// --search: runs per point before comparing (--repeat, >= 2), the most per
// point (--max-repeat, default max(K, 6)), and the budget (--max-runs, 0: none).
constexpr int kSearchDefaultMaxRepeat = 6;
struct SearchSpec {
  int repeats = kDefaultRepeat;
  int max_repeats = kSearchDefaultMaxRepeat;
  size_t max_runs = 0;
};

struct Cooldown {
  CooldownMode mode = CooldownMode::kAuto;
  int64_t ms = kAutoCooldownTimeoutMs;  // kFixed: the wait; kAuto: the longest wait (the timeout)
};

// How many items a run does: a fixed count, or a parameter's value.
struct ItemsRule {
  std::optional<double> count;
  std::string param;  // --items {NAME}
};

// NOLINTNEXTLINE(bugprone-exception-escape): strings and vectors; their moves do not throw
// A run that fails its quality gate is re-run this many times by default (--retries).
constexpr int kDefaultGateRetries = 2;
constexpr int kMaxGateRetries = 10;

struct SweepArgs {
  std::vector<std::pair<std::string, std::string>> clocks;  // (domain, list) in cpu, gpu, emc order
  std::vector<ParamAxis> params;
  bool dvfs = false;
  int repeat = kDefaultRepeat;
  std::optional<double> ci_pct;  // --ci: target half-width, % of the mean
  int max_repeat = kDefaultMaxRepeat;
  int warmup = 0;
  Cooldown cooldown;
  std::optional<int64_t> baseline_ms;
  ItemsRule items;
  std::optional<uint64_t> seed;
  std::string name;
  std::optional<int64_t> resume;  // --resume ID
  bool search = false;            // --search (default axes: cpu all, gpu all)
  size_t max_runs = 0;            // --max-runs N (with --search)
  bool json = false;              // --json: the results at the end as JSON
  // --progress text|json: json for programs (one JSON object a line on stderr;
  // sweep_progress.h); text is redrawn on a terminal, one line a run otherwise.
  bool progress_json = false;
  nlohmann::json gate = nlohmann::json::object();  // --min-coverage, --max-gap as mark.start arguments
  int retries = kDefaultGateRetries;               // --retries
  std::vector<std::string> command;
};

Result<SweepArgs> parse_sweep_args(const Args& args);

// A sweep as stored (sweep.create's spec): everything the run loop needs.
// NOLINTNEXTLINE(bugprone-exception-escape): strings and vectors; their moves do not throw
struct SweepSpec {
  std::vector<std::string> command;
  SweepAxes axes;  // clock axes in Hz (index: positions in the resolved list)
  bool dvfs = false;
  int repeat = kDefaultRepeat;  // with ci_pct: the most rounds (--max-repeat)
  std::optional<double> ci_pct;
  int warmup = 0;
  Cooldown cooldown;
  std::optional<int64_t> baseline_ms;
  ItemsRule items;
  uint64_t seed = 0;
  std::optional<SearchSpec> search;  // a --search sweep: only the points the search measures are run
  // Each run's quality gate (mark.start's min_coverage, max_gap_periods) and how
  // often a run that fails it is re-run before its point is left without it.
  nlohmann::json gate = nlohmann::json::object();
  int retries = kDefaultGateRetries;
};

// The clock axes of `args` against the `clocks` reply: a domain kind's table
// is the frequencies every domain of that kind lists (a pin of "cpu" sets
// them all). Errors: no domain of that kind, no common frequency, and the
// sweep module's errors (an unlisted frequency names its neighbours).
Result<std::vector<ClockAxis>> resolve_clock_axes(const SweepArgs& args, const nlohmann::json& clocks);

// The spec of a new sweep (the seed drawn by the caller when not given).
SweepSpec make_spec(const SweepArgs& args, std::vector<ClockAxis> clocks, uint64_t seed);

nlohmann::json spec_to_json(const SweepSpec& spec);
// Errors name the field that is missing or wrong (a spec not written by this energyctl).
Result<SweepSpec> spec_from_json(const nlohmann::json& j);

// The items a run of `point` does (nullopt: no items rule).
std::optional<double> point_items(const SweepSpec& spec, const SweepPoint& point);

}  // namespace energy::cli
