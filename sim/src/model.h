// PowerModel: the live power model of one simulated board over time - the
// exact ground truth energyd is tested against.
//
// State changes (load steps, clock writes, rail overrides) are events at
// instants of CLOCK_BOOTTIME in ns; each starts a segment in which every
// rail's level (model_power.h) is constant. Within a segment a rail's true
// power is analytic,
//     P(t) = A (1 + a sin(w (t - t_origin) + phi)),
// A the segment's level, a the ripple amplitude (0 for overrides), w / phi
// the rail's seeded ripple frequency (3.1 .. 9.1 Hz, never a multiple of
// 10 Hz, so 10 Hz sampling aliases it) and phase. The bus voltage V is
// constant in a segment and the current is P / V. So every integral over
// any interval is a closed form summed over the segments it spans: energy
// (uJ = mW x ms), charge (uC = mA x ms) and voltage-time (mV x ms).
//
// The board's own dynamics (dynamics.h: sampled governors, temperatures,
// leakage, trip caps, fan) advance on fixed model-time grids from start_ns;
// a grid instant whose decision changes any rail level is an event like any
// other, so levels stay piecewise constant and the integrals exact.
// advance_to() runs the grids up to an instant; update() does so first.
//
// The model never reads a clock; every call takes its instant. Times before
// the first retained segment see that segment's levels (the board was at rest
// before the simulator started; forget_before() drops old segments).
//
// Thread-safety: none; LiveBoard serialises every call.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "clock_counters.h"
#include "dynamics.h"
#include "energy/result.h"
#include "energysim/board_spec.h"
#include "model_power.h"

namespace energy::sim {

struct ModelOptions {
  std::uint64_t seed = 1;         // ripple frequencies and phases
  double ripple_fraction = 0.03;  // amplitude a, relative to the level
  // Each governor sample up to this late (seeded; 0: exact 20 / 50 ms grids,
  // which the fitted studies assume; the live board: kGovernorLateNs, A40).
  std::int64_t governor_late_ns = 0;
};

struct Ripple {
  double amplitude = 0;     // a
  double frequency_hz = 0;  // w / 2 pi
  double phase_rad = 0;     // phi
};

class PowerModel {
 public:
  // ambient_offset_c: ambient above the reference's idle temperatures (a hot room), degC.
  PowerModel(BoardSpec spec, ModelControls controls, std::int64_t start_ns, const ModelOptions& options,
             double ambient_offset_c = 0.0);

  const BoardSpec& spec() const { return spec_; }
  const PowerTopology& topology() const { return topology_; }
  const ModelControls& controls() const { return controls_; }  // the latest
  std::int64_t origin_ns() const { return origin_ns_; }
  std::int64_t history_start_ns() const { return segments_.front().start_ns; }
  std::int64_t last_event_ns() const { return segments_.back().start_ns; }
  // The next instant of the dynamics' grids (a governor sample or thermal step).
  std::int64_t next_grid_ns() const;
  std::vector<std::int64_t> event_times() const;  // start of every retained segment

  // New controls from t_ns on; kInvalid if t_ns precedes the latest event.
  // The dynamics own the temperatures and the fan: controls.board's
  // thermal_mc is ignored, and a fan_pwm that differs from controls().board's
  // is a write that holds the fan (its curve stops).
  Status update(std::int64_t t_ns, ModelControls controls);
  // Runs the dynamics' grid instants <= t_ns (none before the latest event).
  void advance_to(std::int64_t t_ns);
  const DynamicState& dynamics() const { return dyn_; }
  // What the files show: governed_state() with the dynamics, zone readings.
  BoardState governed() const;
  // The clock domains' residency counters (ClockStats) as of t_ns, which
  // must not precede the latest event or grid instant run, into `state`.
  void fill_clock_stats(BoardState& state, std::int64_t t_ns) const { clocks_.fill(state, t_ns); }
  // Drops the segments that end at or before t_ns (the last one is kept).
  void forget_before(std::int64_t t_ns);

  // A rail by label or rail id (board_state.h's resolve_rail rules).
  Result<std::size_t> rail(std::string_view name) const;
  std::size_t rail_count() const { return topology_.rails.size(); }
  const Ripple& ripple(std::size_t rail) const { return ripples_[rail]; }

  const RailLevel& level(std::size_t rail, std::int64_t t_ns) const;
  double power_mw(std::size_t rail, std::int64_t t_ns) const;
  double current_ma(std::size_t rail, std::int64_t t_ns) const;

  // Exact integrals over [t0_ns, t1_ns]; t1_ns < t0_ns gives the negated value.
  double energy_uj(std::size_t rail, std::int64_t t0_ns, std::int64_t t1_ns) const;
  double charge_uc(std::size_t rail, std::int64_t t0_ns, std::int64_t t1_ns) const;
  double bus_mv_ms(std::size_t rail, std::int64_t t0_ns, std::int64_t t1_ns) const;

 private:
  struct Segment {
    std::int64_t start_ns = 0;
    std::vector<RailLevel> levels;
  };
  enum class Quantity { kPower, kCurrent, kVoltage };

  std::size_t segment_index(std::int64_t t_ns) const;
  double integral(std::size_t rail, std::int64_t t0_ns, std::int64_t t1_ns, Quantity q) const;
  double piece(std::size_t rail, const RailLevel& level, std::int64_t a_ns, std::int64_t b_ns, Quantity q) const;
  double phase(std::size_t rail, std::int64_t t_ns) const;
  void accumulate(std::int64_t t_ns);  // busy time under controls_ up to t_ns
  void tick(std::int64_t t_ns);        // the samples due at t_ns
  std::int64_t late_ns();              // the next governor sample's lateness
  void heat_step(std::int64_t t_ns);
  void sync_board();  // controls_.board's temperatures and fan from dyn_
  void push_levels(std::int64_t t_ns, bool always);
  double mean_level_mw(std::size_t rail, std::int64_t t0_ns, std::int64_t t1_ns) const;  // without ripple

  BoardSpec spec_;
  PowerTopology topology_;
  ModelControls controls_;
  std::int64_t origin_ns_ = 0;
  std::vector<Ripple> ripples_;
  std::deque<Segment> segments_;
  ClockCounters clocks_;  // after spec_, controls_: built from them
  DynamicState dyn_;
  std::int64_t accounted_ns_ = 0;  // busy time is accumulated up to here
  double cpu_busy_ns_ = 0;
  std::map<std::string, double> gpu_busy_ns_;
  std::int64_t next_cpu_ns_ = 0;
  std::int64_t next_gpu_ns_ = 0;
  std::int64_t next_heat_ns_ = 0;
  std::int64_t cpu_window_ns_ = 0;     // where the CPU governor's current window began
  std::int64_t gpu_window_ns_ = 0;     // and the GPU governor's
  std::int64_t governor_late_ns_ = 0;  // ModelOptions::governor_late_ns
  std::uint64_t grid_state_ = 0;       // its seeded sequence
};

}  // namespace energy::sim
