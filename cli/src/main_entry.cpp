// energyctl's driver: global options, then one subcommand.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "command.h"
#include "duration_arg.h"

namespace energy::cli {
namespace {

constexpr const char* kUsage =
    "Usage: energyctl [--socket PATH] [--json] [--timeout D] [--connect-timeout D] COMMAND [ARGS]\n"
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
    "  --connect-timeout D  how long to wait for energyd to take the connection (default 5s;\n"
    "                  $ENERGYCTL_CONNECT_TIMEOUT)\n"
    "  --timeout D     how long to wait for each reply (default 10s; $ENERGYCTL_TIMEOUT)\n"
    "  --help          this text\n"
    "  --version       energyctl's version\n";

using Command = std::function<int(const Context&, const std::vector<std::string>&)>;

const std::map<std::string, Command>& commands() {
  static const std::map<std::string, Command> table = {
      {"status", cmd_status},    {"mark", cmd_mark}, {"rails", cmd_rails},     {"clocks", cmd_clocks},
      {"export", cmd_export},    {"pin", cmd_pin},   {"unpin", cmd_unpin},     {"run", cmd_run},
      {"runs", cmd_runs},        {"show", cmd_show}, {"compare", cmd_compare}, {"live", cmd_live},
      {"baseline", cmd_baseline}};
  return table;
}

bool is_valued_global(const std::string& flag) {
  return flag == "--socket" || flag == "--timeout" || flag == "--connect-timeout";
}

// A timeout from --timeout, --connect-timeout or their variables (`source`).
Status set_timeout(std::chrono::milliseconds& slot, const std::string& source, const std::string& value) {
  auto ms = parse_duration_ms(value);
  if (!ms) return make_error(ErrorCode::kInvalid, source + ": " + ms.error().message);
  slot = std::chrono::milliseconds(*ms);
  return ok_status();
}

Status apply_global(const std::string& flag, const std::string& value, Context& ctx) {
  if (value.empty()) return make_error(ErrorCode::kInvalid, "option '" + flag + "' needs a value, got ''");
  if (flag == "--socket") {
    ctx.socket_path = value;
    return ok_status();
  }
  return set_timeout(flag == "--timeout" ? ctx.timeouts.reply : ctx.timeouts.connect, flag, value);
}

// $ENERGYCTL_TIMEOUT and $ENERGYCTL_CONNECT_TIMEOUT, when set and not empty.
Status timeouts_from_environment(Context& ctx) {
  for (auto [name, slot] : {std::pair{"ENERGYCTL_TIMEOUT", &ctx.timeouts.reply},
                            std::pair{"ENERGYCTL_CONNECT_TIMEOUT", &ctx.timeouts.connect}}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    auto st = set_timeout(*slot, std::string("$") + name, value);
    if (!st) return st;
  }
  return ok_status();
}

// Consumes global options; returns the index of the command word.
Result<size_t> parse_globals(const std::vector<std::string>& args, Context& ctx, bool& help, bool& version) {
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string flag = a.substr(0, a.find('='));
    Status st = ok_status();
    if (a == "--json")
      ctx.json = true;
    else if (a == "--help" || a == "-h")
      help = true;
    else if (a == "--version")
      version = true;
    else if (is_valued_global(a) && i + 1 >= args.size())
      return make_error(ErrorCode::kInvalid, "option '" + a + "' needs a value");
    else if (is_valued_global(a))
      st = apply_global(a, args[++i], ctx);
    else if (is_valued_global(flag))
      st = apply_global(flag, a.substr(flag.size() + 1), ctx);
    else if (a.rfind("-", 0) == 0)
      return make_error(ErrorCode::kInvalid, "unknown option '" + a + "'");
    else
      break;
    if (!st) return st.take_error();
  }
  return i;
}

int dispatch(const std::vector<std::string>& args) {
  Context ctx{default_socket_path(), false, ClientTimeouts{}};
  bool help = false;
  bool version = false;
  auto env = timeouts_from_environment(ctx);  // before the options, which override it
  auto at = parse_globals(args, ctx, help, version);
  if (!at) return usage_error(at.error().message);
  if (version && !help) {
    std::puts("energyctl " ENERGYCTL_VERSION);
    return kExitOk;
  }
  if (help || *at >= args.size()) {
    std::fputs(kUsage, help ? stdout : stderr);
    return help ? kExitOk : kExitUsage;
  }
  if (!env) return usage_error(env.error().message);
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
    print_error(std::string("energyd sent a reply this energyctl cannot read: ") + e.what());
    return kExitFailed;
  }
}

}  // namespace energy::cli
