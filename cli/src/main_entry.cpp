// energyctl's driver: global options, then one subcommand.
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "command.h"

namespace energy::cli {
namespace {

constexpr const char* kUsage =
    "Usage: energyctl [--socket PATH] [--json] COMMAND [ARGS]\n"
    "Talks to energyd (socket: --socket, else $ENERGYD_SOCKET, else /run/energyd/energyd.sock).\n\n"
    "Commands:\n"
    "  status                          board, rails with live V/I/P, sampling and storage health\n"
    "  rails                           live V, I, P per rail; which rails form the module total\n"
    "  clocks                          CPU/GPU/EMC clock domains, governors, frequencies; temperatures\n"
    "  mark start NAME [--tag K=V]...  open a run; prints its id\n"
    "  mark stop NAME|ID               close a run; prints its energy per rail and in total\n"
    "  pin [--cpu F] [--gpu F] [--emc F] [--domain NAME=F]... [--governor G] [--allow-offline-cpus]\n"
    "      (--for DURATION | --run ID|NAME | --hold)\n"
    "                                  pin clocks under a lease; F: min, max, 1.2GHz, 624.75MHz or LO:HI\n"
    "  unpin LEASE...|--all            restore the clocks a lease pinned\n"
    "  export [--since T] [--until T] [--rail R] [--format csv|json]\n"
    "                                  raw readings; T: now, -15m, @EPOCH or 2026-11-22T03:00:00Z\n"
    "  export RUN [--csv|--json] [--rail R]\n"
    "                                  one run's report (summary) and its raw readings\n"
    "  runs [--name N] [--tag K=V]... [--since T] [--until T] [--state S] [--limit N]\n"
    "                                  runs newest first: id, name, state, start, duration, J, W\n"
    "  show RUN                        a run's report (by id, or the newest run of that name)\n"
    "  compare RUN RUN...              runs side by side, with the difference to the first in %\n"
    "  baseline [--duration D] [--name N] | baseline --show\n"
    "                                  measure the idle power (default 10s); reports then show\n"
    "                                  idle and net energy; --show: the current baseline\n"
    "  live [--interval D] [--count N] a tegrastats-like view: rails V/A/W, clocks, temperatures\n"
    "  run [--name N] [--tag K=V]... [--repeat K] [--items N] [--output FILE|-] [--] CMD [ARGS...]\n"
    "                                  measure CMD in a run (stdin/stdout/stderr and signals passed\n"
    "                                  through); report on stderr, in FILE, or on stdout after CMD (-);\n"
    "                                  --json: the report as JSON; --repeat: mean, stddev, 95% CI;\n"
    "                                  --items: energy per item. Exits with CMD's status (128+N\n"
    "                                  signal, 127 not found, 126 not executable). --cpu/--gpu/--emc F,\n"
    "                                  --domain N=F, --governor G pin the clocks for each run (as pin);\n"
    "                                  --baseline D measures an idle baseline of D first; runs are\n"
    "                                  tagged exit_status (and signal)\n\n"
    "Options:\n"
    "  --socket PATH   energyd's socket\n"
    "  --json          print the daemon's JSON instead of tables\n"
    "  --help          this text\n";

using Command = std::function<int(const Context&, const std::vector<std::string>&)>;

const std::map<std::string, Command>& commands() {
  static const std::map<std::string, Command> table = {
      {"status", cmd_status},    {"mark", cmd_mark}, {"rails", cmd_rails},     {"clocks", cmd_clocks},
      {"export", cmd_export},    {"pin", cmd_pin},   {"unpin", cmd_unpin},     {"run", cmd_run},
      {"runs", cmd_runs},        {"show", cmd_show}, {"compare", cmd_compare}, {"live", cmd_live},
      {"baseline", cmd_baseline}};
  return table;
}

// Consumes global options; returns the index of the command word.
Result<size_t> parse_globals(const std::vector<std::string>& args, Context& ctx, bool& help) {
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json") ctx.json = true;
    else if (a == "--help" || a == "-h") help = true;
    else if (a == "--socket" && i + 1 < args.size()) ctx.socket_path = args[++i];
    else if (a.rfind("--socket=", 0) == 0) ctx.socket_path = a.substr(9);
    else if (a.rfind("-", 0) == 0) return make_error(ErrorCode::kInvalid, "unknown option '" + a + "'");
    else break;
  }
  return i;
}

int dispatch(const std::vector<std::string>& args) {
  Context ctx{default_socket_path(), false};
  bool help = false;
  auto at = parse_globals(args, ctx, help);
  if (!at) return usage_error(at.error().message);
  if (help || *at >= args.size()) {
    std::fputs(kUsage, help ? stdout : stderr);
    return help ? kExitOk : kExitUsage;
  }
  auto it = commands().find(args[*at]);
  if (it == commands().end()) return usage_error("unknown command '" + args[*at] + "'");
  std::vector<std::string> rest(args.begin() + static_cast<std::ptrdiff_t>(*at) + 1, args.end());
  return it->second(ctx, rest);
}

}  // namespace

int main_entry(int argc, char** argv) {
  try {
    return dispatch(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const nlohmann::json::exception& e) {
    std::fprintf(stderr, "energyctl: energyd sent a reply this energyctl cannot read: %s\n", e.what());
    return kExitFailed;
  }
}

}  // namespace energy::cli
