// The exporter's driver: parses the options, starts the HTTP server whose
// /metrics handler collects from energyd and renders, and waits for
// SIGTERM or SIGINT. Logs to stderr (the journal under systemd): energyd
// going away and coming back once per change, never once per scrape.
#pragma once

namespace energy::exporter {

// Returns the process exit code (0 after a stop signal, 1 on a start
// failure, 2 on a usage error).
int run_exporter(int argc, char** argv);

}  // namespace energy::exporter
