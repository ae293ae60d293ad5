#include "connection_runs.h"

namespace energy::daemon {

void ConnectionRuns::starting(uint64_t connection) { ++connections_[connection].starting; }

bool ConnectionRuns::started(uint64_t connection, std::optional<int64_t> run_id) {
  auto it = connections_.find(connection);
  if (it == connections_.end()) return false;  // not announced by starting(): nothing to track
  Entry& e = it->second;
  if (e.starting > 0) --e.starting;
  bool closed = e.closed;
  if (run_id && !closed) e.runs.insert(*run_id);
  drop_if_idle(it);
  return closed && run_id.has_value();
}

void ConnectionRuns::forget(int64_t run_id) {
  for (auto it = connections_.begin(); it != connections_.end();) {
    auto next = std::next(it);
    it->second.runs.erase(run_id);
    drop_if_idle(it);
    it = next;
  }
}

std::vector<int64_t> ConnectionRuns::take(uint64_t connection) {
  auto it = connections_.find(connection);
  if (it == connections_.end()) return {};
  std::vector<int64_t> out(it->second.runs.begin(), it->second.runs.end());
  it->second.runs.clear();
  it->second.closed = true;
  drop_if_idle(it);
  return out;
}

// A connection is kept while it holds runs or has starts in flight.
void ConnectionRuns::drop_if_idle(std::map<uint64_t, Entry>::iterator it) {
  if (it->second.runs.empty() && it->second.starting == 0) connections_.erase(it);
}

}  // namespace energy::daemon
