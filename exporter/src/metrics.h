// Metrics: turns energyd's answers (docs/PROTOCOL.md: `status`,
// `energy.counters`, `clocks`, `clocks.leases`) into the exporter's metric
// families (docs/FLEET.md lists them with types and units).
//
// Cardinality is bounded by the board: one series per rail, clock domain and
// thermal zone; run names are capped at kMaxRunNames: open runs by name
// (sorted, the rest counted in energyd_open_runs only) and the last stopped
// run of each name among the kMaxRunNames newest stopped runs. Missing or malformed fields leave
// their metric out rather than failing the scrape; energyd_up says whether
// energyd answered at all.
//
// CounterGuard keeps the joule counters monotonic for Prometheus: a killed
// energyd restarts from the counters of its last commit (up to a flush
// interval behind what was scraped; the sweeps after that commit are lost
// from the store and the counters alike), so within one counters_id a lower
// value is held at the highest value served until energyd passes it again
// (rather than turned into a counter reset, which increase() would read as
// the whole counter). A new counters_id is a real reset.
//
// Thread-safety: CounterGuard and render from one thread (the HTTP server's).
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace energy::exporter {

// What one scrape got from energyd; a member is null when its verb failed.
struct EnergydAnswers {
  bool up = false;    // energyd answered `status`
  std::string error;  // why not, for the log
  nlohmann::json status;
  nlohmann::json counters;
  nlohmann::json clocks;
  nlohmann::json leases;
  nlohmann::json stopped_runs;  // runs.list state=stopped, newest first
  double scrape_seconds = 0;    // the time the queries took
};

class CounterGuard {
 public:
  // The value to serve for `key` given energyd's `value` under `counters_id`.
  double serve(const std::string& key, const std::string& counters_id, double value);

 private:
  struct Held {
    std::string counters_id;
    double value = 0;
  };
  std::map<std::string, Held> held_;
};

inline constexpr size_t kMaxRunNames = 32;

// The whole /metrics page.
std::string render_metrics(const EnergydAnswers& a, CounterGuard& guard, const std::string& exporter_version);

}  // namespace energy::exporter
