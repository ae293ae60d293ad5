// DaemonConfig: energyd's settings, their defaults, and the YAML file that
// may override them (default /etc/energyd/energyd.yaml; etc/energyd.yaml in
// the source tree documents every key with its default).
//
// Errors name the key and what was wrong with it; unknown keys are errors
// (a misspelt key would otherwise be ignored silently), and so are a key
// given twice, a second YAML document, an integer that is not plain decimal
// (0100, 0x40, 1e2, "100", true) and a path that is empty or relative.
//
// Thread-safety: plain values and reentrant functions.
#pragma once

#include <cstdint>
#include <string>

#include "energy/result.h"

namespace energy {

// What energyd does at start with the INA3221 hwmon chips' averaging count
// (`samples`), which decides what one reading covers (docs/BOARDS.md).
enum class SensorAveraging {
  kPeriod,  // set `samples` so that update_interval spans 4 x sample_period_ms; put back at stop
  kKeep,    // never write: readings are whatever the chips are set to
};
// "period" / "keep".
const char* sensor_averaging_name(SensorAveraging mode);
Result<SensorAveraging> parse_sensor_averaging(const std::string& text);

struct DaemonConfig {
  std::string root = "/";                      // board file system root
  std::string state_dir = "/var/lib/energyd";  // database directory
  std::string socket_path = "/run/energyd/energyd.sock";
  int64_t sample_period_ms = 100;  // rail sampling period
  // Whether the file or --sample-period-ms set it; if not, energyd derives
  // it from the monitors' averaging at start (daemon period_check.h).
  bool sample_period_given = false;
  SensorAveraging sensor_averaging = SensorAveraging::kPeriod;  // each reading a running mean over about 4 periods
  int64_t flush_interval_ms = 1000;                             // batched commit period
  int64_t checkpoint_interval_ms = 10000;                       // WAL sync period: the power-loss window for samples
  // Closed raw-tier chunks (600 sweeps each) the sweep tail holds before
  // they are committed to the database together (docs/PERFORMANCE.md, issue 16).
  int64_t seal_chunks = 15;
  std::string log_level = "info";  // trace|debug|info|warn|error
  // Retention (store.h RetentionPolicy): raw readings, then 1 s buckets, then
  // 1 min buckets, all within a disk budget for the database and its WAL.
  int64_t raw_retention_hours = 168;   // 7 days of full-rate readings
  int64_t second_retention_days = 90;  // 1 s buckets
  int64_t minute_retention_days = 0;   // 1 min buckets; 0: kept while the budget allows
  int64_t disk_budget_mb = 1024;       // MiB for database + WAL
  // Access control and client limits (docs/SECURITY.md). Groups are names or
  // numeric GIDs; an empty string disables that group (root only).
  std::string read_group = "energyd";           // status, rails, clocks, export, mark.*
  std::string clock_group = "energyd-clock";    // clocks.pin*, clocks.unpin* (and every read verb)
  int64_t max_connections_per_user = 16;        // open connections per client uid
  int64_t max_open_runs_per_user = 64;          // runs one uid may hold open (each costs memory and status size)
  int64_t client_deadline_ms = 10000;           // to finish a frame, or to take a pending reply
  int64_t client_output_limit_bytes = 8 << 20;  // unsent replies per connection before it is cut off
  // Board context for run reports (docs/CLOCKS.md "Residency"): how often the
  // clock domains' current frequency and governor, and the thermal zones,
  // are polled; 0 turns a poll off (runs then report it as unknown).
  int64_t clock_poll_ms = 100;
  int64_t thermal_poll_ms = 1000;
};

constexpr const char* kDefaultConfigPath = "/etc/energyd/energyd.yaml";

// Reads `path` (a regular file of at most 1 MiB; directories, FIFOs and
// devices are refused without blocking) and applies its keys on top of `base`.
Result<DaemonConfig> load_config_file(const std::string& path, const DaemonConfig& base);
// Applies YAML text (for tests and for the file loader).
Result<DaemonConfig> apply_config_yaml(const std::string& yaml_text, const std::string& source,
                                       const DaemonConfig& base);
// Checks ranges and relations between keys; root, state_dir and socket must
// be absolute paths (socket: at most 107 bytes, the sun_path limit).
Status validate_config(const DaemonConfig& config);

// A decimal integer: an optional '-' then digits, without leading zeros
// ("0" itself excepted), '+', hex/octal prefixes, fractions or exponents,
// within int64. Errors (kInvalid) quote the text.
Result<int64_t> parse_decimal_int(const std::string& text);

std::string database_path(const DaemonConfig& config);
// The retention keys as bytes and nanoseconds.
struct RetentionPolicy;
RetentionPolicy retention_policy(const DaemonConfig& config);

}  // namespace energy
