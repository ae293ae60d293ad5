#include "live_board.h"

#include <algorithm>

namespace energy::sim {
namespace {

// >> the longest running-mean time constant of a board's default timing (430 ms).
constexpr std::int64_t kMinHistoryNs = 10LL * 1000000000LL;

// Seeded conversion-grid phase of monitor `index`, in [0, 1).
double grid_phase(std::uint64_t seed, std::size_t index) {
  const std::uint64_t mixed = (seed + 0x9e3779b97f4a7c15ULL * (index + 1)) * 0xbf58476d1ce4e5b9ULL;
  return static_cast<double>(mixed >> 11) * 0x1.0p-53;
}

MonitorConfig config_of(const BoardState& state, const PowerMonitorSpec& m) {
  const auto it = state.monitor_config.find(m.device_name());
  return it == state.monitor_config.end() ? MonitorConfig{} : it->second;
}

bool same_config(const MonitorConfig& a, const MonitorConfig& b) {
  return a.samples == b.samples && a.conversion_us == b.conversion_us;
}

std::string gpu_names(const BoardSpec& spec) {
  std::string out;
  for (const GpuSpec& g : spec.gpus) out += (out.empty() ? "" : ", ") + g.devfreq_name;
  return out.empty() ? "none" : out;
}

Result<ModelControls> initial_controls(const BoardSpec& spec, const LiveOptions& options) {
  ModelControls controls{idle_state(spec), options.cpu_load_permille.value_or(0), {}};
  for (const auto& [name, value] : options.overrides) {
    Result<std::string> id = resolve_rail(spec, name);
    if (!id) return make_error(id.error().code, "--rail " + name + ": " + id.error().message);
    controls.overrides[*id] = value;
  }
  return controls;
}

}  // namespace

Result<std::unique_ptr<LiveBoard>> LiveBoard::create(BoardSpec spec, const LiveOptions& options, Clock clock) {
  Result<ModelControls> controls = initial_controls(spec, options);
  if (!controls) return controls.take_error();
  return std::unique_ptr<LiveBoard>(
      new LiveBoard(std::move(spec), options, std::move(clock), std::move(controls).value()));
}

LiveBoard::LiveBoard(BoardSpec spec, const LiveOptions& options, Clock clock, ModelControls controls)
    : spec_(std::move(spec)),
      clock_(std::move(clock)),
      started_ns_(clock_()),
      history_ns_(std::max(options.history_ns, kMinHistoryNs)),
      model_(spec_, std::move(controls), started_ns_, options.model),
      cpu_pinned_(options.cpu_load_permille.has_value()) {
  for (std::size_t i = 0; i < spec_.monitors.size(); ++i) {
    const PowerMonitorSpec& m = spec_.monitors[i];
    const MonitorConfig config = config_of(model_.controls().board, m);
    timings_.push_back({initial_timing(spec_, m, config, started_ns_, grid_phase(options.model.seed, i))});
    memos_.emplace_back(m.channels.size());
  }
}

Status LiveBoard::record(ModelControls controls) {
  const std::int64_t now = std::max(clock_(), model_.last_event_ns());
  restart_changed_monitors(model_.controls().board, controls.board, now);
  Status updated = model_.update(now, std::move(controls));
  model_.forget_before(now - history_ns_);
  return updated;
}

void LiveBoard::restart_changed_monitors(const BoardState& before, const BoardState& after, std::int64_t t_ns) {
  for (std::size_t i = 0; i < spec_.monitors.size(); ++i) {
    const MonitorConfig config = config_of(after, spec_.monitors[i]);
    if (same_config(config_of(before, spec_.monitors[i]), config)) continue;
    std::vector<ConversionTiming>& history = timings_[i];
    history.push_back(restarted_timing(spec_.monitors[i], config, t_ns));
    drop_unreachable_timings(history);
  }
}

void LiveBoard::catch_up() const { model_.advance_to(std::max(clock_(), model_.last_event_ns())); }

BoardState LiveBoard::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  catch_up();
  const std::int64_t now = clock_();
  BoardState state = model_.governed();
  model_.fill_clock_stats(state, now);
  std::size_t rail = 0;
  for (std::size_t i = 0; i < spec_.monitors.size(); ++i) {
    const PowerMonitorSpec& m = spec_.monitors[i];
    int slot = 0;
    for (std::size_t c = 0; c < m.channels.size(); ++c, ++rail) {
      const ChannelSpec& channel = m.channels[c];
      if (channel.disabled) continue;
      state.rails[rail_id(m, channel)] = read_channel(model_, rail, m, channel, slot++, timings_[i], now, memos_[i][c]);
    }
  }
  return state;
}

Status LiveBoard::write(const Node& node, std::string_view text) {
  std::lock_guard<std::mutex> lock(mutex_);
  catch_up();
  ModelControls controls = model_.controls();
  controls.board = model_.governed();  // a store may copy the current frequency
  Status written = node.write(controls.board, text);
  if (!written) return written;
  return record(std::move(controls));
}

