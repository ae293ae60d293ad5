#include "connection_runs.h"

namespace energy::daemon {

void ConnectionRuns::add(uint64_t connection, int64_t run_id) { runs_[connection].insert(run_id); }

void ConnectionRuns::forget(int64_t run_id) {
  for (auto it = runs_.begin(); it != runs_.end();) {
    it->second.erase(run_id);
    it = it->second.empty() ? runs_.erase(it) : std::next(it);
  }
}

std::vector<int64_t> ConnectionRuns::take(uint64_t connection) {
  auto it = runs_.find(connection);
  if (it == runs_.end()) return {};
  std::vector<int64_t> out(it->second.begin(), it->second.end());
  runs_.erase(it);
  return out;
}

}  // namespace energy::daemon
