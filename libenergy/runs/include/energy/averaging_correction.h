// The averaging correction: what a running-mean register (rails.h
// RailInfo::filter_ns) hides at a window's edges.
//
// An INA3221 with averaging count N moves its register 1/N of the way to
// each new conversion, one conversion of a channel per cycle T_c. Summing
// y_k = y_{k-1} + (x_k - y_{k-1}) / N over a window gives
//   sum x_k = sum y_k + (N - 1) (y_end - y_begin),
// so the input's integral is the readings' integral plus
// K x (reading(end) - reading(begin)), K = (N - 1) T_c = filter_ns: the
// energy still inside the filter at the end minus what it held at the start.
// With N = 1 (K = 0) nothing changes. The readings at both edges come from
// the samples taken when the marks arrived.
//
// A rail's K can change once inside a window (energyd set the averaging
// while a run was open across a restart): the window is split there.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "energy/integrate.h"
#include "energy/store.h"

namespace energy {

struct FilterCorrection {
  double energy_uj = 0;     // add to the readings' integral
  double unknown_k_ns = 0;  // sum of K over stretches whose edge power is unknown (not corrected)
};

// power_at(t): the rail's readings at t (interpolated), nullopt if unknown.
FilterCorrection filter_correction(const StoredRail& rail, int64_t boot, EnergyWindow window,
                                   const std::function<std::optional<double>(int64_t)>& power_at);

}  // namespace energy
