// energyctl's command plumbing: global options, the connection, output.
//
// Every subcommand is a function taking its own arguments and a Context; it
// prints either a human table or, with --json, the daemon's JSON unchanged.
// Exit codes: 0 success, 1 the daemon refused or failed, 2 bad usage,
// 3 energyd unreachable, 4 a plot was asked for and gnuplot is not installed.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
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
constexpr int kExitNoGnuplot = 4;

struct Context {
  std::string socket_path;
  bool json = false;
  ClientTimeouts timeouts;  // --connect-timeout, --timeout
  std::string command;      // the command being run (its usage line goes with usage errors)
};

// A command's arguments as the command table's parser (command_table.h)
// left them: its options in the order given, by long name, with their
// values ("" for a flag), and its words (positional arguments; for run, CMD
// and its arguments). The common --json is in `json`, not in `options`.
struct Args {
  std::vector<std::pair<std::string, std::string>> options;
  std::vector<std::string> words;
  bool json = false;
  bool help = false;  // --help was given (the parse stopped there)
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

// Prints "energyctl: <message>", the usage line of ctx.command (or of
// energyctl) and where to find help; returns kExitUsage.
int usage_error(const Context& ctx, const std::string& message);
// Prints "energyctl: <error>" and returns the exit code for it: 3 when
// energyd could not be reached (io, timeout), else 1.
int report_failure(const Error& error);
// j[key] when j is an object holding key, else a null (which iterates as empty).
const nlohmann::json& member(const nlohmann::json& j, const char* key);
// j as a double when it is a number, else nullopt (absent rather than zero).
std::optional<double> number_of(const nlohmann::json& j);
// j with `decimals` decimals when it is a number, else "-" (a table cell).
std::string number_text(const nlohmann::json& j, int decimals);
// v as a JSON number, or null when absent.
nlohmann::json json_or_null(std::optional<double> v);
// The string j[key] (`fallback` when absent) through terminal_safe(), for text output.
std::string safe_text(const nlohmann::json& j, const char* key, const std::string& fallback = "");
// For an error whose message has several lines (a child program's stderr,
// e.g. gnuplot's): the first after "energyctl: ", the rest indented, each
// through terminal_safe(); returns kExitFailed.
int report_failure_lines(const Error& error);
// Prints "energyctl: <message>" on stderr, the message through terminal_safe().
void print_error(const std::string& message);
void print_json(const nlohmann::json& j);
// The error for a command that takes no words, naming the first (or ok).
Status no_words(const Args& args, const std::string& command);
// Hands each option and its value to `apply`, in order; the first error stops it.
Status for_each_option(const Args& args,
                       const std::function<Status(const std::string& flag, const std::string& value)>& apply);

int cmd_status(const Context& ctx, const Args& args);
int cmd_mark(const Context& ctx, const Args& args);
int cmd_rails(const Context& ctx, const Args& args);
int cmd_clocks(const Context& ctx, const Args& args);
int cmd_export(const Context& ctx, const Args& args);
int cmd_pin(const Context& ctx, const Args& args);
int cmd_unpin(const Context& ctx, const Args& args);

// Renders the clock leases (the reply of clocks.leases) as text.
std::string render_leases(const nlohmann::json& leases);
int cmd_run(const Context& ctx, const Args& args);
// `energyctl sweep [OPTIONS] -- CMD` and `sweep --resume ID` (sweep_run.h).
int cmd_sweep_run(const Context& ctx, const Args& args);

// Renders a run report (the reply of mark.stop or runs.show) as text.
std::string render_report(const nlohmann::json& report);

int cmd_runs(const Context& ctx, const Args& args);
int cmd_show(const Context& ctx, const Args& args);
int cmd_compare(const Context& ctx, const Args& args);
int cmd_live(const Context& ctx, const Args& args);
int cmd_baseline(const Context& ctx, const Args& args);
// `energyctl export RUN ...` (cmd_export hands over when it was given a word).
int cmd_export_run(const Context& ctx, const Args& args);
// `energyctl sweeps`: stored sweeps newest first (cmd_sweeps.cpp).
int cmd_sweeps(const Context& ctx, const Args& args);
// `energyctl sweep`: `show ID` and `export ID` (cmd_sweeps.cpp); any other
// form goes to cmd_sweep_run (running a sweep, cmd_sweep_run.cpp).
int cmd_sweep(const Context& ctx, const Args& args);
int cmd_sweep_run(const Context& ctx, const Args& args);
// `energyctl sweep plot ID`: the sweep's plots drawn by gnuplot (cmd_sweep_plot.cpp).
int cmd_sweep_plot(const Context& ctx, const Args& args);
// `energyctl plot RUN`: the run's power per rail drawn by gnuplot (cmd_plot.cpp).
int cmd_plot(const Context& ctx, const Args& args);
// `energyctl help [COMMAND]`: energyctl's or the command's help on stdout.
int cmd_help(const Context& ctx, const Args& args);

}  // namespace energy::cli
