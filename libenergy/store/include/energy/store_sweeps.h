// StoreSweeps: the sweeps of a Store (schema 8; records in sweep_records.h).
// A sweep groups stopped runs by grid point and repeat. The writing calls
// check everything before they write, so a refusal leaves the open
// transaction untouched: kNotFound for an unknown sweep or run, kState for
// a run still open or already in a sweep, a complete sweep, a second
// measure run at the same (point, repeat) and a transition
// sweep_transition_allowed refuses. Other errors are the database's
// (kStorage, kCorrupt). Obtained from Store::sweeps(); it shares the
// Store's connection and transaction.
//
// Thread-safety: that of its Store (one thread at a time).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "energy/result.h"
#include "energy/store_runs.h"
#include "energy/sweep_records.h"

namespace energy {

class StoreSweeps {
 public:
  StoreSweeps(sql::Db* db, StoreRuns& runs) : db_(db), runs_(runs) {}
  StoreSweeps(const StoreSweeps&) = delete;
  StoreSweeps& operator=(const StoreSweeps&) = delete;

  Result<SweepRecord> create(const std::string& name, const std::string& spec_json, int64_t wall_ns);
  Result<SweepRecord> add_run(const SweepRunRecord& run, int64_t wall_ns);
  Result<SweepRecord> set_state(int64_t sweep_id, SweepState state, int64_t wall_ns);
  // With its spec; nullopt for an unknown id.
  Result<std::optional<SweepRecord>> by_id(int64_t sweep_id);
  // Without specs, newest first, at most filter.limit.
  Result<std::vector<SweepRecord>> find(const SweepFilter& filter);
  // A sweep's runs in the order they were added.
  Result<std::vector<SweepRunRecord>> runs(int64_t sweep_id);

 private:
  Status check_run(const SweepRunRecord& run);
  Result<SweepRecord> update(int64_t sweep_id, std::optional<SweepState> state, int64_t wall_ns);

  sql::Db* db_;
  StoreRuns& runs_;
};

}  // namespace energy
