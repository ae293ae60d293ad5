// energyctl's command table: every command's name, arguments, options and
// one-line help, in one place. The parser (parse_args), `energyctl --help`,
// `energyctl COMMAND --help`, `energyctl help COMMAND` and the usage lines of
// errors all come from it; tests/cli/command_table_test.cpp checks the man
// page (docs/man/energyctl.1) and the bash completion against it.
//
// Adding a command: a cmd_NAME function (command.h) and one CommandSpec
// entry in command_table.cpp; then the man page and completion/energyctl.bash
// (the test names what they miss).
//
// The parser is getopt_long(3) behind the table. No packaged argument
// library fits both targets: CLI11 is not in Debian 11; cxxopts is 2.2 there
// and 3.1 in Debian 12, with different error types; neither keeps energyctl's
// messages. Long options as --name VALUE or --name=VALUE (no abbreviations),
// declared short forms (-o, -h), "--" ends the options. Values are strings;
// each command checks its own (the validators in *_arg.cpp). Not
// thread-safe (getopt's state is global); energyctl parses once, on its main
// thread.
#pragma once

#include <string>
#include <vector>

#include "command.h"
#include "energy/result.h"

namespace energy::cli {

struct OptionSpec {
  std::string name;     // "--output"
  std::string value;    // the value's name in help ("FILE|-"); empty: a flag without a value
  std::string help;     // one line
  char short_name = 0;  // 'o' for -o; 0: none
};

using CommandHandler = int (*)(const Context& ctx, const Args& args);

struct CommandSpec {
  std::string name;
  std::vector<std::string> forms;   // argument synopses after the name, one per form
  std::string help;                 // one line
  std::vector<OptionSpec> options;  // without the common --json and --help (see common_options)
  CommandHandler handler = nullptr;
  // True when options end at the first word (run: CMD's own options are CMD's).
  bool options_end_at_first_word = false;
  std::vector<std::string> details = {};  // extra help lines for `energyctl COMMAND --help`
};

// Every command, in the order help lists them.
const std::vector<CommandSpec>& command_table();
// The command named `name`, or nullptr.
const CommandSpec* find_command(const std::string& name);
// The options before COMMAND (--socket, --json, --timeout, ..., --help, --version).
const std::vector<OptionSpec>& global_options();
// The options every command takes besides its own: --json (unless the
// command declares its own --json) and -h/--help.
std::vector<OptionSpec> common_options(const CommandSpec& command);
// A command's own and common options.
std::vector<OptionSpec> all_options(const CommandSpec& command);

// Parses `args` against `options`. Flags get "" as value. An unknown option,
// a missing value or a value given to a flag is an error naming the option
// (and `where`, e.g. "for run", when not empty). `stop_at_word`: every
// argument from the first word on is a word. "--" ends the options.
Result<Args> parse_args(const std::vector<OptionSpec>& options, const std::vector<std::string>& args, bool stop_at_word,
                        const std::string& where);
// Parses a command's arguments: its own options into Args::options (in
// order), the common --json into Args::json and --help into Args::help (the
// parse stops there: help wins over what follows).
Result<Args> parse_command_args(const CommandSpec& command, const std::vector<std::string>& args);

// "Usage: energyctl NAME FORM" lines, one per form.
std::string usage_lines(const CommandSpec& command);
// `energyctl COMMAND --help`: usage, help, details and options.
std::string command_help(const CommandSpec& command);
// `energyctl --help`: usage, the commands with their one-line help, global options.
std::string main_help();
// The global usage line ("Usage: energyctl [--socket PATH] ... COMMAND [ARGS]").
std::string main_usage_line();

}  // namespace energy::cli
