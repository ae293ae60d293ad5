// energyd's command line: flags override the config file's keys.
//
// Order: built-in defaults, then the config file (--config FILE, which must
// exist, or /etc/energyd/energyd.yaml if present), then flags.
#pragma once

#include <string>
#include <vector>

#include "energy/config.h"
#include "energy/result.h"

namespace energy::daemon {

struct Invocation {
  enum class Action { kRun, kHelp, kVersion };
  Action action = Action::kRun;
  DaemonConfig config;
};

// Path flags must not be empty and are made absolute; --config must name a
// regular file (config.h load_config_file); numbers are plain decimal.
Result<Invocation> parse_invocation(const std::vector<std::string>& args);
std::string usage_text();

// JOURNAL_STREAM, set by systemd when stderr is connected to the journal:
// "<device>:<inode>" in decimal. Returns whether it names the file open on
// `fd` (false when `value` is null or names another file: stderr was
// redirected after systemd set it); a malformed value is kInvalid.
Result<bool> journal_stream_names(const char* value, int fd);

}  // namespace energy::daemon
