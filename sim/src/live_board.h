// LiveBoard: one simulated board, live - its power model (model.h), the
// settings written through its files, its sensors (sensor.h) and the loads
// the run process and the control socket feed in. Every change is a model
// event at the instant the clock gives when it happens.
//
// The model's dynamics (governors, heat) are run up to the clock's instant
// by every call, so a reader sees the board as of now.
//
// Time: the Clock seam returns CLOCK_BOOTTIME in ns in the run process; tests
// pass a fake. Instants queried must lie in the retained history (the last
// `history_ns`, at least 10 s) and not in the future.
//
// Thread-safety: every member may be called from any thread (one mutex).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "energy/result.h"
#include "energysim/board_spec.h"
#include "energysim/board_state.h"
#include "energysim/tree.h"
#include "model.h"
#include "sensor.h"

namespace energy::sim {

// The model options of a live board: the defaults with drifting governor grids (A40).
inline ModelOptions live_model_options() {
  ModelOptions options;
  options.governor_late_ns = kGovernorLateNs;
  return options;
}

struct LiveOptions {
  ModelOptions model = live_model_options();
  std::vector<std::pair<std::string, RailState>> overrides;  // --rail: label or rail id -> constant value
  std::optional<std::uint32_t> cpu_load_permille;            // pinned; nullopt: fed from the host
  std::int64_t history_ns = 3600LL * 1000000000LL;           // how long the event log is kept
};

// The name `energy_uj` and `power_mw` accept for the sum of the board's total rails.
inline constexpr const char* kTotalRail = "total";

class LiveBoard {
 public:
  using Clock = std::function<std::int64_t()>;

  // kNotFound / kInvalid for an override naming no usable rail.
  static Result<std::unique_ptr<LiveBoard>> create(BoardSpec spec, const LiveOptions& options, Clock clock);

  const BoardSpec& spec() const { return spec_; }
  std::int64_t now_ns() const { return clock_(); }
  std::int64_t started_ns() const { return started_ns_; }

  // What the files show now: governed frequencies and sensor readings.
  BoardState snapshot() const;
  // A write to a file of the tree; on success the new settings are an event.
  Status write(const Node& node, std::string_view text);

  // The first GPU when `gpu` is empty; kNotFound names the board's GPUs.
  Status set_gpu_load(std::string_view gpu, std::uint32_t permille);
  // Pins the CPU load, or (nullopt) lets the host's load drive it again.
  // peak_permille: the busiest CPU's busy share (ModelControls), which the
  // sampled CPU governor follows when above the load; the host's load has none.
  void pin_cpu_load(std::optional<std::uint32_t> permille, std::uint32_t peak_permille = 0);
  // The host's CPU load, sampled by the run process; ignored while pinned.
  void feed_host_cpu_load(std::uint32_t permille);
  Status set_rail(std::string_view name, RailState value);
  // Every override when `name` is empty.
  Status clear_rail(std::string_view name);

  // True energy (before sensing) over [t0_ns, t1_ns], exact; rail by label,
  // rail id or kTotalRail.
  Result<double> energy_uj(std::string_view rail, std::int64_t t0_ns, std::int64_t t1_ns) const;
  Result<double> power_mw(std::string_view rail, std::int64_t t_ns) const;

  // Locked, read-only access to the model at the current instant.
  void inspect(const std::function<void(const PowerModel& model, std::int64_t now_ns)>& visit) const;
  bool cpu_load_pinned() const;

 private:
  LiveBoard(BoardSpec spec, const LiveOptions& options, Clock clock, ModelControls controls);
  Status record(ModelControls controls);  // caller holds mutex_
  void catch_up() const;                  // runs the model's dynamics up to now; caller holds mutex_
  void restart_changed_monitors(const BoardState& before, const BoardState& after, std::int64_t t_ns);
  Result<std::vector<std::size_t>> rails_named(std::string_view rail) const;
  Status check_range(std::int64_t t0_ns, std::int64_t t1_ns, std::int64_t now) const;

  const BoardSpec spec_;
  const Clock clock_;
  const std::int64_t started_ns_;
  const std::int64_t history_ns_;
  mutable std::mutex mutex_;
  mutable PowerModel model_;  // catch_up() advances its dynamics from const readers
  bool cpu_pinned_ = false;
  std::vector<std::vector<ConversionTiming>> timings_;  // per monitor, oldest first
  // Per monitor, per channel: the registers' running means as of the last
  // read, so a read folds only the conversions since (sensor.h). Guarded by
  // mutex_ like everything else; snapshot() is const to its callers.
  mutable std::vector<std::vector<ChannelMemo>> memos_;
};

}  // namespace energy::sim
