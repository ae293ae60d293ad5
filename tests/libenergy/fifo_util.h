// Test helper: runs code that must not block on a FIFO, and releases it if it
// does (energyd before bounded opens waited forever in open() or read()), so
// that a regression fails the test instead of hanging it.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <future>
#include <string>
#include <thread>

namespace energy::testing {

// Creates a FIFO at `path`; false on failure.
inline bool make_fifo(const std::string& path) { return ::mkfifo(path.c_str(), 0600) == 0; }

// True if `fn` returned within `limit`. Otherwise opens and closes the
// FIFO's other ends until `fn` returns, then false.
inline bool returns_without_blocking(const std::string& fifo, const std::function<void()>& fn,
                                     std::chrono::milliseconds limit = std::chrono::milliseconds(2000)) {
  ::signal(SIGPIPE, SIG_IGN);  // a released writer must not kill the test
  auto done = std::async(std::launch::async, fn);
  if (done.wait_for(limit) == std::future_status::ready) return true;
  while (done.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready) {
    int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // releases a blocked reader (EOF)
    if (w >= 0) ::close(w);
    int r = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // releases a blocked writer
    if (r >= 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      ::close(r);
    }
  }
  return false;
}

}  // namespace energy::testing
