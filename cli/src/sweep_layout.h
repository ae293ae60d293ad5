// What a stored sweep's points are, read back from its spec (the JSON
// `energyctl sweep` stores with sweep.create, format 1: docs/SWEEPS.md
// "Storage"): the clock axes (domain, frequencies in Hz), the parameter
// axes and whether DVFS reference points were added. Point i is the i-th
// point of plan_points (sweep_plan.h) over those axes, as the sweep ran it.
//
// Only the fields the results need are read; a spec without a usable
// "axes" is an error naming what is missing.
//
// Thread-safety: pure functions on values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "energy/result.h"

namespace energy::cli {

struct LayoutPoint {
  std::vector<int64_t> hz;          // parallel to SweepLayout::domains; empty for DVFS
  std::vector<std::string> params;  // parallel to SweepLayout::params
  bool dvfs = false;
};

struct SweepLayout {
  std::vector<std::string> domains;  // clock axes in spec order ("cpu", "gpu", "emc")
  std::vector<std::string> params;   // parameter names in spec order
  std::vector<LayoutPoint> points;
  std::optional<double> items_per_run;  // the spec's fixed item count, when it has one
};

Result<SweepLayout> sweep_layout(const nlohmann::json& spec);

// "cpu 1190.4 MHz, gpu 624.75 MHz, batch=8"; "DVFS, batch=8"; "point 7"
// for an index the layout does not have.
std::string point_label(const SweepLayout& layout, size_t point);

}  // namespace energy::cli
