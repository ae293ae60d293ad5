// Collector: asks energyd for what one scrape shows (status,
// energy.counters, clocks, clocks.leases) over its socket, one short-lived
// connection per scrape, every wait bounded by `timeout`.
//
// energyd down or refusing (not in the read group) is not an error here:
// the answers say up = false and why, so /metrics still answers (energyd_up 0).
//
// Thread-safety: reentrant.
#pragma once

#include <chrono>
#include <string>

#include "metrics.h"

namespace energy::exporter {

EnergydAnswers collect(const std::string& socket_path, std::chrono::milliseconds timeout);

}  // namespace energy::exporter
