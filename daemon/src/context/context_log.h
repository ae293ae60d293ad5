// ContextLog: the storage writer's part of the board context
// (energy/context.h): change rows from the ContextPoller wait here until the
// writer's next transaction stores them with the samples and marks queued
// with them, so a mark's commit holds every row pushed before the mark.
// Rows stay pending while commits fail (at most max_pending; beyond, the
// oldest are dropped and counted).
//
// Daemon restarts: at the first open of the database in this process, the
// polling of an earlier daemon of this boot is ended (StoreContext::close)
// at that daemon's last stored sweep, so the downtime is unknown in reports
// rather than credited to the last values it polled. At a later open (the
// writer reopens after repeated failures, or a damaged file was replaced by
// a fresh one), the latest value of every source is written again, since
// the file may not hold it.
//
// Thread-safety: the writer's thread only (and the owner before start()).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "energy/context.h"
#include "energy/store.h"

namespace energy::daemon {

class ContextLog {
 public:
  explicit ContextLog(size_t max_pending) : max_pending_(max_pending) {}

  void add(std::vector<ContextChange> rows);
  // The database was (re)opened; now_ns: the newest sweep's time (0 if none yet).
  Status opened(Store& store, int64_t boot, int64_t now_ns);
  // Inside the writer's transaction.
  Status write(Store& store, int64_t boot);
  // The transaction that wrote the pending rows committed.
  void committed();

  int64_t pending() const { return static_cast<int64_t>(pending_.size()); }
  int64_t written() const { return written_; }
  int64_t dropped() const { return dropped_; }

 private:
  using Key = std::pair<ContextKind, std::string>;
  Result<int64_t> source_id(Store& store, const ContextChange& c);

  size_t max_pending_;
  std::deque<ContextChange> pending_;
  std::map<Key, ContextChange> latest_;  // every source's newest row pushed
  std::map<Key, int64_t> ids_;           // source ids in the open database
  bool opened_before_ = false;
  bool uncommitted_ = false;  // write() ran and its transaction has not committed
  int64_t written_ = 0;
  int64_t dropped_ = 0;
};

}  // namespace energy::daemon
