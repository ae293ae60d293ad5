// EnergyCounters: each rail's running energy since the counters were created,
// counted from the sweeps as the StorageWriter takes them, for the
// `energy.counters` verb (the Prometheus exporter's joule counters).
//
// Downtime is not energy: a process starts each rail afresh at its first
// valid reading, so the time energyd was down (or a rail had no valid
// reading before) adds nothing. A failed read is bridged by the trapezoid of
// its valid neighbours, as the store integrates (integrate.h). Readings are
// quantized as the store keeps them (to_stored_ns, stored_power_uw), so the
// counters agree with the store's energy over any window the daemon ran.
//
// Continuity across restarts, kill -9 included: the StorageWriter counts
// the sweeps it drains under the lock under which it drains them, and takes
// the counters' snapshot there; the snapshot is stored in the transaction
// that stores those sweeps (StoreCounters::put, schema 6). The
// `energy.counters` verb adds the sweeps still queued to a copy
// (StorageWriter::counters_now, snapshot_with), so it counts every sweep
// taken. The stored counters therefore always count exactly the stored
// sweeps, and a restarted energyd continues from them (restore). The
// counters carry a random `counters_id` and their creation time; a new id
// means the counters started again from zero.
//
// Units: joules as double microjoules (uJ) inside, ns times.
// Thread-safety: every member from any thread. count holds the lock for one
// trapezoid per rail and never waits on I/O.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "energy/chunker.h"
#include "energy/rail_reader.h"
#include "energy/rail_total.h"
#include "energy/result.h"
#include "energy/store.h"
#include "sampler.h"

namespace energy::daemon {

struct CounterRail {
  std::string label;
  int64_t power_unit_uw = 0;  // codec.h's unit of the driver's power file; 0: none
};

struct CountersSnapshot {
  std::string counters_id;      // 16 hex digits, new when the counters start from zero
  int64_t created_wall_ns = 0;  // when they did
  std::vector<std::string> labels;
  std::vector<double> energy_uj;  // parallel to labels
};

class EnergyCounters final {
 public:
  // Fresh counters (a new id) stamped `now_wall_ns`, at zero.
  EnergyCounters(std::vector<CounterRail> rails, int64_t now_wall_ns);

  // One sweep's readings (`rails` of them at `values`), taken at `t_ns`.
  // The StorageWriter counts the sweeps it drains, under the lock under
  // which it drains them, not on the sampler's thread (issue 16).
  struct SweepView {
    int64_t t_ns = 0;
    const RailValue* values = nullptr;
    size_t rails = 0;
  };
  // Adds one sweep.
  void count(const SweepView& sweep);
  void count(const Sample& sample) { count(SweepView{sample.t_ns, sample.values.data(), sample.values.size()}); }
  // Continues stored counters: their id and creation time, and their joules
  // added, by rail label, to what was counted since this process began
  // (nothing, unless the database could not be opened at first). Rails the
  // record does not name keep what they counted; rails it names that are
  // gone are dropped.
  void restore(const StoredCounters& stored);
  // Adds sweeps a killed process took but did not store (the sweep ring's,
  // sweep_ring.h), integrated from `resume` (each rail's last stored valid
  // reading, parallel to the rails), as that process would have counted
  // them. The cursors of this process's own sweeps are left alone.
  void count_recovered(const std::vector<Sample>& sweeps, const std::vector<RailCursor>& resume);
  CountersSnapshot snapshot() const;
  // The snapshot as it would be with `pending` counted too (sweeps queued
  // and not yet counted, oldest first); the counters stay as they are.
  CountersSnapshot snapshot_with(const std::vector<SweepView>& pending) const;

 private:
  struct Cursor {
    bool has_last = false;
    int64_t last_t_ns = 0;
    int64_t last_power_uw = 0;
  };
  static void add_value(const CounterRail& rail, int64_t t_ns, const RailValue& v, Cursor& c, double& energy_uj);

  std::vector<CounterRail> rails_;
  mutable std::mutex mu_;  // guards the members below
  std::string id_;
  int64_t created_wall_ns_ = 0;
  std::vector<Cursor> cursors_;
  std::vector<double> energy_uj_;
};

// The snapshot as the store keeps it.
StoredCounters to_stored(const CountersSnapshot& s);

// The counters file of energyd before schema 6 (state_dir/energy-counters.json,
// JSON {format "energyd-counters", version 1, counters_id, created_wall_ns,
// energy_uj {label: uJ}}), read once to move it into the database. nullopt
// when there is no file; a damaged file is an error naming it and the field.
Result<std::optional<StoredCounters>> read_counters_file(const std::string& path);

// The `energy.counters` result (docs/PROTOCOL.md): counters_id,
// created_wall_ns, rails [{label, energy_j}], total {rails, energy_j} (the
// sum over select_total_rails' rails).
nlohmann::json counters_verb_json(const CountersSnapshot& s);

// The random id of fresh counters: 16 lowercase hex digits.
std::string new_counters_id();

}  // namespace energy::daemon
