#include "command.h"

#include <cstdio>
#include <iostream>
#include <sstream>

#include "command_table.h"
#include "table.h"

namespace energy::cli {

Result<Client> connect_daemon(const Context& ctx) { return Client::connect(ctx.socket_path, ctx.timeouts); }

CallOutcome call_daemon(const Context& ctx, const std::string& verb, const nlohmann::json& args) {
  auto client = connect_daemon(ctx);
  if (!client) {
    print_error(client.error().describe());
    return {kExitUnreachable, {}};
  }
  auto result = client->call(verb, args);
  if (!result) return {report_failure(result.error()), {}};
  return {kExitOk, std::move(result).value()};
}

int report_failure(const Error& error) {
  bool transport = error.code == ErrorCode::kIo || error.code == ErrorCode::kTimeout;
  print_error(error.describe());
  return transport ? kExitUnreachable : kExitFailed;
}

int usage_error(const Context& ctx, const std::string& message) {
  const CommandSpec* command = find_command(ctx.command);
  std::string usage = command != nullptr ? usage_lines(*command) : main_usage_line();
  std::string help = command != nullptr ? "energyctl " + command->name + " --help" : "energyctl --help";
  std::fprintf(stderr, "energyctl: %s\n%sTry '%s'.\n", terminal_safe(message).c_str(), usage.c_str(), help.c_str());
  return kExitUsage;
}

const nlohmann::json& member(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

std::optional<double> number_of(const nlohmann::json& j) {
  return j.is_number() ? std::optional<double>(j.get<double>()) : std::nullopt;
}

std::string number_text(const nlohmann::json& j, int decimals) {
  return j.is_number() ? fixed(j.get<double>(), decimals) : "-";
}

nlohmann::json json_or_null(std::optional<double> v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

std::string safe_text(const nlohmann::json& j, const char* key, const std::string& fallback) {
  return terminal_safe(j.value(key, fallback));
}

void print_error(const std::string& message) {
  std::fprintf(stderr, "energyctl: %s\n", terminal_safe(message).c_str());
}

int report_failure_lines(const Error& error) {
  std::istringstream lines(error.describe());
  std::string line;
  std::getline(lines, line);
  print_error(line);
  while (std::getline(lines, line)) std::fprintf(stderr, "  %s\n", terminal_safe(line).c_str());
  return kExitFailed;
}

void print_json(const nlohmann::json& j) { std::cout << j.dump(2) << "\n"; }

Status no_words(const Args& args, const std::string& command) {
  if (args.words.empty()) return ok_status();
  return make_error(ErrorCode::kInvalid, command + " takes no arguments, got '" + args.words.front() + "'");
}

Status for_each_option(const Args& args,
                       const std::function<Status(const std::string& flag, const std::string& value)>& apply) {
  for (const auto& [flag, value] : args.options) {
    auto st = apply(flag, value);
    if (!st) return st;
  }
  return ok_status();
}

}  // namespace energy::cli
