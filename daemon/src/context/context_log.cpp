#include "context_log.h"

#include <algorithm>

namespace energy::daemon {

void ContextLog::add(std::vector<ContextChange> rows) {
  for (auto& r : rows) {
    latest_[{r.kind, r.name}] = r;
    pending_.push_back(std::move(r));
  }
  while (pending_.size() > max_pending_) {
    pending_.pop_front();
    ++dropped_;
  }
}

Status ContextLog::opened(Store& store, int64_t boot, int64_t now_ns) {
  ids_.clear();
  if (opened_before_) {
    for (const auto& [key, row] : latest_) {
      ContextChange again = row;
      again.t_ns = std::max(row.t_ns, now_ns);
      pending_.push_back(std::move(again));
    }
    return ok_status();
  }
  opened_before_ = true;
  auto last = store.readings().last_sample_ns(boot);
  if (!last) return last.take_error();
  auto closed = store.context().close(boot, last->value_or(INT64_MIN));
  if (!closed) return closed.take_error();
  return ok_status();
}

Result<int64_t> ContextLog::source_id(Store& store, const ContextChange& c) {
  Key key{c.kind, c.name};
  auto it = ids_.find(key);
  if (it != ids_.end()) return it->second;
  auto id = store.context().ensure_source(c.kind, c.name);
  if (id) ids_.emplace(std::move(key), *id);
  return id;
}

// Source ids created by a transaction that did not commit are gone with it.
Status ContextLog::write(Store& store, int64_t boot) {
  if (uncommitted_) ids_.clear();
  uncommitted_ = true;
  for (const auto& c : pending_) {
    auto id = source_id(store, c);
    if (!id) return id.take_error();
    auto st = store.context().put_row(boot, *id, ContextRow{c.t_ns, c.v});
    if (!st) return st;
  }
  return ok_status();
}

void ContextLog::committed() {
  uncommitted_ = false;
  written_ += static_cast<int64_t>(pending_.size());
  pending_.clear();
}

}  // namespace energy::daemon
