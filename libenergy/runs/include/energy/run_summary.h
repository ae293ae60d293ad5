// Run summaries for listings (runs.list): a run's duration and module
// energy from the stored running energy (store.h), two O(log n) lookups per
// total rail, so a page of thousands of runs is answered without reading
// their samples. The full report (report.h) remains the authority: it
// chooses the total among the rails that have readings in the run and adds
// coverage, gaps and extremes.
//
// Units: J, W and s as floating point in JSON.
// Thread-safety: reentrant; the Store belongs to the calling thread.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "energy/result.h"
#include "energy/store.h"

namespace energy {

struct RunSummary {
  double duration_s = 0;
  std::optional<double> energy_j;     // nullopt: an edge of the run is in no tier (or no total rail)
  std::optional<double> avg_power_w;  // energy_j / duration_s
};

// The stored rails whose sum is the module total (select_total_rails).
Result<std::vector<StoredRail>> total_stored_rails(Store& store);

// The run's summary over [start_ns, end_ns]; end_ns is the stop, or for an
// open run the newest stored reading. Each rail's energy includes its
// averaging correction (averaging_correction.h), as run reports do.
Result<RunSummary> summarize_run(Store& store, const RunRecord& run, int64_t end_ns,
                                 const std::vector<StoredRail>& total_rails);

// {"duration_s", "energy_j", "avg_power_w"}; unknown figures are null.
nlohmann::json run_summary_json(const RunSummary& s);

}  // namespace energy
