// Runs that end with the connection that opened them (mark.start's
// "end_with_connection": true): if the connection closes while such a run
// is still open, energyd stops it, tagged energyd.interrupted =
// connection-closed, and its run lease (mark.start's `pin`) ends with it.
// `energyctl sweep` uses this, so an energyctl killed with SIGKILL leaves
// no open run and no pinned clock behind.
//
// Only bookkeeping: which open runs each connection holds, and which
// starts are still in flight (a pinned start takes a while): a connection
// that closes while a start is in flight is remembered, and the run that
// start opens is stopped at once.
//
// Thread-safety: none; the daemon uses it on the loop thread only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace energy::daemon {

constexpr const char* kRunInterruptedTag = "energyd.interrupted";
constexpr const char* kConnectionClosed = "connection-closed";

class ConnectionRuns {
 public:
  // A mark.start with end_with_connection is under way on `connection`.
  void starting(uint64_t connection);
  // That start ended: `run_id` opened (nullopt: it failed). True when the
  // connection closed meanwhile: the caller stops the run now.
  bool started(uint64_t connection, std::optional<int64_t> run_id);
  // The run was stopped (by anyone): nothing to do when its connection closes.
  void forget(int64_t run_id);
  // The connection closed: its runs still recorded, now forgotten.
  std::vector<int64_t> take(uint64_t connection);

 private:
  struct Entry {
    std::set<int64_t> runs;
    int starting = 0;
    bool closed = false;
  };
  void drop_if_idle(std::map<uint64_t, Entry>::iterator it);

  std::map<uint64_t, Entry> connections_;
};

}  // namespace energy::daemon
