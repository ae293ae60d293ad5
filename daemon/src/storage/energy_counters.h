// EnergyCounters: each rail's running energy since the counters were created,
// kept in memory from the sweeps as they pass to the writer, for the
// `energy.counters` verb (the Prometheus exporter's joule counters).
//
// Downtime is not energy: a process starts each rail afresh at its first
// valid reading, so the time energyd was down (or a rail had no valid
// reading before) adds nothing. A failed read is bridged by the trapezoid of
// its valid neighbours, as the store integrates (integrate.h). Readings are
// quantized as the store keeps them (to_stored_ns, stored_power_uw), so the
// counters agree with the store's energy over any window the daemon ran.
//
// Continuity across restarts: the joules of every rail are saved in a small
// JSON file (by rail label) and loaded at start; a process killed between
// saves loses at most the time since the last save (the exporter keeps its
// counters monotonic). The file carries a random `counters_id` and its
// creation time; a new id means the counters started again from zero.
//
// Units: joules as double microjoules (uJ) inside, ns times.
// Thread-safety: push_sample on the sampling thread; snapshot, save and load
// from any thread. push_sample holds the lock for one trapezoid per rail and
// never waits on I/O (save copies under the lock and writes outside it).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "energy/rails.h"
#include "energy/result.h"
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

class EnergyCounters final : public SampleSink {
 public:
  // `next` receives every sweep after it is counted. `path`: the counters
  // file (empty: kept in memory only). `now_wall_ns` stamps new counters.
  EnergyCounters(std::vector<CounterRail> rails, SampleSink& next, std::string path, int64_t now_wall_ns);

  // Loads the saved joules of rails with the same label; a missing file
  // starts from zero. A damaged file is an error naming it and what is wrong
  // (the counters then start from zero under a new id, and the next save
  // replaces the file).
  Status load();
  // Writes the counters (temporary file renamed over the old one); `durable`
  // also fsyncs (at stop), the periodic save does not.
  enum class Sync { kNo, kYes };
  Status save(Sync sync) const;
  void push_sample(const Sample& sample) override;
  CountersSnapshot snapshot() const;

 private:
  struct Cursor {
    bool has_last = false;
    int64_t last_t_ns = 0;
    int64_t last_power_uw = 0;
  };
  void add_value(size_t i, int64_t t_ns, const RailValue& v);
  Status apply_saved(const std::string& text);

  std::vector<CounterRail> rails_;
  SampleSink& next_;
  std::string path_;
  mutable std::mutex mu_;  // guards the members below
  std::string id_;
  int64_t created_wall_ns_ = 0;
  std::vector<Cursor> cursors_;
  std::vector<double> energy_uj_;
};

// The `energy.counters` result (docs/PROTOCOL.md): counters_id,
// created_wall_ns, rails [{label, energy_j}], total {rails, energy_j} (the
// sum over select_total_rails' rails).
nlohmann::json counters_verb_json(const CountersSnapshot& s);

// The random id of fresh counters: 16 lowercase hex digits.
std::string new_counters_id();

}  // namespace energy::daemon
