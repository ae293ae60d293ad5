// energyctl's driver: global options, then one subcommand.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "command.h"
#include "command_table.h"
#include "duration_arg.h"

namespace energy::cli {
namespace {

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

// Applies the global options; sets `version` for --version.
Status apply_globals(const Args& globals, Context& ctx, bool& version) {
  for (const auto& [flag, value] : globals.options) {
    if (flag == "--json")
      ctx.json = true;
    else if (flag == "--version")
      version = true;
    else if (auto st = apply_global(flag, value, ctx); !st)
      return st;
  }
  return ok_status();
}

// The command's options through the table, then the command.
int run_command(const CommandSpec& command, Context& ctx, const std::vector<std::string>& args) {
  ctx.command = command.name;
  auto parsed = parse_command_args(command, args);
  if (!parsed) return usage_error(ctx, parsed.error().message);
  if (parsed->help) {
    std::fputs(command_help(command).c_str(), stdout);
    return kExitOk;
  }
  ctx.json = ctx.json || parsed->json;
  return command.handler(ctx, *parsed);
}

int dispatch(const std::vector<std::string>& args) {
  Context ctx{default_socket_path(), false, ClientTimeouts{}, ""};
  bool version = false;
  auto env = timeouts_from_environment(ctx);  // before the options, which override it
  auto globals = parse_args(global_options(), args, true, "");
  if (!globals) return usage_error(ctx, globals.error().message);
  auto applied = apply_globals(*globals, ctx, version);
  if (!applied) return usage_error(ctx, applied.error().message);
  if (version && !globals->help) {
    std::puts("energyctl " ENERGYCTL_VERSION);
    return kExitOk;
  }
  if (globals->help || globals->words.empty()) {
    std::fputs(main_help().c_str(), globals->help ? stdout : stderr);
    return globals->help ? kExitOk : kExitUsage;
  }
  if (!env) return usage_error(ctx, env.error().message);
  const CommandSpec* command = find_command(globals->words.front());
  if (command == nullptr) return usage_error(ctx, "unknown command '" + globals->words.front() + "'");
  return run_command(*command, ctx, std::vector<std::string>(globals->words.begin() + 1, globals->words.end()));
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
