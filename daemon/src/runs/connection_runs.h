// Runs that end with the connection that opened them (mark.start's
// "end_with_connection": true): if the connection closes while such a run
// is still open, energyd stops it, tagged energyd.interrupted =
// connection-closed, and its run lease (mark.start's `pin`) ends with it.
// `energyctl sweep` uses this, so an energyctl killed with SIGKILL leaves
// no open run and no pinned clock behind.
//
// Only bookkeeping: which open runs each connection holds. The daemon adds
// a run when it opens, forgets it when it is stopped, and takes a
// connection's runs when the connection closes.
//
// Thread-safety: none; the daemon uses it on the loop thread only.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace energy::daemon {

constexpr const char* kRunInterruptedTag = "energyd.interrupted";
constexpr const char* kConnectionClosed = "connection-closed";

class ConnectionRuns {
 public:
  void add(uint64_t connection, int64_t run_id);
  // The run was stopped (by anyone): nothing to do when its connection closes.
  void forget(int64_t run_id);
  // The connection closed: its runs still recorded, now forgotten.
  std::vector<int64_t> take(uint64_t connection);

 private:
  std::map<uint64_t, std::set<int64_t>> runs_;
};

}  // namespace energy::daemon
