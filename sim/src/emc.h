// The memory clock (EMC): its governor, its share of the DDR power, and its
// files in the board tree, per generation (jetson-sysfs.md 3.5, sim/README.md
// "The memory clock", assumption A48).
//
// Governor (actmon-like, instantaneous): the memory demand is the largest of
// the CPU load, the busiest CPU's load and every GPU's load; the rate is the
// lowest listed rate >= max x demand / kEmcFullDemand within the limits, so
// a demand of kEmcFullDemand or more holds the top rate. A pin wins: locked
// with a written rate (bpmp mrq_rate_locked + rate, T210 clk_state +
// clk_update_rate), or Thor's devfreq limits / performance / powersave.
//
// Units: Hz; demand 0..1.
// Thread-safety: pure functions; the tree's store functions change only the
// BoardState they are given.
#pragma once

#include <cstdint>

#include "energysim/board_spec.h"
#include "energysim/board_state.h"
#include "energysim/tree.h"
#include "model_power.h"

namespace energy::sim {

// Demand at or above which the governor holds the top rate (A48: the
// reference's Nano under load shows EMC 1600 MHz, its top, at GR3D 45 %).
inline constexpr double kEmcFullDemand = 0.4;

// The memory demand of a control state, 0..1.
double emc_demand(const ModelControls& controls);
// The rate the EMC runs at; 0 when the board's EMC is not modelled.
std::uint64_t emc_governed_hz(const EmcSpec& spec, const EmcState& state, double demand);
// How much longer memory time takes at `rate_hz` than at the top rate:
// top / rate (1 when not modelled or 0).
double emc_slowdown(const EmcSpec& spec, std::uint64_t rate_hz);

// The board's EMC files (none when not modelled).
void add_emc(Tree& tree, const EmcSpec& spec);

}  // namespace energy::sim
