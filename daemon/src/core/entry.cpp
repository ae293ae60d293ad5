#include "entry.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/systemd_sink.h>
#include <spdlog/spdlog.h>

#include "daemon.h"
#include "options.h"

namespace energy::daemon {

namespace {

// Under systemd (JOURNAL_STREAM names stderr: stderr is the journal) log to
// the journal with real priorities; otherwise to stderr with timestamps.
void setup_logging(const std::string& level, bool to_journal) {
  if (to_journal) {
    auto sink = std::make_shared<spdlog::sinks::systemd_sink_mt>();
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("energyd", sink));
    spdlog::set_pattern("%v");
  } else {
    spdlog::set_default_logger(spdlog::stderr_color_mt("energyd"));
    spdlog::set_pattern("%Y-%m-%d %H:%M:%S.%e %^%l%$ %v");
  }
  spdlog::set_level(spdlog::level::from_str(level));
}

}  // namespace

int main_entry(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  auto inv = parse_invocation(args);
  if (!inv) {
    std::fprintf(stderr, "energyd: %s\n", inv.error().describe().c_str());
    return 2;
  }
  if (inv->action == Invocation::Action::kHelp) {
    std::fputs(usage_text().c_str(), stdout);
    return 0;
  }
  if (inv->action == Invocation::Action::kVersion) {
    std::puts("energyd " ENERGYD_VERSION);
    return 0;
  }
  auto journal = journal_stream_names(std::getenv("JOURNAL_STREAM"), STDERR_FILENO);
  if (!journal) {
    std::fprintf(stderr, "energyd: %s\n", journal.error().describe().c_str());
    return 2;
  }
  setup_logging(inv->config.log_level, *journal);
  return Daemon(inv->config).run();
}

}  // namespace energy::daemon
