// energyctl runs [--name N] [--tag K=V]... [--since T] [--until T]
//                [--state open|stopped|interrupted] [--limit N] [--json]
//
// Runs newest first (runs.list), as a table: id, name, state, start (local
// time), duration, module energy and average power. --limit (default 100,
// at most 10000) bounds the rows; more pages are fetched as needed.
#include <iostream>

#include "command.h"
#include "number_arg.h"
#include "run_list.h"
#include "table.h"
#include "tag_arg.h"
#include "time_arg.h"

namespace energy::cli {
namespace {

constexpr int64_t kDefaultLimit = 100;
constexpr int64_t kMaxLimit = 10000;

struct RunsArgs {
  nlohmann::json filter = nlohmann::json::object();  // runs.list arguments without limit/paging
  int64_t limit = kDefaultLimit;
  bool json = false;
};

Status apply_option(const std::string& flag, const std::string& value, RunsArgs& a) {
  if (flag == "--name") {
    if (value.empty()) return make_error(ErrorCode::kInvalid, "--name needs a run name, got ''");
    a.filter["name"] = value;
  } else if (flag == "--tag") {
    return add_tag_arg(value, a.filter["tags"]);
  } else if (flag == "--since" || flag == "--until") {
    auto t = parse_time_option(flag, value, wall_now_ns());
    if (!t) return t.take_error();
    a.filter[flag == "--since" ? "since_wall_ns" : "until_wall_ns"] = *t;
  } else if (flag == "--state") {
    if (value != "open" && value != "stopped" && value != "interrupted") {
      return make_error(ErrorCode::kInvalid, "--state must be open, stopped or interrupted, got '" + value + "'");
    }
    a.filter["state"] = value;
  } else if (flag == "--limit") {
    auto n = parse_whole_option("--limit", value, 1, kMaxLimit);
    if (!n) return n.take_error();
    a.limit = *n;
  } else {
    return make_error(ErrorCode::kInvalid, "unknown option '" + flag + "' for runs");
  }
  return ok_status();
}

Result<RunsArgs> parse_runs_args(const Context& ctx, const Args& args) {
  RunsArgs a;
  a.json = ctx.json;
  if (auto st = no_words(args, "runs"); !st) return st.take_error();
  auto applied = for_each_option(
      args, [&](const std::string& flag, const std::string& value) { return apply_option(flag, value, a); });
  if (!applied) return applied.take_error();
  if (a.filter.contains("since_wall_ns") && a.filter.contains("until_wall_ns") &&
      a.filter["until_wall_ns"].get<int64_t>() < a.filter["since_wall_ns"].get<int64_t>()) {
    return make_error(ErrorCode::kInvalid, "--until is before --since");
  }
  return a;
}

}  // namespace

int cmd_runs(const Context& ctx, const Args& args) {
  auto a = parse_runs_args(ctx, args);
  if (!a) return usage_error(ctx, a.error().message);
  auto page = fetch_runs(ctx, a->filter, a->limit);
  if (!page) return report_failure(page.error());
  if (a->json) {
    print_json({{"runs", page->runs}, {"more", page->more}});
    return kExitOk;
  }
  std::cout << render_run_list(page->runs);
  if (page->more) std::cout << "(the " << page->runs.size() << " newest matching runs; --limit N shows more)\n";
  return kExitOk;
}

}  // namespace energy::cli
