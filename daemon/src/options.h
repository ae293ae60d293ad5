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

Result<Invocation> parse_invocation(const std::vector<std::string>& args);
std::string usage_text();

}  // namespace energy::daemon
