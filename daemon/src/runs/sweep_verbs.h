// The sweep verbs (docs/PROTOCOL.md "Sweeps", docs/SWEEPS.md "Storage"):
// their answers as JSON, built on a Store the caller owns.
//
// Reads (sweep.list, sweep.show) run on RunQueries' worker from a reader
// connection. Writes (sweep.create, sweep.add_run, sweep.set_state) go
// through the StorageWriter (SweepWrites), in its transaction and synced
// before the reply, like a mark; never on the sampling path. A refusal
// (unknown sweep or run, a run still open or already in a sweep, a complete
// sweep, a second measure run at one point and repeat) reaches the client
// and leaves the transaction it rode in untouched.
//
// Thread-safety: the free functions are functions of the Store they are
// given; SweepWrites is called on the loop thread and replies there.
#pragma once

#include <cstdint>
#include <functional>

#include <nlohmann/json.hpp>

#include "energy/store.h"
#include "energy/time_source.h"
#include "event_loop.h"
#include "server.h"
#include "sweep_args.h"
#include "writer.h"

namespace energy::daemon {

// SWEEP: id, name, state, created_wall_ns, updated_wall_ns; with `spec`
// (parsed back into JSON) when asked; in listings `runs` (measure runs) and
// `points` (distinct points with a measure run).
enum class SweepDetail { kListing, kHeader, kWithSpec };
nlohmann::json sweep_json(const SweepRecord& sweep, SweepDetail detail);

// sweep.list: {"sweeps": [...]} newest first (+ "next_before_id" when more exist).
Result<nlohmann::json> list_sweeps(Store& store, const SweepFilter& filter);
// sweep.show: {"sweep": SWEEP with spec and runs}; each run carries
// runs.list's object for it under "run". kNotFound for an unknown id.
Result<nlohmann::json> show_sweep(Store& store, int64_t sweep_id);

// The writing verbs' work on the writer's store: {"sweep": SWEEP}.
Result<nlohmann::json> create_sweep(Store& store, const SweepCreateArgs& args, int64_t wall_ns);
Result<nlohmann::json> add_sweep_run(Store& store, const SweepRunRecord& run, int64_t wall_ns);
Result<nlohmann::json> set_sweep_state(Store& store, const SweepStateArgs& args, int64_t wall_ns);

class SweepWrites {
 public:
  // All three outlive this object.
  SweepWrites(StorageWriter& writer, Poster& poster, const Clock& clock)
      : writer_(writer), poster_(poster), clock_(clock) {}
  void create(const SweepCreateArgs& args, const Responder& r);
  void add_run(const SweepRunRecord& run, const Responder& r);
  void set_state(const SweepStateArgs& args, const Responder& r);

 private:
  using Work = std::function<Result<nlohmann::json>(Store&, int64_t wall_ns)>;
  void submit(Work work, const Responder& r);

  StorageWriter& writer_;
  Poster& poster_;
  const Clock& clock_;
};

}  // namespace energy::daemon
