// The help texts of energyctl, all made from the command table
// (command_table.h), and `energyctl help [COMMAND]`.
#include <algorithm>
#include <cstdio>

#include "command_table.h"

namespace energy::cli {
namespace {

constexpr size_t kMaxLeftColumn = 28;  // wider option names push their help onto the next line

std::string option_left(const OptionSpec& o) {
  std::string left = o.short_name != 0 ? "-" + std::string(1, o.short_name) + ", " : "";
  return left + o.name + (o.value.empty() ? "" : " " + o.value);
}

// "  LEFT  help" lines with the help aligned.
std::string two_columns(const std::vector<std::pair<std::string, std::string>>& rows) {
  size_t width = 0;
  for (const auto& [left, help] : rows) {
    if (left.size() <= kMaxLeftColumn) width = std::max(width, left.size());
  }
  std::string out;
  for (const auto& [left, help] : rows) {
    out.append("  ").append(left);
    if (left.size() > width)
      out.append("\n").append(width + 4, ' ');
    else
      out.append(width - left.size() + 2, ' ');
    out.append(help).append("\n");
  }
  return out;
}

std::string options_text(const std::vector<OptionSpec>& options) {
  std::vector<std::pair<std::string, std::string>> rows;
  rows.reserve(options.size());
  for (const auto& o : options) rows.emplace_back(option_left(o), o.help);
  return two_columns(rows);
}

}  // namespace

std::string usage_lines(const CommandSpec& command) {
  std::string out;
  for (const auto& form : command.forms) {
    out += "Usage: energyctl " + command.name + (form.empty() ? "" : " " + form) + "\n";
  }
  return out;
}

std::string command_help(const CommandSpec& command) {
  std::string out = usage_lines(command) + command.help + "\n";
  for (const auto& line : command.details) out += line + "\n";
  return out + "\nOptions:\n" + options_text(all_options(command));
}

std::string main_usage_line() {
  std::string out = "Usage: energyctl";
  for (const auto& o : global_options()) {
    if (o.name != "--help" && o.name != "--version")
      out += " [" + o.name + (o.value.empty() ? "" : " " + o.value) + "]";
  }
  return out + " COMMAND [ARGS]\n";
}

std::string main_help() {
  std::vector<std::pair<std::string, std::string>> commands;
  for (const auto& c : command_table()) commands.emplace_back(c.name, c.help);
  return main_usage_line() +
         "Talks to energyd (socket: --socket, else $ENERGYD_SOCKET, else /run/energyd/energyd.sock).\n\n"
         "Commands:\n" +
         two_columns(commands) + "\nOptions:\n" + options_text(global_options()) +
         "\n'energyctl COMMAND --help' or 'energyctl help COMMAND' shows a command's arguments and options.\n";
}

int cmd_help(const Context& ctx, const Args& args) {
  if (args.words.empty()) {
    std::fputs(main_help().c_str(), stdout);
    return kExitOk;
  }
  if (args.words.size() > 1)
    return usage_error(ctx, "help takes one command, got " + std::to_string(args.words.size()));
  const CommandSpec* command = find_command(args.words.front());
  if (command == nullptr) return usage_error(ctx, "unknown command '" + args.words.front() + "'");
  std::fputs(command_help(*command).c_str(), stdout);
  return kExitOk;
}

}  // namespace energy::cli
