#include "energy/config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <vector>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "energy/store.h"
#include "energy/unique_fd.h"

namespace energy {
namespace {

constexpr int64_t kMinPeriodMs = 1;
constexpr int64_t kMaxPeriodMs = 60'000;
constexpr int64_t kMaxRetentionDays = 36'500;
constexpr int64_t kMaxSealChunks = 60;
// The budget must hold the raw data retention never takes (the newest
// minutes of every rail) plus the WAL's allowance, with room to spare.
constexpr int64_t kMinBudgetMb = 16;
constexpr int64_t kMaxBudgetMb = int64_t{16} * 1024 * 1024;
// energyd.yaml is a few KiB; the cap keeps a wrong --config from eating memory.
constexpr size_t kMaxConfigBytes = size_t{1} << 20;

Error key_error(const std::string& source, const std::string& key, const std::string& problem) {
  return make_error(ErrorCode::kInvalid, source + ": key '" + key + "': " + problem);
}

using Setter = std::function<Status(const YAML::Node&, const std::string&, DaemonConfig&)>;

Setter string_key(std::string DaemonConfig::*field) {
  return [field](const YAML::Node& n, const std::string& where, DaemonConfig& c) -> Status {
    if (!n.IsScalar()) return make_error(ErrorCode::kInvalid, where + ": expected a string");
    c.*field = n.as<std::string>();
    return ok_status();
  };
}

// What a scalar looked like, for error messages: its text, quoted if it was.
std::string shown(const YAML::Node& n) {
  if (!n.IsScalar()) return "a non-scalar";
  return n.Tag() == "!" ? "\"" + n.Scalar() + "\" (a quoted string)" : n.Scalar();
}

Result<int64_t> plain_int(const YAML::Node& n) {
  if (!n.IsScalar() || n.Tag() == "!") return make_error(ErrorCode::kInvalid, "not a plain scalar");
  return parse_decimal_int(n.Scalar());
}

// `unit` names what the number counts, for the error message ("milliseconds").
// Only a plain decimal scalar is an integer: YAML 1.1 would read 0100 as
// octal 64, 0x10 as 16, and a quoted "100" is a string.
Setter int_key(int64_t DaemonConfig::*field, const char* unit) {
  return [field, unit](const YAML::Node& n, const std::string& where, DaemonConfig& c) -> Status {
    auto v = plain_int(n);
    if (!v) {
      return make_error(ErrorCode::kInvalid,
                        where + ": expected a decimal integer number of " + unit + ", got '" + shown(n) + "'");
    }
    c.*field = *v;
    return ok_status();
  };
}

Setter sensor_averaging_key() {
  return [](const YAML::Node& n, const std::string& where, DaemonConfig& c) -> Status {
    std::string text = n.IsScalar() ? n.Scalar() : std::string("a non-scalar");
    auto mode = parse_sensor_averaging(n.IsScalar() ? text : std::string());
    if (!mode) return make_error(ErrorCode::kInvalid, where + ": expected period or keep, got '" + text + "'");
    c.sensor_averaging = *mode;
    return ok_status();
  };
}

const std::map<std::string, Setter>& setters() {
  static const std::map<std::string, Setter> kTable = {
      {"root", string_key(&DaemonConfig::root)},
      {"state_dir", string_key(&DaemonConfig::state_dir)},
      {"socket", string_key(&DaemonConfig::socket_path)},
      {"sample_period_ms", int_key(&DaemonConfig::sample_period_ms, "milliseconds")},
      {"sensor_averaging", sensor_averaging_key()},
      {"flush_interval_ms", int_key(&DaemonConfig::flush_interval_ms, "milliseconds")},
      {"checkpoint_interval_ms", int_key(&DaemonConfig::checkpoint_interval_ms, "milliseconds")},
      {"seal_chunks", int_key(&DaemonConfig::seal_chunks, "chunks")},
      {"log_level", string_key(&DaemonConfig::log_level)},
      {"raw_retention_hours", int_key(&DaemonConfig::raw_retention_hours, "hours")},
      {"second_retention_days", int_key(&DaemonConfig::second_retention_days, "days")},
      {"minute_retention_days", int_key(&DaemonConfig::minute_retention_days, "days")},
      {"disk_budget_mb", int_key(&DaemonConfig::disk_budget_mb, "MiB")},
      {"read_group", string_key(&DaemonConfig::read_group)},
      {"clock_group", string_key(&DaemonConfig::clock_group)},
      {"max_connections_per_user", int_key(&DaemonConfig::max_connections_per_user, "connections")},
      {"max_open_runs_per_user", int_key(&DaemonConfig::max_open_runs_per_user, "runs")},
      {"client_deadline_ms", int_key(&DaemonConfig::client_deadline_ms, "milliseconds")},
      {"client_output_limit_bytes", int_key(&DaemonConfig::client_output_limit_bytes, "bytes")},
      {"clock_poll_ms", int_key(&DaemonConfig::clock_poll_ms, "milliseconds")},
      {"thermal_poll_ms", int_key(&DaemonConfig::thermal_poll_ms, "milliseconds")},
  };
  return kTable;
}

// Line numbers are 1-based, as editors show them.
int line_of(const YAML::Node& n) { return n.Mark().line + 1; }

// Each key once: YAML parsers disagree on which of two equal keys wins, so
// neither does.
Result<DaemonConfig> apply_map(const YAML::Node& doc, const std::string& source, DaemonConfig out) {
  std::map<std::string, int> seen;  // key -> line
  for (const auto& kv : doc) {
    if (!kv.first.IsScalar()) return make_error(ErrorCode::kInvalid, source + ": a key must be a plain name");
    std::string key = kv.first.Scalar();
    auto it = setters().find(key);
    if (it == setters().end()) return key_error(source, key, "unknown key (see etc/energyd.yaml for the keys)");
    auto [prev, fresh] = seen.emplace(key, line_of(kv.first));
    if (!fresh) {
      return key_error(source, key,
                       "appears twice, on lines " + std::to_string(prev->second) + " and " +
                           std::to_string(line_of(kv.first)) + "; expected each key once");
    }
    std::string where = source + ": key '";
    where += key;
    where += '\'';
    auto st = it->second(kv.second, where, out);
    if (!st) return st.take_error();
    if (key == "sample_period_ms") out.sample_period_given = true;
  }
  return out;
}

// Reads at most kMaxConfigBytes of a regular file. The open does not block
// (a FIFO would wait for a writer) and anything but a regular file is
// refused: a directory reads as empty, /dev/zero never ends.
Result<std::string> read_config_text(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!fd) return errno_error("cannot open config file '" + path + "'");
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return errno_error("cannot stat config file '" + path + "'");
  if (!S_ISREG(st.st_mode)) {
    return make_error(ErrorCode::kInvalid, "config file '" + path + "' is " +
                                               (S_ISDIR(st.st_mode) ? "a directory" : "not a regular file") +
                                               "; expected a regular file");
  }
  std::string text;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot read config file '" + path + "'");
    if (n == 0) return text;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > kMaxConfigBytes) {
      return make_error(ErrorCode::kInvalid, "config file '" + path + "' is larger than " +
                                                 std::to_string(kMaxConfigBytes) +
                                                 " bytes; expected a small YAML file");
    }
  }
}

}  // namespace

