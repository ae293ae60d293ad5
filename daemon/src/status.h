// The `status` verb: what energyd knows about the board, its rails, its
// sampling and its storage, as JSON (see docs/PROTOCOL.md).
//
// Thread-safety: loop thread; reads the sampler and writer through their
// thread-safe accessors.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "energy/board.h"
#include "energy/clock.h"
#include "energy/config.h"
#include "energy/rails.h"
#include "energy/store.h"
#include "sampler.h"
#include "writer.h"

namespace energy::daemon {

struct StatusSources {
  DaemonConfig config;
  BoardIdentity board;
  SensorInventory inventory;
  int64_t started_boot_ns = 0;
};

nlohmann::json status_json(const StatusSources& src, const Sampler& sampler, const StorageWriter& writer,
                           const std::vector<RunRecord>& open_runs, const Clock& clock);

}  // namespace energy::daemon
