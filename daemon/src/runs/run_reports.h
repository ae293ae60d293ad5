// The run report as mark.stop and runs.show give it (docs/PROTOCOL.md):
// energy per rail and in total (report.h), the idle baseline with idle and
// net energy (baseline.h), the clocks stored with the run, and notes on how
// complete the figures are (an open run, an interrupted run, gaps).
//
// Thread-safety: reentrant; the Store belongs to the calling thread. A
// RunClocksFn must be callable from any thread (the writer stores the clocks
// with the stop; runs.show asks for an open run's clocks on its worker).
#pragma once

#include <cstdint>
#include <functional>

#include <nlohmann/json.hpp>

#include "energy/attribution.h"
#include "energy/result.h"
#include "energy/store.h"

namespace energy::daemon {

// {"clock_pins": [...], "clock_events": [...]} of run `run_id` over
// [start_ns, end_ns] (CLOCK_BOOTTIME).
using RunClocksFn = std::function<nlohmann::json(int64_t run_id, int64_t start_ns, int64_t end_ns)>;

// The report of `run` over [start_ns, end_ns], with its quality verdict
// (quality.h). `clocks`: the run's clock pins and events (stored with the
// stop, or live for an open run); null leaves them out. The run's own
// sampling period (energyd.period_ms) sets its gap threshold; a run without
// one is judged with `daemon_period_ns`, and its report says so.
Result<nlohmann::json> run_report_json(Store& store, const RunRecord& run, int64_t end_ns, int64_t daemon_period_ns,
                                       const nlohmann::json& clocks);

// The run's share of the CPU rails' energy from its CPU snapshots
// (attribution.h); not available, with the reason, where the board's CPU
// has no rail of its own or the store cannot give the energy.
CpuAttribution cpu_attribution(Store& store, const RunRecord& run, const std::vector<CpuSnapshot>& snapshots);

// The clocks stored with a stopped run, or null.
nlohmann::json stored_clocks(const RunRecord& run);

}  // namespace energy::daemon
