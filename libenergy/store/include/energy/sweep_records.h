// Sweeps as the Store keeps them (schema 8, docs/SWEEPS.md "Storage"): a
// sweep is a name, a state, two wall-clock times and a spec (JSON text the
// store keeps verbatim and never interprets), plus the runs added to it,
// each at a point and repeat of the sweep with a role. The runs themselves
// stay ordinary runs; a run belongs to at most one sweep.
//
// Units: wall-clock times in ns since the epoch; cooldowns in ms.
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace energy {

enum class SweepState { kRunning, kInterrupted, kComplete };
const char* sweep_state_name(SweepState s);
// "running", "interrupted" or "complete"; nullopt for anything else.
std::optional<SweepState> sweep_state_from_name(const std::string& name);
// running -> interrupted | complete; interrupted -> running | complete;
// a state to itself (a no-op). complete is final.
bool sweep_transition_allowed(SweepState from, SweepState to);

// measure: counted in the results; warmup: run before, not counted;
// baseline: an idle run for net energy.
// kRejected: a measure run that failed its quality gate and was run again (quality.h).
enum class SweepRole { kMeasure, kWarmup, kBaseline, kRejected };
const char* sweep_role_name(SweepRole r);
std::optional<SweepRole> sweep_role_from_name(const std::string& name);

struct SweepRecord {
  int64_t id = 0;
  std::string name;
  SweepState state = SweepState::kRunning;
  int64_t created_wall_ns = 0;
  int64_t updated_wall_ns = 0;  // the last add_sweep_run or state change
  std::string spec_json;        // empty in listings (find_sweeps)
  int64_t measure_runs = 0;     // runs of role measure
  int64_t measured_points = 0;  // distinct points with a measure run
};

struct SweepRunRecord {
  int64_t sweep_id = 0;
  int64_t run_id = 0;
  int64_t point = 0;
  int64_t repeat = 0;
  SweepRole role = SweepRole::kMeasure;
  std::optional<int64_t> cooldown_ms;  // the wait before the run, when there was one
};

// Which sweeps StoreSweeps::find returns, newest (highest id) first.
struct SweepFilter {
  std::optional<SweepState> state;
  std::optional<int64_t> before_id;  // paging: only ids below this
  int64_t limit = 100;
};

}  // namespace energy
