#include "context_tracker.h"

#include <algorithm>

#include "energy/tick_path.h"

namespace energy::daemon {

void ContextTracker::emit(ContextKind kind, const std::string& name, int64_t t_ns, const ContextValue& v,
                          std::vector<ContextChange>& out) {
  auto& last = last_[Key{kind, name}];
  last.v = v;
  last.t_ns = t_ns;
  out.push_back(ContextChange{kind, name, t_ns, v});
}

// The previous poll's values hold for one period; after that, until this
// poll, nothing was observed.
ENERGY_TICK_PATH void ContextTracker::begin_poll(int64_t t_ns, std::vector<ContextChange>& out) {
  if (!last_poll_end_ns_ || t_ns - *last_poll_end_ns_ <= limits_.gap_ns) return;
  const int64_t from = *last_poll_end_ns_ + limits_.period_ns;
  for (auto& [key, last] : last_) {
    if (last.v == ContextValue::unknown()) continue;
    emit(key.first, key.second, std::max(from, last.t_ns + 1), ContextValue::unknown(), out);
  }
}

ENERGY_TICK_PATH ContextTracker::Map::iterator ContextTracker::find(ContextKind kind, const std::string& name) {
  for (size_t i = 0; i < hint_count_; ++i) {
    const Hint& h = hints_[i];
    if (h.name == name.data() && h.kind == kind && h.it->first.second == name) return h.it;
  }
  auto it = last_.find(std::pair<ContextKind, std::string_view>(kind, name));
  if (it == last_.end()) return it;
  size_t slot = hint_count_ < hints_.size() ? hint_count_++ : hint_next_++ % hints_.size();
  hints_[slot] = Hint{kind, name.data(), it};
  return it;
}

ENERGY_TICK_PATH bool ContextTracker::observe(ContextKind kind, const std::string& name, int64_t start_ns,
                                              int64_t end_ns, const ContextValue& v, std::vector<ContextChange>& out) {
  auto it = find(kind, name);
  if (it == last_.end()) {
    emit(kind, name, end_ns, v, out);
    return true;
  }
  Last& last = it->second;
  bool stalled = end_ns - start_ns > limits_.stall_ns;
  if (stalled && last.v != ContextValue::unknown() && start_ns > last.t_ns) {
    emit(kind, name, start_ns, ContextValue::unknown(), out);
  }
  if (v != last.v && end_ns > last.t_ns) emit(kind, name, end_ns, v, out);
  return last.v == v;
}

void ContextTracker::forget_all(int64_t t_ns, std::vector<ContextChange>& out) {
  for (auto& [key, last] : last_) {
    if (last.v == ContextValue::unknown()) continue;
    emit(key.first, key.second, std::max(t_ns, last.t_ns + 1), ContextValue::unknown(), out);
  }
}

}  // namespace energy::daemon