const char* sensor_averaging_name(SensorAveraging mode) {
  switch (mode) {
    case SensorAveraging::kPeriod: return "period";
    case SensorAveraging::kKeep: return "keep";
  }
  return "unknown";
}

Result<SensorAveraging> parse_sensor_averaging(const std::string& text) {
  for (SensorAveraging m : {SensorAveraging::kPeriod, SensorAveraging::kKeep}) {
    if (text == sensor_averaging_name(m)) return m;
  }
  return make_error(ErrorCode::kInvalid, "sensor_averaging must be period or keep, got '" + text + "'");
}

Result<int64_t> parse_decimal_int(const std::string& text) {
  size_t digits_at = !text.empty() && text[0] == '-' ? 1 : 0;
  std::string digits = text.substr(digits_at);
  bool well_formed = !digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos &&
                     (digits.size() == 1 || digits[0] != '0');
  if (!well_formed) return make_error(ErrorCode::kInvalid, "'" + text + "' is not a decimal integer");
  int64_t v = 0;
  for (char ch : digits) {
    int d = ch - '0';
    if (v > (std::numeric_limits<int64_t>::max() - d) / 10) {
      return make_error(ErrorCode::kInvalid, "'" + text + "' is out of the 64-bit range");
    }
    v = v * 10 + d;
  }
  return digits_at == 1 ? -v : v;
}

