#include "options.h"

#include <sys/stat.h>

#include <filesystem>
#include <functional>
#include <map>
#include <optional>

namespace energy::daemon {
namespace {

using Apply = std::function<Status(const std::string&, DaemonConfig&)>;

// Plain decimal, as in the config file (config.h parse_decimal_int).
Status parse_ms(const std::string& flag, const std::string& v, int64_t& out) {
  auto n = parse_decimal_int(v);
  if (!n) return make_error(ErrorCode::kInvalid, flag + ": expected a decimal number of milliseconds, got '" + v + "'");
  out = *n;
  return ok_status();
}

// A path flag must not be empty ('' would mean no storage, or an abstract
// socket nobody's file permissions protect); a relative one is taken from
// the working directory at start and stored absolute.
Status parse_path(const std::string& flag, const std::string& v, std::string& out) {
  if (v.empty()) return make_error(ErrorCode::kInvalid, flag + ": got an empty path; expected a file system path");
  std::error_code ec;
  auto abs = std::filesystem::absolute(v, ec);
  if (ec) return make_error(ErrorCode::kInvalid, flag + ": cannot make '" + v + "' absolute: " + ec.message());
  out = abs.string();
  return ok_status();
}

const std::map<std::string, Apply>& flag_table() {
  static const std::map<std::string, Apply> kFlags = {
      {"--root", [](const std::string& v, DaemonConfig& c) { return parse_path("--root", v, c.root); }},
      {"--state-dir", [](const std::string& v, DaemonConfig& c) { return parse_path("--state-dir", v, c.state_dir); }},
      {"--socket", [](const std::string& v, DaemonConfig& c) { return parse_path("--socket", v, c.socket_path); }},
      {"--log-level",
       [](const std::string& v, DaemonConfig& c) {
         c.log_level = v;
         return ok_status();
       }},
      {"--sample-period-ms",
       [](const std::string& v, DaemonConfig& c) {
         c.sample_period_given = true;
         return parse_ms("--sample-period-ms", v, c.sample_period_ms);
       }},
      {"--flush-interval-ms",
       [](const std::string& v, DaemonConfig& c) { return parse_ms("--flush-interval-ms", v, c.flush_interval_ms); }},
      {"--checkpoint-interval-ms",
       [](const std::string& v, DaemonConfig& c) {
         return parse_ms("--checkpoint-interval-ms", v, c.checkpoint_interval_ms);
       }},
  };
  return kFlags;
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// Splits "--flag=value" and "--flag value" into pairs.
Result<std::vector<std::pair<std::string, std::string>>> split_flags(const std::vector<std::string>& args,
                                                                     std::optional<std::string>& config_path,
                                                                     Invocation& inv) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (a == "--help" || a == "-h") inv.action = Invocation::Action::kHelp;
    if (a == "--version") inv.action = Invocation::Action::kVersion;
    if (a == "--help" || a == "-h" || a == "--version") continue;
    std::string value;
    size_t eq = a.find('=');
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
    } else if (a.rfind("--", 0) == 0 && i + 1 < args.size()) {
      value = args[++i];
    } else {
      return make_error(ErrorCode::kInvalid, "unexpected argument '" + a + "' (see energyd --help)");
    }
    if (a == "--config")
      config_path = value;
    else
      out.emplace_back(a, value);
  }
  return out;
}

}  // namespace

Result<Invocation> parse_invocation(const std::vector<std::string>& args) {
  Invocation inv;
  std::optional<std::string> config_path;
  auto flags = split_flags(args, config_path, inv);
  if (!flags) return flags.take_error();
  if (inv.action != Invocation::Action::kRun) return inv;
  std::string path = config_path.value_or(kDefaultConfigPath);
  if (config_path && config_path->empty()) {
    return make_error(ErrorCode::kInvalid, "--config: got an empty path; expected a YAML file");
  }
  if (config_path || file_exists(path)) {
    auto loaded = load_config_file(path, inv.config);
    if (!loaded) return loaded.take_error();
    inv.config = *loaded;
  }
  for (const auto& [flag, value] : *flags) {
    auto it = flag_table().find(flag);
    if (it == flag_table().end())
      return make_error(ErrorCode::kInvalid, "unknown option '" + flag + "' (see energyd --help)");
    auto st = it->second(value, inv.config);
    if (!st) return st.take_error();
  }
  auto valid = validate_config(inv.config);
  if (!valid) return valid.take_error();
  return inv;
}

Result<bool> journal_stream_names(const char* value, int fd) {
  if (value == nullptr) return false;
  std::string text(value);
  size_t colon = text.find(':');
  auto dev = parse_decimal_int(text.substr(0, colon));
  auto ino = colon == std::string::npos ? dev : parse_decimal_int(text.substr(colon + 1));
  if (colon == std::string::npos || !dev || !ino || *dev < 0 || *ino < 0) {
    return make_error(ErrorCode::kInvalid,
                      "environment variable JOURNAL_STREAM: expected <device>:<inode> in decimal, got '" + text + "'");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) return false;
  return static_cast<int64_t>(st.st_dev) == *dev && static_cast<int64_t>(st.st_ino) == *ino;
}

std::string usage_text() {
  return "Usage: energyd [OPTIONS]\n"
         "Samples the board's power rails, stores them and serves energyctl.\n\n"
         "  --config FILE            YAML settings (default /etc/energyd/energyd.yaml if present)\n"
         "  --root DIR               board file system root (default /); a simulator tree for testing\n"
         "  --state-dir DIR          where the database lives (default /var/lib/energyd)\n"
         "  --socket PATH            Unix socket to serve (default /run/energyd/energyd.sock)\n"
         "  --sample-period-ms N     sampling period (default: 100, or less where the monitors average\n"
         "                           over a shorter fixed window: 50 on the Nano with L4T 32)\n"
         "  --flush-interval-ms N    batched commit period (default 1000)\n"
         "  --checkpoint-interval-ms N  WAL sync period, the power-loss window for samples (default 10000)\n"
         "  --log-level LEVEL        trace, debug, info, warn or error (default info)\n"
         "  --version, --help\n";
}

}  // namespace energy::daemon
