// The energy counters a group of sweep tail frames carries (internal to
// libenergy): store_tail.cpp replays them, StoreCounters reads them for a
// reader.
//
// Thread-safety: a pure function.
#pragma once

#include <optional>
#include <vector>

#include "energy/store_counters.h"
#include "energy/sweep_tail.h"

namespace energy {

// The counters of the last frame of the group that has them.
std::optional<StoredCounters> last_counters(const std::vector<TailFrame>& frames);

}  // namespace energy
