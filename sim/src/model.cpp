#include "model.h"

#include <algorithm>
#include <cmath>

#include "energysim/board_state.h"
#include "governor.h"
#include "thermal.h"

namespace energy::sim {
namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;
// Ripple frequencies: 3.1 Hz + up to 6 Hz, below 10 Hz and so never a multiple of it.
constexpr double kRippleMinHz = 3.1;
constexpr double kRippleSpanHz = 6.0;
// Seeds the governor samples' lateness apart from the ripples (same seed).
constexpr std::uint64_t kGridStream = 0x6a09e667f3bcc909ULL;

// SplitMix64: a seeded sequence that is the same on every platform and compiler.
class SplitMix {
 public:
  explicit SplitMix(std::uint64_t seed) : state_(seed) {}
  double next_unit() {  // [0, 1)
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
  }

 private:
  std::uint64_t state_;
};

std::vector<Ripple> make_ripples(std::size_t rails, const ModelOptions& options) {
  SplitMix random(options.seed);
  std::vector<Ripple> out;
  for (std::size_t r = 0; r < rails; ++r) {
    const double frequency = kRippleMinHz + kRippleSpanHz * random.next_unit();
    out.push_back(Ripple{options.ripple_fraction, frequency, kTwoPi * random.next_unit()});
  }
  return out;
}

// Compensated (Neumaier) sum: long intervals add many segments.
class Sum {
 public:
  void add(double x) {
    const double t = sum_ + x;
    compensation_ += std::fabs(sum_) >= std::fabs(x) ? (sum_ - t) + x : (x - t) + sum_;
    sum_ = t;
  }
  double value() const { return sum_ + compensation_; }

 private:
  double sum_ = 0;
  double compensation_ = 0;
};

bool same_levels(const std::vector<RailLevel>& a, const std::vector<RailLevel>& b) {
  for (std::size_t r = 0; r < a.size(); ++r) {
    const double tolerance = 1e-9 * std::max(1.0, std::fabs(a[r].power_mw));
    if (std::fabs(a[r].power_mw - b[r].power_mw) > tolerance || a[r].bus_mv != b[r].bus_mv) return false;
    if (a[r].ripple != b[r].ripple) return false;
  }
  return a.size() == b.size();
}

}  // namespace

PowerModel::PowerModel(BoardSpec spec, ModelControls controls, std::int64_t start_ns, const ModelOptions& options,
                       double ambient_offset_c)
    : spec_(std::move(spec)),
      topology_(build_topology(spec_)),
      controls_(std::move(controls)),
      origin_ns_(start_ns),
      clocks_(spec_, governed_state(spec_, controls_, nullptr)),
      accounted_ns_(start_ns),
      next_heat_ns_(start_ns + kThermalStepNs),
      cpu_window_ns_(start_ns),
      gpu_window_ns_(start_ns),
      governor_late_ns_(std::max<std::int64_t>(0, options.governor_late_ns)),
      grid_state_(options.seed ^ kGridStream) {
  next_cpu_ns_ = start_ns + kCpuSampleNs + late_ns();
  next_gpu_ns_ = start_ns + kGpuSampleNs + late_ns();
  ripples_ = make_ripples(topology_.rails.size(), options);
  init_thermal(topology_, spec_, ambient_offset_c, dyn_);
  sync_board();
  segments_.push_back(Segment{start_ns, rail_levels(topology_, spec_, controls_, &dyn_)});
}

std::vector<std::int64_t> PowerModel::event_times() const {
  std::vector<std::int64_t> out;
  for (const Segment& s : segments_) out.push_back(s.start_ns);
  return out;
}

Status PowerModel::update(std::int64_t t_ns, ModelControls controls) {
  if (t_ns < last_event_ns()) {
    return make_error(ErrorCode::kInvalid, "event at " + std::to_string(t_ns) + " ns precedes the latest event at " +
                                               std::to_string(last_event_ns()) + " ns");
  }
  const std::uint32_t fan_before = controls_.board.fan_pwm;
  advance_to(t_ns);
  accumulate(t_ns);
  if (controls.board.fan_pwm != fan_before) {
    dyn_.fan_manual = true;
    dyn_.fan_pwm = std::min(controls.board.fan_pwm, 255u);
  }
  controls_ = std::move(controls);
  sync_board();
  push_levels(t_ns, true);
  return ok_status();
}

std::int64_t PowerModel::next_grid_ns() const { return std::min({next_cpu_ns_, next_gpu_ns_, next_heat_ns_}); }

