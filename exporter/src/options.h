// Options: energyd-exporter's command line (docs/man/energyd-exporter.8).
//
//   --listen ADDR:PORT   where /metrics is served (default 127.0.0.1:9862)
//   --socket PATH        energyd's socket (default $ENERGYD_SOCKET or /run/energyd/energyd.sock)
//   --timeout-ms N       bound on each wait for energyd, 1-60000 (default 2000)
//   --help, --version
//
// Every bad value is an error naming the option, what came and what was expected.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "energy/result.h"
#include "http_server.h"

namespace energy::exporter {

struct Options {
  ListenAddress listen;
  std::string socket_path;
  std::chrono::milliseconds timeout{2000};
  bool help = false;
  bool version = false;
};

Result<Options> parse_options(const std::vector<std::string>& args);
std::string usage();

}  // namespace energy::exporter
