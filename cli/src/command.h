// energyctl's command plumbing: global options, the connection, output.
//
// Every subcommand is a function taking its own arguments and a Context; it
// prints either a human table or, with --json, the daemon's JSON unchanged.
// Exit codes: 0 success, 1 the daemon refused or failed, 2 bad usage,
// 3 energyd unreachable.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "energy/client.h"
#include "energy/result.h"
#include "terminal_text.h"

namespace energy::cli {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitUnreachable = 3;

struct Context {
  std::string socket_path;
  bool json = false;
  ClientTimeouts timeouts;  // --connect-timeout, --timeout
};

// A connection to ctx.socket_path with ctx.timeouts.
Result<Client> connect_daemon(const Context& ctx);

// Connects, sends one request and prints a daemon or transport error.
// Returns the result, or the exit code to use.
struct CallOutcome {
  int exit_code = kExitOk;
  nlohmann::json result;
};
CallOutcome call_daemon(const Context& ctx, const std::string& verb, const nlohmann::json& args);

int usage_error(const std::string& message);
// Prints "energyctl: <error>" and returns the exit code for it: 3 when
// energyd could not be reached (io, timeout), else 1.
int report_failure(const Error& error);
// j[key] when j is an object holding key, else a null (which iterates as empty).
const nlohmann::json& member(const nlohmann::json& j, const char* key);
// The string j[key] (`fallback` when absent) through terminal_safe(), for text output.
std::string safe_text(const nlohmann::json& j, const char* key, const std::string& fallback = "");
// Prints "energyctl: <message>" on stderr, the message through terminal_safe().
void print_error(const std::string& message);
void print_json(const nlohmann::json& j);
// Splits a command's arguments into words and --json (which sets `json`);
// after "--" every argument is a word. Any other option is an error naming it.
Result<std::vector<std::string>> words_and_json(const std::vector<std::string>& args, const std::string& command,
                                                bool& json);

// Walks a command that takes options only: "--flag VALUE" or "--flag=VALUE".
// `is_switch(flag)` returns true for the value-less flags it has taken (e.g.
// --json); every other flag and its value go to `apply`, whose error stops
// the walk. A word that is not an option, or a flag without its value, is an
// error naming it.
Status walk_options(const std::vector<std::string>& args, const std::string& command,
                    const std::function<bool(const std::string& flag)>& is_switch,
                    const std::function<Status(const std::string& flag, const std::string& value)>& apply);
// The is_switch of a command whose only switch is --json: it sets `json`.
std::function<bool(const std::string& flag)> json_switch(bool& json);

int cmd_status(const Context& ctx, const std::vector<std::string>& args);
int cmd_mark(const Context& ctx, const std::vector<std::string>& args);
int cmd_rails(const Context& ctx, const std::vector<std::string>& args);
int cmd_clocks(const Context& ctx, const std::vector<std::string>& args);
int cmd_export(const Context& ctx, const std::vector<std::string>& args);
int cmd_pin(const Context& ctx, const std::vector<std::string>& args);
int cmd_unpin(const Context& ctx, const std::vector<std::string>& args);

// Renders the clock leases (the reply of clocks.leases) as text.
std::string render_leases(const nlohmann::json& leases);
int cmd_run(const Context& ctx, const std::vector<std::string>& args);

// Renders a run report (the reply of mark.stop or runs.show) as text.
std::string render_report(const nlohmann::json& report);

int cmd_runs(const Context& ctx, const std::vector<std::string>& args);
int cmd_show(const Context& ctx, const std::vector<std::string>& args);
int cmd_compare(const Context& ctx, const std::vector<std::string>& args);
int cmd_live(const Context& ctx, const std::vector<std::string>& args);
int cmd_baseline(const Context& ctx, const std::vector<std::string>& args);
// `energyctl export RUN ...` (cmd_export hands over when its first argument is not an option).
int cmd_export_run(const Context& ctx, const std::vector<std::string>& args);

}  // namespace energy::cli
