// Daemon: energyd's wiring. Discovers the board, opens the store, starts the
// sampler and the storage writer, serves the socket on an sd-event loop and
// shuts everything down in order (sampling stops, the writer flushes, the
// socket goes away) on SIGTERM or SIGINT.
//
// Thread-safety: construct and run on the main thread.
#pragma once

#include <memory>

#include "energy/config.h"
#include "energy/result.h"

namespace energy::daemon {

class DaemonImpl;

class Daemon {
 public:
  explicit Daemon(DaemonConfig config);
  ~Daemon();
  // Runs until a stop signal; returns the process exit code.
  int run();

 private:
  std::unique_ptr<DaemonImpl> impl_;
};

}  // namespace energy::daemon
