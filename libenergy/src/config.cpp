#include "energy/config.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <functional>
#include <map>
#include <sstream>

namespace energy {
namespace {

constexpr int64_t kMinPeriodMs = 1;
constexpr int64_t kMaxPeriodMs = 60'000;

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

Setter int_key(int64_t DaemonConfig::*field, const char* what = "an integer number of milliseconds") {
  return [field, what](const YAML::Node& n, const std::string& where, DaemonConfig& c) -> Status {
    int64_t v = 0;
    if (!n.IsScalar() || !YAML::convert<int64_t>::decode(n, v)) {
      return make_error(ErrorCode::kInvalid, where + ": expected " + what + ", got '" +
                                                 (n.IsScalar() ? n.Scalar() : std::string("a non-scalar")) + "'");
    }
    c.*field = v;
    return ok_status();
  };
}

const std::map<std::string, Setter>& setters() {
  static const std::map<std::string, Setter> table = {
      {"root", string_key(&DaemonConfig::root)},
      {"state_dir", string_key(&DaemonConfig::state_dir)},
      {"socket", string_key(&DaemonConfig::socket_path)},
      {"sample_period_ms", int_key(&DaemonConfig::sample_period_ms)},
      {"flush_interval_ms", int_key(&DaemonConfig::flush_interval_ms)},
      {"checkpoint_interval_ms", int_key(&DaemonConfig::checkpoint_interval_ms)},
      {"log_level", string_key(&DaemonConfig::log_level)},
      {"read_group", string_key(&DaemonConfig::read_group)},
      {"clock_group", string_key(&DaemonConfig::clock_group)},
      {"max_connections_per_user", int_key(&DaemonConfig::max_connections_per_user, "a whole number")},
      {"client_deadline_ms", int_key(&DaemonConfig::client_deadline_ms)},
      {"client_output_limit_bytes", int_key(&DaemonConfig::client_output_limit_bytes, "a number of bytes")},
  };
  return table;
}

Result<DaemonConfig> apply_map(const YAML::Node& doc, const std::string& source, DaemonConfig out) {
  for (const auto& kv : doc) {
    std::string key = kv.first.as<std::string>();
    auto it = setters().find(key);
    if (it == setters().end()) return key_error(source, key, "unknown key (see etc/energyd.yaml for the keys)");
    auto st = it->second(kv.second, source + ": key '" + key + "'", out);
    if (!st) return st.take_error();
  }
  return out;
}

}  // namespace

Result<DaemonConfig> apply_config_yaml(const std::string& yaml_text, const std::string& source,
                                       const DaemonConfig& base) {
  try {
    YAML::Node doc = YAML::Load(yaml_text);
    if (doc.IsNull()) return base;
    if (!doc.IsMap()) return make_error(ErrorCode::kInvalid, source + ": expected a mapping of keys to values");
    return apply_map(doc, source, base);
  } catch (const YAML::Exception& e) {
    return make_error(ErrorCode::kParse, source + ": " + e.what());
  }
}

Result<DaemonConfig> load_config_file(const std::string& path, const DaemonConfig& base) {
  std::ifstream in(path);
  if (!in) return errno_error("cannot read config file " + path);
  std::stringstream text;
  text << in.rdbuf();
  return apply_config_yaml(text.str(), path, base);
}

namespace {

Status check_range(const char* key, int64_t value, int64_t lo, int64_t hi) {
  if (value >= lo && value <= hi) return ok_status();
  return make_error(ErrorCode::kInvalid, std::string(key) + " must be between " + std::to_string(lo) + " and " +
                                             std::to_string(hi) + ", got " + std::to_string(value));
}

Status validate_client_limits(const DaemonConfig& c) {
  auto st = check_range("max_connections_per_user", c.max_connections_per_user, 1, 4096);
  if (st) st = check_range("client_deadline_ms", c.client_deadline_ms, 100, 3'600'000);
  if (st) st = check_range("client_output_limit_bytes", c.client_output_limit_bytes, 64 << 10, int64_t{1} << 30);
  return st;
}

}  // namespace

Status validate_config(const DaemonConfig& c) {
  if (auto st = validate_client_limits(c); !st) return st;
  if (c.sample_period_ms < kMinPeriodMs || c.sample_period_ms > kMaxPeriodMs) {
    return make_error(ErrorCode::kInvalid, "sample_period_ms must be between 1 and 60000, got " +
                                               std::to_string(c.sample_period_ms));
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
  static const char* kLevels[] = {"trace", "debug", "info", "warn", "error"};
  for (const char* l : kLevels) {
    if (c.log_level == l) return ok_status();
  }
  return make_error(ErrorCode::kInvalid, "log_level must be one of trace, debug, info, warn, error; got '" +
                                             c.log_level + "'");
}

std::string database_path(const DaemonConfig& c) { return c.state_dir + "/energyd.db"; }

}  // namespace energy