std::int64_t PowerModel::late_ns() {
  if (governor_late_ns_ == 0) return 0;
  SplitMix random(grid_state_);
  grid_state_ += 0x9e3779b97f4a7c15ULL;
  return static_cast<std::int64_t>(random.next_unit() * static_cast<double>(governor_late_ns_));
}

void PowerModel::advance_to(std::int64_t t_ns) {
  while (true) {
    const std::int64_t next = next_grid_ns();
    if (next > t_ns) return;
    accumulate(next);
    tick(next);
    push_levels(std::max(next, last_event_ns()), false);
  }
}

BoardState PowerModel::governed() const {
  BoardState state = governed_state(spec_, controls_, &dyn_);
  state.thermal_mc = zone_readings_mc(spec_, dyn_);
  return state;
}

void PowerModel::accumulate(std::int64_t t_ns) {
  if (t_ns <= accounted_ns_) return;
  const double dt = static_cast<double>(t_ns - accounted_ns_);
  const std::uint32_t cpu_util = std::max(controls_.cpu_load_permille, controls_.cpu_peak_permille);
  cpu_busy_ns_ += dt * std::min(cpu_util, 1000u) / 1000.0;
  for (const auto& [name, gpu] : controls_.board.gpus)
    gpu_busy_ns_[name] += dt * std::min(gpu.load_permille, 1000u) / 1000.0;
  accounted_ns_ = t_ns;
}

void PowerModel::tick(std::int64_t t_ns) {
  if (t_ns == next_cpu_ns_) {
    const auto window = static_cast<double>(t_ns - cpu_window_ns_);
    cpu_governor_step(spec_, governed_state(spec_, controls_, &dyn_), cpu_busy_ns_ / window, dyn_);
    cpu_busy_ns_ = 0;
    cpu_window_ns_ = t_ns;
    next_cpu_ns_ = t_ns + kCpuSampleNs + late_ns();
  }
  if (t_ns == next_gpu_ns_) {
    const auto window = static_cast<double>(t_ns - gpu_window_ns_);
    std::map<std::string, double> util;
    for (const auto& [name, busy] : gpu_busy_ns_) util[name] = busy / window;
    gpu_governor_step(spec_, governed_state(spec_, controls_, &dyn_), util, dyn_);
    gpu_busy_ns_.clear();
    gpu_window_ns_ = t_ns;
    next_gpu_ns_ = t_ns + kGpuSampleNs + late_ns();
  }
  if (t_ns == next_heat_ns_) {
    heat_step(t_ns);
    next_heat_ns_ += kThermalStepNs;
  }
}

void PowerModel::heat_step(std::int64_t t_ns) {
  std::vector<double> mean;
  for (std::size_t r = 0; r < topology_.rails.size(); ++r)
    mean.push_back(mean_level_mw(r, t_ns - kThermalStepNs, t_ns));
  thermal_step(spec_, heat_input(topology_, mean), static_cast<double>(kThermalStepNs) / kNsPerS, dyn_);
  apply_trips(spec_, governed_state(spec_, controls_, &dyn_), dyn_);
  sync_board();
}

void PowerModel::sync_board() {
  controls_.board.thermal_mc = zone_readings_mc(spec_, dyn_);
  controls_.board.fan_pwm = dyn_.fan_pwm;
}

void PowerModel::push_levels(std::int64_t t_ns, bool always) {
  clocks_.observe(t_ns, governed_state(spec_, controls_, &dyn_));
  std::vector<RailLevel> levels = rail_levels(topology_, spec_, controls_, &dyn_);
  if (!always && same_levels(levels, segments_.back().levels)) return;
  if (t_ns == last_event_ns()) {
    segments_.back().levels = std::move(levels);
  } else {
    segments_.push_back(Segment{t_ns, std::move(levels)});
  }
}

double PowerModel::mean_level_mw(std::size_t rail, std::int64_t t0_ns, std::int64_t t1_ns) const {
  Sum sum;
  for (std::size_t s = segment_index(t0_ns); s < segments_.size(); ++s) {
    const std::int64_t a = std::max(t0_ns, s == 0 ? t0_ns : segments_[s].start_ns);
    const std::int64_t b = s + 1 < segments_.size() ? std::min(t1_ns, segments_[s + 1].start_ns) : t1_ns;
    if (b > a) sum.add(segments_[s].levels[rail].power_mw * static_cast<double>(b - a));
    if (b >= t1_ns) break;
  }
  return t1_ns > t0_ns ? sum.value() / static_cast<double>(t1_ns - t0_ns) : 0.0;
}

