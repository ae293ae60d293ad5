// A check energyctl sweep makes before it starts: whether energyd's power
// monitors see every moment of a sampling period. A monitor averages over
// its update interval; when that is shorter than energyd's period (the
// Jetson Nano on L4T 32: 54 ms against 100 ms, fixed by its device tree),
// part of every period is never observed, and a workload whose phases
// repeat in step with the sampling is measured a few percent off at some
// sweep points (docs/SWEEPS.md, "Sampling period").
// Thread-safety: a pure function.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace energy::cli {

// The warning to print (one paragraph), or nothing when every monitor's
// update interval covers the period or `status` does not say (an older
// energyd: nothing is claimed either way).
std::optional<std::string> sampling_gap_warning(const nlohmann::json& status);

}  // namespace energy::cli
