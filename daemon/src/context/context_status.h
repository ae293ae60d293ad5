// The `context` object of the `status` verb: how the board context
// (clocks, governors, temperatures for run reports) is being polled and
// stored (docs/PROTOCOL.md).
//
// Thread-safety: a pure function of values.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "context_poller.h"
#include "writer.h"

namespace energy::daemon {

nlohmann::json context_status_json(int64_t clock_poll_ms, int64_t thermal_poll_ms, const ContextPollerStats& poller,
                                   const WriterStats& writer);

}  // namespace energy::daemon
