// energyctl mark start NAME [--tag k=v]... | mark stop NAME|ID
#include <iostream>

#include "command.h"
#include "table.h"

namespace energy::cli {
namespace {

// Parses "--tag k=v" pairs after the name.
Result<nlohmann::json> parse_tags(const std::vector<std::string>& args, size_t from) {
  nlohmann::json tags = nlohmann::json::object();
  for (size_t i = from; i < args.size(); ++i) {
    std::string kv;
    if (args[i] == "--tag" && i + 1 < args.size())
      kv = args[++i];
    else if (args[i].rfind("--tag=", 0) == 0)
      kv = args[i].substr(6);
    else
      return make_error(ErrorCode::kInvalid, "unexpected argument '" + args[i] + "'");
    size_t eq = kv.find('=');
    if (eq == 0 || eq == std::string::npos) return make_error(ErrorCode::kInvalid, "tag '" + kv + "' is not KEY=VALUE");
    tags[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return tags;
}

int mark_start(const Context& ctx, const std::vector<std::string>& args) {
  if (args.size() < 2) return usage_error("mark start needs a run name: energyctl mark start NAME [--tag K=V]...");
  auto tags = parse_tags(args, 2);
  if (!tags) return usage_error(tags.error().message);
  auto out = call_daemon(ctx, "mark.start", {{"name", args[1]}, {"tags", *tags}});
  if (out.exit_code != kExitOk) return out.exit_code;
  if (ctx.json)
    print_json(out.result);
  else
    std::cout << "started run " << out.result.value("id", 0) << " (" << safe_text(out.result, "name") << ")\n";
  return kExitOk;
}

int mark_stop(const Context& ctx, const std::vector<std::string>& args) {
  if (args.size() != 2) return usage_error("mark stop needs exactly one run name or id: energyctl mark stop NAME|ID");
  auto out = call_daemon(ctx, "mark.stop", {{"run", args[1]}});
  if (out.exit_code != kExitOk) return out.exit_code;
  if (ctx.json)
    print_json(out.result);
  else
    std::cout << render_report(out.result);
  return kExitOk;
}

}  // namespace

int cmd_mark(const Context& ctx, const std::vector<std::string>& args) {
  if (args.empty()) return usage_error("mark needs 'start' or 'stop'");
  if (args[0] == "start") return mark_start(ctx, args);
  if (args[0] == "stop") return mark_stop(ctx, args);
  return usage_error("unknown mark action '" + args[0] + "' (expected start or stop)");
}

}  // namespace energy::cli
