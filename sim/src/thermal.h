// The thermal model (sim/README.md "Heat"): one first-order RC node per
// thermal zone, heated by the power above idle, cooling towards ambient,
// stepped on PowerModel's kThermalStepNs grid with the mean power of the
// step just ended (an exact integral of the model). Leakage rises with
// temperature; passive trips cap clocks; the fan follows temperature and
// lowers the thermal resistance. Constants: sim/ASSUMPTIONS.md A43-A49.
//
// Zones by type: CPU (cpu*, BCPU, MCPU), GPU (gpu*), junction (tj*: its
// idle value + the largest rise of the others), fixed (PMIC-Die, which the
// reference shows at a constant 100 C, and zones whose reference idle value
// is <= 0, e.g. the Orin Nano's cv zones reading 0), board (all others).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "dynamics.h"
#include "energysim/board_spec.h"
#include "energysim/board_state.h"
#include "model_power.h"

namespace energy::sim {

enum class ZoneRole { kCpu, kGpu, kJunction, kFixed, kBoard };

ZoneRole zone_role(const ThermalZoneSpec& zone);

// Extra leakage of a component whose static power is static_mw at its idle
// temperature, rise_c above it: static_mw x (exp(k rise) - 1), k = ln 2 / 30.
double leakage_extra_mw(double static_mw, double rise_c);

// The temperature-dependent part of a component's power in state s (0 for
// components without leakage, a gated GPU or offline CPUs).
double component_leakage_mw(const Component& c, const BoardState& s, const DynamicState& dyn);

// Mean power above idle over the last step, in mW: of the module (the total
// rails), of the rails measuring CPUs and of those measuring GPUs.
struct HeatInput {
  double module_mw = 0;
  double cpu_mw = 0;
  double gpu_mw = 0;
};
HeatInput heat_input(const PowerTopology& topology, const std::vector<double>& mean_rail_mw);

// Zones at idle + ambient offset, rises and fan from them, and the full-load
// power that scales the thermal resistances: at full load (every CPU and
// GPU at the top of its table, load 1, fan off) a CPU or GPU zone settles
// 15 C (own rails) + 25 C (module) above idle, a board zone 25 C (A44), so
// every board warms alike whatever its power calibration.
void init_thermal(const PowerTopology& topology, const BoardSpec& spec, double ambient_offset_c, DynamicState& dyn);
// One step of dt_s seconds under `heat`: zone temperatures, rises, fan.
void thermal_step(const BoardSpec& spec, const HeatInput& heat, double dt_s, DynamicState& dyn);
// Passive trip caps from the zone temperatures and the governed clocks.
void apply_trips(const BoardSpec& spec, const BoardState& governed, DynamicState& dyn);
// The zones' `temp` readings in milli-degC.
std::vector<std::int32_t> zone_readings_mc(const BoardSpec& spec, const DynamicState& dyn);
// The fan curve: 0 below 50 C, linear to 255 at 80 C (of the hottest CPU/GPU zone).
std::uint32_t fan_curve_pwm(double hottest_c);
// The passive and hot trips of a CPU or GPU zone: the reference's, else 95 / 100 C (A47).
std::vector<double> zone_trips_c(const ThermalZoneSpec& zone);

}  // namespace energy::sim
