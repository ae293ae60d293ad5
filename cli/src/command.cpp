#include "command.h"

#include <cstdio>
#include <iostream>

namespace energy::cli {

CallOutcome call_daemon(const Context& ctx, const std::string& verb, const nlohmann::json& args) {
  auto client = Client::connect(ctx.socket_path);
  if (!client) {
    std::fprintf(stderr, "energyctl: %s\n", client.error().describe().c_str());
    return {kExitUnreachable, {}};
  }
  auto result = client->call(verb, args);
  if (!result) {
    bool transport = result.error().code == ErrorCode::kIo || result.error().code == ErrorCode::kTimeout;
    std::fprintf(stderr, "energyctl: %s\n", result.error().describe().c_str());
    return {transport ? kExitUnreachable : kExitFailed, {}};
  }
  return {kExitOk, std::move(result).value()};
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "energyctl: %s\nTry 'energyctl --help'.\n", message.c_str());
  return kExitUsage;
}

const nlohmann::json& member(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

void print_json(const nlohmann::json& j) { std::cout << j.dump(2) << "\n"; }

}  // namespace energy::cli