Status LiveBoard::set_gpu_load(std::string_view gpu, std::uint32_t permille) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (spec_.gpus.empty()) return make_error(ErrorCode::kNotFound, spec_.id + " has no GPU");
  const std::string name = gpu.empty() ? spec_.gpus.front().devfreq_name : std::string(gpu);
  ModelControls controls = model_.controls();
  const auto it = controls.board.gpus.find(name);
  if (it == controls.board.gpus.end()) {
    return make_error(ErrorCode::kNotFound, "no GPU '" + name + "' (GPUs: " + gpu_names(spec_) + ")");
  }
  it->second.load_permille = std::min(permille, 1000u);
  return record(std::move(controls));
}

void LiveBoard::pin_cpu_load(std::optional<std::uint32_t> permille, std::uint32_t peak_permille) {
  std::lock_guard<std::mutex> lock(mutex_);
  cpu_pinned_ = permille.has_value();
  if (!permille) return;
  ModelControls controls = model_.controls();
  controls.cpu_load_permille = std::min(*permille, 1000u);
  controls.cpu_peak_permille = std::min(peak_permille, 1000u);
  (void)record(std::move(controls));  // cannot fail: record() never goes back in time
}

void LiveBoard::feed_host_cpu_load(std::uint32_t permille) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (cpu_pinned_ || (model_.controls().cpu_load_permille == permille && model_.controls().cpu_peak_permille == 0))
    return;
  ModelControls controls = model_.controls();
  controls.cpu_load_permille = std::min(permille, 1000u);
  controls.cpu_peak_permille = 0;  // the host's aggregate share only (A30)
  (void)record(std::move(controls));
}

bool LiveBoard::cpu_load_pinned() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cpu_pinned_;
}

Status LiveBoard::set_rail(std::string_view name, RailState value) {
  std::lock_guard<std::mutex> lock(mutex_);
  Result<std::string> id = resolve_rail(spec_, name);
  if (!id) return id.take_error();
  ModelControls controls = model_.controls();
  controls.overrides[*id] = value;
  return record(std::move(controls));
}

Status LiveBoard::clear_rail(std::string_view name) {
  std::lock_guard<std::mutex> lock(mutex_);
  ModelControls controls = model_.controls();
  if (name.empty()) {
    controls.overrides.clear();
    return record(std::move(controls));
  }
  Result<std::string> id = resolve_rail(spec_, name);
  if (!id) return id.take_error();
  if (controls.overrides.erase(*id) == 0) {
    return make_error(ErrorCode::kState, "rail '" + std::string(name) + "' has no override");
  }
  return record(std::move(controls));
}

Result<std::vector<std::size_t>> LiveBoard::rails_named(std::string_view rail) const {
  if (rail != kTotalRail) {
    Result<std::size_t> one = model_.rail(rail);
    if (!one) return one.take_error();
    return std::vector<std::size_t>{*one};
  }
  std::vector<std::size_t> out;
  for (int r : model_.topology().total_rails) out.push_back(static_cast<std::size_t>(r));
  if (out.empty()) return make_error(ErrorCode::kNotFound, spec_.id + " has no total rails");
  return out;
}

Status LiveBoard::check_range(std::int64_t t0_ns, std::int64_t t1_ns, std::int64_t now) const {
  const std::string range = "[" + std::to_string(t0_ns) + ", " + std::to_string(t1_ns) + "] ns";
  if (t0_ns > t1_ns) return make_error(ErrorCode::kInvalid, "interval " + range + " ends before it starts");
  if (t1_ns > now) {
    return make_error(ErrorCode::kInvalid,
                      "interval " + range + " reaches into the future (now is " + std::to_string(now) + " ns)");
  }
  if (t0_ns < model_.history_start_ns()) {
    return make_error(ErrorCode::kInvalid, "interval " + range + " starts before the retained history (from " +
                                               std::to_string(model_.history_start_ns()) + " ns)");
  }
  return ok_status();
}

Result<double> LiveBoard::energy_uj(std::string_view rail, std::int64_t t0_ns, std::int64_t t1_ns) const {
  std::lock_guard<std::mutex> lock(mutex_);
  catch_up();
  Result<std::vector<std::size_t>> rails = rails_named(rail);
  if (!rails) return rails.take_error();
  Status in_range = check_range(t0_ns, t1_ns, clock_());
  if (!in_range) return in_range.take_error();
  double sum = 0;
  for (std::size_t r : *rails) sum += model_.energy_uj(r, t0_ns, t1_ns);
  return sum;
}

Result<double> LiveBoard::power_mw(std::string_view rail, std::int64_t t_ns) const {
  std::lock_guard<std::mutex> lock(mutex_);
  catch_up();
  Result<std::vector<std::size_t>> rails = rails_named(rail);
  if (!rails) return rails.take_error();
  Status in_range = check_range(t_ns, t_ns, clock_());
  if (!in_range) return in_range.take_error();
  double sum = 0;
  for (std::size_t r : *rails) sum += model_.power_mw(r, t_ns);
  return sum;
}

void LiveBoard::inspect(const std::function<void(const PowerModel& model, std::int64_t now_ns)>& visit) const {
  std::lock_guard<std::mutex> lock(mutex_);
  catch_up();
  visit(model_, clock_());
}

}  // namespace energy::sim
