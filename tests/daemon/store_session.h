// A StoreSession opener over a database in a temporary directory, for unit
// tests of the daemon's storage writer and of what sits on it (RunManager).
// The opener does what energyd's does (boot row, rail rows, resume cursors,
// open runs of this boot, stored energy counters) without the damaged-file
// handling and without the old counters file.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "energy/store.h"
#include "energy/time_source.h"
#include "writer.h"

namespace energy::daemon::core_test {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/energyd-core-test-XXXXXX";
    if (::mkdtemp(tmpl) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Opens `path` as energyd's writer does; the runs left open by this boot come back.
inline Result<StoreSession> open_test_session(const std::string& path, const std::vector<RailInfo>& rails) {
  auto store = Store::open(path, StoreRole::kWriter, 1000);
  if (!store) return store.take_error();
  StoreSession s;
  auto boot = (*store)->ensure_boot(current_boot_id(), SystemClock().wall_ns());
  if (!boot) return boot.take_error();
  auto ids = (*store)->ensure_rails(rails);
  if (!ids) return ids.take_error();
  auto resume = (*store)->readings().resume_cursors(*boot, *ids);
  if (!resume) return resume.take_error();
  auto open = (*store)->runs().in_state(RunState::kOpen);
  if (!open) return open.take_error();
  for (const auto& r : rails) s.rails.push_back(ChunkRail{power_unit_uw(r.driver)});
  s.store = std::move(store).value();
  s.boot = *boot;
  s.rail_ids = std::move(ids).value();
  s.resume = std::move(resume).value();
  s.open_runs = std::move(open).value();
  auto counters = s.store->counters().get();
  if (!counters) return counters.take_error();
  s.counters = std::move(counters).value();
  return s;
}

// Polls `pred` (every millisecond, up to 10 s): for results of other threads.
template <typename Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  auto end = std::chrono::steady_clock::now() + timeout;
  while (!pred() && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return pred();
}

}  // namespace energy::daemon::core_test
