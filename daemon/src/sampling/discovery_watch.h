// DiscoveryWatch: names the board file discovery is stuck on. Discovery runs
// on the main thread before energyd is ready; a FIFO can no longer block it
// (sysroot.h refuses anything but regular files), but a sysfs read that
// hangs inside a driver cannot be cancelled. While a DiscoveryWatch lives, a
// thread logs once per read that has not returned after `limit`, naming the
// file, so the journal says why energyd is not ready. SIGTERM is not blocked
// during discovery (daemon.cpp), so it still ends energyd then.
//
// Thread-safety: construct and destroy on one thread; the destructor joins.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "energy/sysroot.h"

namespace energy::daemon {

class DiscoveryWatch {
 public:
  DiscoveryWatch(std::shared_ptr<ReadWatch> reads, std::chrono::milliseconds limit);
  ~DiscoveryWatch();
  DiscoveryWatch(const DiscoveryWatch&) = delete;
  DiscoveryWatch& operator=(const DiscoveryWatch&) = delete;

 private:
  void run();
  bool stopped_within(std::chrono::milliseconds wait);

  std::shared_ptr<ReadWatch> reads_;
  std::chrono::milliseconds limit_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace energy::daemon
