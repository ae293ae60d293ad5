#include "discovery_watch.h"

#include <pthread.h>
#include <spdlog/spdlog.h>

namespace energy::daemon {

DiscoveryWatch::DiscoveryWatch(std::shared_ptr<ReadWatch> reads, std::chrono::milliseconds limit)
    : reads_(std::move(reads)), limit_(limit), thread_([this] { run(); }) {}

DiscoveryWatch::~DiscoveryWatch() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

bool DiscoveryWatch::stopped_within(std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, wait, [this] { return stop_; });
}

// Polls at a quarter of the limit: a stuck read is named at most 1.25 limits
// after it started, and once.
void DiscoveryWatch::run() {
  pthread_setname_np(pthread_self(), "discovery-watch");
  std::chrono::steady_clock::time_point reported{};
  while (!stopped_within(limit_ / 4)) {
    ReadWatch::Reading r = reads_->current();
    if (r.board_path.empty() || r.since == reported) continue;
    auto stuck = std::chrono::steady_clock::now() - r.since;
    if (stuck < limit_) continue;
    reported = r.since;
    spdlog::warn(
        "discovery: reading {} has not returned for {} ms; energyd is not ready until it does (a driver or "
        "bus may be stuck; SIGTERM stops energyd)",
        r.board_path, std::chrono::duration_cast<std::chrono::milliseconds>(stuck).count());
  }
}

}  // namespace energy::daemon
