// energyctl compare RUN RUN... [--json]: the runs' reports (runs.show) side
// by side, with each figure's difference to the first run (compare.h).
// energyctl compare --by TAG [--name N] [--tag K=V]... [--limit N] [--json]:
// the stopped runs (runs.list, newest --limit, default 1000) grouped by
// TAG's value, with means, 95% intervals and differences from the first
// group (group_compare.h).
#include <iostream>

#include "command.h"
#include "compare.h"
#include "group_compare.h"
#include "number_arg.h"
#include "run_list.h"
#include "tag_arg.h"

namespace energy::cli {
namespace {

constexpr int64_t kDefaultGroupRuns = 1000;
constexpr int64_t kMaxGroupRuns = 10000;

struct GroupArgs {
  std::string by;
  nlohmann::json filter = {{"state", "stopped"}};
  int64_t limit = kDefaultGroupRuns;
};

Status apply_group_option(const std::string& flag, const std::string& value, GroupArgs& a) {
  if ((flag == "--by" || flag == "--name") && value.empty()) {
    return make_error(ErrorCode::kInvalid, flag + " needs a value, got ''");
  }
  if (flag == "--by") {
    a.by = value;
  } else if (flag == "--name") {
    a.filter["name"] = value;
  } else if (flag == "--tag") {
    return add_tag_arg(value, a.filter["tags"]);
  } else if (flag == "--limit") {
    auto n = parse_whole_option("--limit", value, 1, kMaxGroupRuns);
    if (!n) return n.take_error();
    a.limit = *n;
  }
  return ok_status();
}

Result<GroupArgs> parse_groups(const Args& args) {
  GroupArgs a;
  for (const auto& [flag, value] : args.options) {
    if (auto st = apply_group_option(flag, value, a); !st) return st.take_error();
  }
  if (a.by.empty()) return make_error(ErrorCode::kInvalid, "--name, --tag and --limit go with --by TAG");
  if (!args.words.empty())
    return make_error(ErrorCode::kInvalid, "compare --by takes no run ids, got '" + args.words[0] + "'");
  return a;
}

int compare_groups(const Context& ctx, const Args& args) {
  auto a = parse_groups(args);
  if (!a) return usage_error(ctx, a.error().message);
  auto page = fetch_runs(ctx, a->filter, a->limit);
  if (!page) return report_failure(page.error());
  auto comparison = group_compare_json(page->runs, a->by);
  comparison["more"] = page->more;
  if (ctx.json) {
    print_json(comparison);
    return kExitOk;
  }
  std::cout << render_group_compare(comparison);
  if (page->more)
    std::cout << "note: only the newest " << a->limit << " stopped runs were grouped (--limit N takes more)\n";
  return kExitOk;
}

int compare_runs(const Context& ctx, const Args& args) {
  const auto& runs = args.words;
  if (runs.size() < 2)
    return usage_error(ctx, "compare needs at least two run ids or names (energyctl compare RUN RUN...) or --by TAG");
  auto client = connect_daemon(ctx);
  if (!client) return report_failure(client.error());
  std::vector<nlohmann::json> reports;
  for (const auto& run : runs) {
    auto rep = client->call("runs.show", {{"run", run}});
    if (!rep) return report_failure(rep.error());
    reports.push_back(std::move(rep).value());
  }
  auto comparison = compare_json(reports);
  if (ctx.json)
    print_json(comparison);
  else
    std::cout << render_compare(comparison);
  return kExitOk;
}

}  // namespace

int cmd_compare(const Context& ctx, const Args& args) {
  if (args.options.empty()) return compare_runs(ctx, args);
  return compare_groups(ctx, args);
}

}  // namespace energy::cli
