// The `status` verb: what energyd knows about the board, its rails, its
// sampling and its storage, as JSON (see docs/PROTOCOL.md).
//
// Thread-safety: loop thread; reads the sampler and writer through their
// thread-safe accessors.
#pragma once

#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "energy/board.h"
#include "energy/clocks.h"
#include "energy/time_source.h"
#include "energy/config.h"
#include "energy/rails.h"
#include "averaging_settings.h"
#include "energy/store.h"
#include "sampler.h"
#include "writer.h"

namespace energy::daemon {

struct StatusSources {
  DaemonConfig config;
  BoardIdentity board;
  SensorInventory inventory;
  ClockInventory clocks;
  std::vector<ChipAveraging> averaging;  // what energyd did to the hwmon chips' samples at start
  int64_t started_boot_ns = 0;
};

nlohmann::json status_json(const StatusSources& src, const Sampler& sampler, const StorageWriter& writer,
                           const std::vector<RunRecord>& open_runs, const Clock& clock);

// The `rails` verb: every rail with its files, live reading and whether it
// is part of the module total; skipped channels; the sensors' refresh.
nlohmann::json rails_verb_json(const StatusSources& src, const Sampler& sampler);

// The `clocks` verb, from states read off the loop thread.
nlohmann::json clocks_verb_json(const ClockInventory& inv, const std::vector<DomainState>& states,
                                const std::vector<ThermalReading>& thermal);

// One row of an export page: boot_id, rail, t_ns, wall_ns and the reading
// (voltage_mv, current_ma, power_uw) or its errno.
nlohmann::json export_row_json(const Store::ExportRow& row);

// One page of the `export` verb from the database at `db_path` (opened here,
// on the caller's thread). `cancelled` (if set) is asked now and then while
// the page is built; true stops it with a `state` error (its client left).
Result<nlohmann::json> export_page(const std::string& db_path, int64_t since_wall_ns, int64_t until_wall_ns,
                                   const std::string& rail, const std::function<bool()>& cancelled = {});

}  // namespace energy::daemon
