#include "command.h"

#include <cstdio>
#include <iostream>

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

int usage_error(const std::string& message) {
  std::fprintf(stderr, "energyctl: %s\nTry 'energyctl --help'.\n", terminal_safe(message).c_str());
  return kExitUsage;
}

const nlohmann::json& member(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

std::string safe_text(const nlohmann::json& j, const char* key, const std::string& fallback) {
  return terminal_safe(j.value(key, fallback));
}

void print_error(const std::string& message) {
  std::fprintf(stderr, "energyctl: %s\n", terminal_safe(message).c_str());
}

void print_json(const nlohmann::json& j) { std::cout << j.dump(2) << "\n"; }

Result<std::vector<std::string>> words_and_json(const std::vector<std::string>& args, const std::string& command,
                                                bool& json) {
  std::vector<std::string> words;
  bool options = true;
  for (const auto& a : args) {
    if (options && a == "--")
      options = false;
    else if (options && a == "--json")
      json = true;
    else if (options && a.size() > 1 && a[0] == '-')
      return make_error(ErrorCode::kInvalid, "unknown option '" + a + "' for " + command);
    else
      words.push_back(a);
  }
  return words;
}

Status walk_options(const std::vector<std::string>& args, const std::string& command,
                    const std::function<bool(const std::string& flag)>& is_switch,
                    const std::function<Status(const std::string& flag, const std::string& value)>& apply) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i], value;
    if (is_switch(flag)) continue;
    size_t eq = flag.find('=');
    if (flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    } else if (flag.rfind("--", 0) != 0) {
      return make_error(ErrorCode::kInvalid, command + " takes options only, got '" + flag + "'");
    } else if (i + 1 >= args.size()) {
      return make_error(ErrorCode::kInvalid, "option '" + flag + "' needs a value");
    } else {
      value = args[++i];
    }
    auto st = apply(flag, value);
    if (!st) return st;
  }
  return ok_status();
}

std::function<bool(const std::string& flag)> json_switch(bool& json) {
  return [&json](const std::string& flag) {
    if (flag != "--json") return false;
    json = true;
    return true;
  };
}

}  // namespace energy::cli
