#include "energy/scoped_run.h"

#include <utility>

namespace energy {

Result<ScopedRun> ScopedRun::start(Client& client, const std::string& name, const Tags& tags,
                                   StopCallback on_implicit_stop) {
  auto info = client.mark_start(name, tags);
  if (!info) return info.take_error();
  return ScopedRun(client, std::move(info).value(), std::move(on_implicit_stop));
}

ScopedRun::ScopedRun(Client& client, RunInfo info, StopCallback on_implicit_stop)
    : client_(&client), info_(std::move(info)), on_implicit_stop_(std::move(on_implicit_stop)) {}

ScopedRun::ScopedRun(ScopedRun&& other) noexcept
    : client_(std::exchange(other.client_, nullptr)),
      info_(std::move(other.info_)),
      on_implicit_stop_(std::move(other.on_implicit_stop_)),
      outcome_(std::move(other.outcome_)) {}

const Result<nlohmann::json>& ScopedRun::stop() {
  if (!outcome_) {
    if (client_ == nullptr) {
      outcome_.emplace(
          make_error(ErrorCode::kState, "run " + std::to_string(info_.id) + " was moved to another ScopedRun"));
    } else {
      outcome_.emplace(client_->mark_stop(info_.id));
    }
  }
  return *outcome_;
}

// Client calls report failures as values; the catch only guards against a
// throwing callback or an allocation failure, which must not escape a destructor.
ScopedRun::~ScopedRun() {
  if (client_ == nullptr || outcome_) return;
  try {
    const auto& outcome = stop();
    if (on_implicit_stop_) on_implicit_stop_(outcome);
  } catch (...) {
  }
}

}  // namespace energy
