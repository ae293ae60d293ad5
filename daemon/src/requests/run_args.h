// Typed arguments of the run verbs (docs/PROTOCOL.md) that the run queries
// take: runs.show's run reference and `export` of a run. They are read from
// requests by verb_args.h, with every other verb's arguments.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace energy::daemon {

constexpr int64_t kRunsListDefaultLimit = 100;
constexpr int64_t kRunsListMaxLimit = 10000;

// A run named by id or name (runs.show's `run`): an integer, or a string of
// digits (an id, else a name), or any other string (a name).
// The span of the command a run measured, on CLOCK_BOOTTIME, as its client
// saw it (energyctl run: right before the fork, right after the wait);
// mark.stop makes it the run's interval.
struct CommandSpan {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

struct RunRef {
  std::optional<int64_t> id;
  std::string name;  // set when the text could also be a name
};

// export with `run`: the run's id, the page start `since_ns` (CLOCK_BOOTTIME
// of the run's boot; default: the run's start) and `rail`.
struct RunExportArgs {
  int64_t run_id = 0;
  std::optional<int64_t> since_ns;
  std::string rail;
};

}  // namespace energy::daemon
