// Arguments of the run verbs (docs/PROTOCOL.md): runs.list, runs.show,
// export of a run, mark.start's `baseline` and mark.stop's `tags`. Every
// error is ErrorCode::kInvalid and names the argument and what it must be.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "energy/result.h"
#include "energy/store.h"

namespace energy::daemon {

constexpr int64_t kRunsListDefaultLimit = 100;
constexpr int64_t kRunsListMaxLimit = 10000;

// runs.list: name, tags, since_wall_ns, until_wall_ns, state, limit, before_id.
Result<RunFilter> parse_runs_list_args(const nlohmann::json& args);

// A run named by id or name (runs.show's `run`): an integer, or a string of
// digits (an id, else a name), or any other string (a name).
struct RunRef {
  std::optional<int64_t> id;
  std::string name;  // set when the text could also be a name
};
Result<RunRef> parse_run_ref(const nlohmann::json& args, const char* key);

// export with `run`: the run's id, the page start `since_ns` (CLOCK_BOOTTIME
// of the run's boot; default: the run's start) and `rail`.
struct RunExportArgs {
  int64_t run_id = 0;
  std::optional<int64_t> since_ns;
  std::string rail;
};
Result<RunExportArgs> parse_run_export_args(const nlohmann::json& args);

// An object of string values under `key` (absent: an empty object); keys
// 1-200 characters. Used for mark.stop's tags and runs.list's tags.
Result<nlohmann::json> parse_string_object(const nlohmann::json& args, const char* key);

// mark.start's `baseline`: a run id (integer or decimal string), or nullopt.
Result<std::optional<int64_t>> parse_baseline_arg(const nlohmann::json& args);

}  // namespace energy::daemon
