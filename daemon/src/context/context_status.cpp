#include "context_status.h"

namespace energy::daemon {

nlohmann::json context_status_json(int64_t clock_poll_ms, int64_t thermal_poll_ms, const ContextPollerStats& p,
                                   const WriterStats& w) {
  return {{"clock_poll_ms", clock_poll_ms},
          {"thermal_poll_ms", thermal_poll_ms},
          {"clock_polls", p.clock_polls},
          {"governor_polls", p.governor_polls},
          {"thermal_polls", p.thermal_polls},
          {"requested_polls", p.requested_polls},
          {"clock_poll_p50_ns", p.clock_poll_p50_ns},
          {"clock_poll_p99_ns", p.clock_poll_p99_ns},
          {"clock_poll_max_ns", p.clock_poll_max_ns},
          {"thermal_poll_p50_ns", p.thermal_poll_p50_ns},
          {"thermal_poll_max_ns", p.thermal_poll_max_ns},
          {"counted_clocks", p.counted_clocks},
          {"counter_fallbacks", p.counter_fallbacks},
          {"stalls", p.stalls},
          {"gaps", p.gaps},
          {"rows", p.rows},
          {"rows_written", w.context_rows_written},
          {"rows_pending", w.context_rows_pending},
          {"rows_dropped", w.context_rows_dropped},
          {"rows_aged_out", w.retention.context_rows_deleted}};
}

}  // namespace energy::daemon