void PowerModel::forget_before(std::int64_t t_ns) {
  while (segments_.size() > 1 && segments_[1].start_ns <= t_ns) segments_.pop_front();
}

Result<std::size_t> PowerModel::rail(std::string_view name) const {
  Result<std::string> id = resolve_rail(spec_, name);
  if (!id) return id.take_error();
  for (std::size_t r = 0; r < topology_.rails.size(); ++r) {
    if (topology_.rails[r].id == *id) return r;
  }
  return make_error(ErrorCode::kNotFound, "rail " + *id + " is not modelled");
}

std::size_t PowerModel::segment_index(std::int64_t t_ns) const {
  const auto after = std::upper_bound(segments_.begin(), segments_.end(), t_ns,
                                      [](std::int64_t t, const Segment& s) { return t < s.start_ns; });
  return after == segments_.begin() ? 0 : static_cast<std::size_t>(after - segments_.begin()) - 1;
}

const RailLevel& PowerModel::level(std::size_t rail, std::int64_t t_ns) const {
  return segments_[segment_index(t_ns)].levels[rail];
}

double PowerModel::phase(std::size_t rail, std::int64_t t_ns) const {
  const Ripple& r = ripples_[rail];
  return kTwoPi * r.frequency_hz * static_cast<double>(t_ns - origin_ns_) / kNsPerS + r.phase_rad;
}

double PowerModel::power_mw(std::size_t rail, std::int64_t t_ns) const {
  const RailLevel& l = level(rail, t_ns);
  const double a = l.ripple ? ripples_[rail].amplitude : 0.0;
  return l.power_mw * (1 + a * std::sin(phase(rail, t_ns)));
}

double PowerModel::current_ma(std::size_t rail, std::int64_t t_ns) const {
  const RailLevel& l = level(rail, t_ns);
  return l.bus_mv > 0 ? power_mw(rail, t_ns) * 1000.0 / l.bus_mv : 0.0;
}

// The integral over [a, b] inside one segment, in (unit) x ms:
//   A (b - a) + A a (cos th(a) - cos th(b)) / w,
// with cos x - cos y = 2 sin((x + y) / 2) sin((y - x) / 2), which does not
// cancel for short windows.
double PowerModel::piece(std::size_t rail, const RailLevel& level, std::int64_t a_ns, std::int64_t b_ns,
                         Quantity q) const {
  const double duration_ms = static_cast<double>(b_ns - a_ns) / kNsPerMs;
  if (q == Quantity::kVoltage) return level.bus_mv * duration_ms;
  const double base =
      q == Quantity::kPower ? level.power_mw : (level.bus_mv > 0 ? level.power_mw * 1000.0 / level.bus_mv : 0.0);
  const Ripple& r = ripples_[rail];
  if (!level.ripple || r.amplitude == 0 || r.frequency_hz <= 0) return base * duration_ms;
  const double omega_per_ms = kTwoPi * r.frequency_hz / 1000.0;
  const double x = phase(rail, a_ns);
  const double y = phase(rail, b_ns);
  const double cos_difference = 2 * std::sin((x + y) / 2) * std::sin((y - x) / 2);
  return base * duration_ms + base * r.amplitude * cos_difference / omega_per_ms;
}

double PowerModel::integral(std::size_t rail, std::int64_t t0_ns, std::int64_t t1_ns, Quantity q) const {
  if (t1_ns < t0_ns) return -integral(rail, t1_ns, t0_ns, q);
  Sum sum;
  for (std::size_t s = segment_index(t0_ns); s < segments_.size(); ++s) {
    const std::int64_t a = std::max(t0_ns, s == 0 ? t0_ns : segments_[s].start_ns);
    const std::int64_t b = s + 1 < segments_.size() ? std::min(t1_ns, segments_[s + 1].start_ns) : t1_ns;
    if (b > a) sum.add(piece(rail, segments_[s].levels[rail], a, b, q));
    if (b >= t1_ns) break;
  }
  return sum.value();
}

double PowerModel::energy_uj(std::size_t rail, std::int64_t t0_ns, std::int64_t t1_ns) const {
  return integral(rail, t0_ns, t1_ns, Quantity::kPower);
}

double PowerModel::charge_uc(std::size_t rail, std::int64_t t0_ns, std::int64_t t1_ns) const {
  return integral(rail, t0_ns, t1_ns, Quantity::kCurrent);
}

double PowerModel::bus_mv_ms(std::size_t rail, std::int64_t t0_ns, std::int64_t t1_ns) const {
  return integral(rail, t0_ns, t1_ns, Quantity::kVoltage);
}

}  // namespace energy::sim
