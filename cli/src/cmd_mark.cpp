// energyctl mark start NAME [--tag k=v]... [--items N] [gate options] | mark stop NAME|ID [--items N]
// (options: command_table.cpp). --items: the run's work items, stored with
// the run (the stop's replaces the start's) for energy per item.
#include <iostream>

#include "command.h"
#include "gate_args.h"
#include "number_arg.h"
#include "table.h"
#include "tag_arg.h"

namespace energy::cli {
namespace {

// The --tag K=V options as a tags object (other options are skipped).
Result<nlohmann::json> parse_tags(const Args& args) {
  nlohmann::json tags = nlohmann::json::object();
  for (const auto& [flag, kv] : args.options) {
    if (flag != "--tag") continue;
    if (auto st = add_tag_arg(kv, tags); !st) return st.take_error();
  }
  return tags;
}

// The mark arguments with --items, when given.
Status add_items(const Args& args, nlohmann::json& mark_args) {
  for (const auto& [flag, value] : args.options) {
    if (flag != "--items") continue;
    auto n = parse_positive_option("--items", value);
    if (!n) return n.take_error();
    mark_args["items"] = *n;
  }
  return ok_status();
}

int mark_start(const Context& ctx, const Args& args) {
  const auto& words = args.words;
  if (words.size() < 2)
    return usage_error(ctx, "mark start needs a run name: energyctl mark start NAME [--tag K=V]...");
  if (words.size() > 2) return usage_error(ctx, "unexpected argument '" + words[2] + "'");
  auto tags = parse_tags(args);
  if (!tags) return usage_error(ctx, tags.error().message);
  nlohmann::json start = {{"name", words[1]}, {"tags", *tags}};
  if (auto st = add_items(args, start); !st) return usage_error(ctx, st.error().message);
  for (const auto& [flag, value] : args.options) {
    if (flag == "--pid") {
      auto pid = parse_whole_option("--pid", value, 1, int64_t{1} << 22);
      if (!pid) return usage_error(ctx, pid.error().message);
      start["pid"] = *pid;
    }
    if (!is_gate_option(flag, true)) continue;
    if (auto st = apply_gate_option(flag, value, start); !st) return usage_error(ctx, st.error().message);
  }
  auto out = call_daemon(ctx, "mark.start", start);
  if (out.exit_code != kExitOk) return out.exit_code;
  if (ctx.json)
    print_json(out.result);
  else
    std::cout << "started run " << out.result.value("id", 0) << " (" << safe_text(out.result, "name") << ")\n";
  return kExitOk;
}

int mark_stop(const Context& ctx, const Args& args) {
  for (const auto& [flag, value] : args.options) {
    if (flag == "--tag") return usage_error(ctx, "mark stop takes no --tag");
    if (is_gate_option(flag, true) || flag == "--pid")
      return usage_error(ctx, flag + " goes with mark start: it is set as the run opens");
  }
  if (args.words.size() != 2)
    return usage_error(ctx, "mark stop needs exactly one run name or id: energyctl mark stop NAME|ID [--items N]");
  nlohmann::json stop = {{"run", args.words[1]}};
  if (auto st = add_items(args, stop); !st) return usage_error(ctx, st.error().message);
  auto out = call_daemon(ctx, "mark.stop", stop);
  if (out.exit_code != kExitOk) return out.exit_code;
  if (ctx.json)
    print_json(out.result);
  else
    std::cout << render_report(out.result);
  return kExitOk;
}

}  // namespace

int cmd_mark(const Context& ctx, const Args& args) {
  if (args.words.empty()) return usage_error(ctx, "mark needs 'start' or 'stop'");
  if (args.words[0] == "start") return mark_start(ctx, args);
  if (args.words[0] == "stop") return mark_stop(ctx, args);
  return usage_error(ctx, "unknown mark action '" + args.words[0] + "' (expected start or stop)");
}

}  // namespace energy::cli
