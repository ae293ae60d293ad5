// The info verbs as JSON (docs/PROTOCOL.md): `status` (what energyd knows
// about the board, its rails, its sampling and its storage), `rails` and
// `clocks`.
//
// Thread-safety: loop thread; reads the sampler and writer through their
// thread-safe accessors.
#pragma once

#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "averaging_settings.h"
#include "energy/board.h"
#include "energy/clocks.h"
#include "energy/config.h"
#include "energy/rails.h"
#include "energy/store.h"
#include "energy/time_source.h"
#include "period_check.h"
#include "sampler.h"
#include "writer.h"

namespace energy::daemon {

struct StatusSources {
  DaemonConfig config;
  BoardIdentity board;
  SensorInventory inventory;
  ClockInventory clocks;
  std::vector<ChipAveraging> averaging;  // what energyd did to the hwmon chips' samples at start
  PeriodAdvice period;                   // what the monitors' averaging asks of the period (period_check.h)
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

}  // namespace energy::daemon