namespace {

// Records where each YAML document starts; nothing else.
class DocumentStarts : public YAML::EventHandler {
 public:
  std::vector<int> lines;  // 1-based
  void OnDocumentStart(const YAML::Mark& mark) override { lines.push_back(mark.line + 1); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// The start lines of the text's first documents, at most `limit` of them.
// Walked with the parser, not YAML::LoadAll: yaml-cpp 0.7's LoadAll never
// returns on some malformed texts (",a:01" is one; fuzz_config found it),
// where the parser keeps reporting a document without consuming input.
std::vector<int> document_starts(const std::string& text, size_t limit) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  for (size_t i = 0; i < limit && parser.HandleNextDocument(starts); ++i) {
  }
  return starts.lines;
}

}  // namespace

Result<DaemonConfig> apply_config_yaml(const std::string& yaml_text, const std::string& source,
                                       const DaemonConfig& base) {
  try {
    std::vector<int> starts = document_starts(yaml_text, 2);
    if (starts.size() > 1) {
      return make_error(ErrorCode::kInvalid, source + ": holds more than one YAML document (a second starts on line " +
                                                 std::to_string(starts[1]) + "); expected one");
    }
    YAML::Node doc = YAML::Load(yaml_text);
    if (doc.IsNull()) return base;
    if (!doc.IsMap()) return make_error(ErrorCode::kInvalid, source + ": expected a mapping of keys to values");
    return apply_map(doc, source, base);
  } catch (const YAML::Exception& e) {
    return make_error(ErrorCode::kParse, source + ": " + e.what());
  }
}

Result<DaemonConfig> load_config_file(const std::string& path, const DaemonConfig& base) {
  if (path.empty()) return make_error(ErrorCode::kInvalid, "config file: empty path; expected a file name");
  auto text = read_config_text(path);
  if (!text) return text.take_error();
  return apply_config_yaml(*text, path, base);
}

// Each tier keeps at least as long as the finer one before it.
Status validate_retention(const DaemonConfig& c) {
  if (c.raw_retention_hours < 1 || c.raw_retention_hours > kMaxRetentionDays * 24) {
    return make_error(ErrorCode::kInvalid, "raw_retention_hours must be between 1 and " +
                                               std::to_string(kMaxRetentionDays * 24) + ", got " +
                                               std::to_string(c.raw_retention_hours));
  }
  // Bounded before the multiplication, which a huge value would overflow.
  if (c.second_retention_days < 1 || c.second_retention_days > kMaxRetentionDays ||
      c.second_retention_days * 24 < c.raw_retention_hours) {
    return make_error(ErrorCode::kInvalid, "second_retention_days must be between raw_retention_hours / 24 and " +
                                               std::to_string(kMaxRetentionDays) + ", got " +
                                               std::to_string(c.second_retention_days));
  }
  bool keep = c.minute_retention_days == 0;
  if (!keep && (c.minute_retention_days < c.second_retention_days || c.minute_retention_days > kMaxRetentionDays)) {
    return make_error(ErrorCode::kInvalid, "minute_retention_days must be 0 (keep) or between second_retention_days (" +
                                               std::to_string(c.second_retention_days) + ") and " +
                                               std::to_string(kMaxRetentionDays) + ", got " +
                                               std::to_string(c.minute_retention_days));
  }
  if (c.disk_budget_mb < kMinBudgetMb || c.disk_budget_mb > kMaxBudgetMb) {
    return make_error(ErrorCode::kInvalid, "disk_budget_mb must be between " + std::to_string(kMinBudgetMb) + " and " +
                                               std::to_string(kMaxBudgetMb) + ", got " +
                                               std::to_string(c.disk_budget_mb));
  }
  return ok_status();
}

namespace {

Status check_range(const char* key, int64_t value, int64_t lo, int64_t hi) {
  if (value >= lo && value <= hi) return ok_status();
  return make_error(ErrorCode::kInvalid, std::string(key) + " must be between " + std::to_string(lo) + " and " +
                                             std::to_string(hi) + ", got " + std::to_string(value));
}

Status validate_client_limits(const DaemonConfig& c) {
  auto st = check_range("max_connections_per_user", c.max_connections_per_user, 1, 4096);
  if (st) st = check_range("max_open_runs_per_user", c.max_open_runs_per_user, 1, 4096);
  if (st) st = check_range("client_deadline_ms", c.client_deadline_ms, 100, 3'600'000);
  if (st) st = check_range("client_output_limit_bytes", c.client_output_limit_bytes, 64 << 10, int64_t{1} << 30);
  return st;
}

// A poll period is 0 (off) or within its range: faster clock polls cost CPU
// for nothing a 100 ms energy sample can use; temperatures move slowly.
Status check_poll(const char* key, int64_t value, int64_t lo, int64_t hi) {
  if (value == 0 || (value >= lo && value <= hi)) return ok_status();
  return make_error(ErrorCode::kInvalid, std::string(key) + " must be 0 (off) or between " + std::to_string(lo) +
                                             " and " + std::to_string(hi) + " milliseconds, got " +
                                             std::to_string(value));
}

// Paths are absolute: the daemon's working directory is no part of its
// configuration, and an empty socket path would bind an abstract socket,
// which file permissions cannot protect.
Status check_path(const char* key, const std::string& value, size_t max_bytes) {
  bool absolute = !value.empty() && value[0] == '/' && value.find('\0') == std::string::npos;
  if (absolute && value.size() <= max_bytes) return ok_status();
  return make_error(ErrorCode::kInvalid, std::string(key) + " must be an absolute path of at most " +
                                             std::to_string(max_bytes) + " bytes, got '" + value + "'");
}

Status validate_paths(const DaemonConfig& c) {
  constexpr size_t kMaxPath = 4095;
  constexpr size_t kMaxSocketPath = sizeof(sockaddr_un::sun_path) - 1;  // with its terminating NUL
  auto st = check_path("root", c.root, kMaxPath);
  if (st) st = check_path("state_dir", c.state_dir, kMaxPath);
  if (st) st = check_path("socket", c.socket_path, kMaxSocketPath);
  return st;
}

Status validate_context_polls(const DaemonConfig& c) {
  auto st = check_poll("clock_poll_ms", c.clock_poll_ms, 10, 60'000);
  if (st) st = check_poll("thermal_poll_ms", c.thermal_poll_ms, 100, 600'000);
  return st;
}

// The tail holds seal_chunks closed chunks besides the open one; every
// reader decodes it after each append, so it is kept to an hour at 100 ms.
Status validate_storage(const DaemonConfig& c) { return check_range("seal_chunks", c.seal_chunks, 1, kMaxSealChunks); }

}  // namespace

Status validate_config(const DaemonConfig& c) {
  if (auto st = validate_paths(c); !st) return st;
  if (auto st = validate_client_limits(c); !st) return st;
  if (auto st = validate_context_polls(c); !st) return st;
  if (auto st = validate_storage(c); !st) return st;
  if (c.sample_period_ms < kMinPeriodMs || c.sample_period_ms > kMaxPeriodMs) {
    return make_error(ErrorCode::kInvalid,
                      "sample_period_ms must be between 1 and 60000, got " + std::to_string(c.sample_period_ms));
  }
  if (c.flush_interval_ms < c.sample_period_ms || c.flush_interval_ms > 600'000) {
    return make_error(ErrorCode::kInvalid, "flush_interval_ms must be between sample_period_ms (" +
                                               std::to_string(c.sample_period_ms) + ") and 600000, got " +
                                               std::to_string(c.flush_interval_ms));
  }
  if (c.checkpoint_interval_ms < c.flush_interval_ms || c.checkpoint_interval_ms > 3'600'000) {
    return make_error(ErrorCode::kInvalid, "checkpoint_interval_ms must be between flush_interval_ms (" +
                                               std::to_string(c.flush_interval_ms) + ") and 3600000, got " +
                                               std::to_string(c.checkpoint_interval_ms));
  }
  auto retention = validate_retention(c);
  if (!retention) return retention;
  static const char* const kLevels[] = {"trace", "debug", "info", "warn", "error"};
  for (const char* l : kLevels) {
    if (c.log_level == l) return ok_status();
  }
  return make_error(ErrorCode::kInvalid,
                    "log_level must be one of trace, debug, info, warn, error; got '" + c.log_level + "'");
}

std::string database_path(const DaemonConfig& c) { return c.state_dir + "/energyd.db"; }

RetentionPolicy retention_policy(const DaemonConfig& c) {
  constexpr int64_t kNsPerHour = 3'600'000'000'000;
  RetentionPolicy p;
  p.raw_retention_ns = c.raw_retention_hours * kNsPerHour;
  p.second_retention_ns = c.second_retention_days * 24 * kNsPerHour;
  p.minute_retention_ns = c.minute_retention_days * 24 * kNsPerHour;
  p.disk_budget_bytes = c.disk_budget_mb * 1024 * 1024;
  p.raw_batch_ns = 30 * 60'000'000'000;  // store_tiers.h: a fifth of the writes of one chunk a minute
  return p;
}

}  // namespace energy
