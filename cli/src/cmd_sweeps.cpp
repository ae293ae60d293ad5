// energyctl sweeps [--state S] [--limit N]: stored sweeps newest first
// (sweep.list): id, name, state, points measured, measure runs, created.
//
// energyctl sweep show ID [--json] and energyctl sweep export ID
// [--csv | --json]: one sweep's results (sweep_view.h) or its runs
// (sweep_export.h). Every other form of `energyctl sweep` runs a sweep
// (cmd_sweep_run); `sweep` dispatches on its first word.
#include <iostream>

#include "command.h"
#include "command_table.h"
#include "number_arg.h"
#include "sweep_export.h"
#include "sweep_view.h"
#include "table.h"
#include "time_arg.h"

namespace energy::cli {
namespace {

using nlohmann::json;

constexpr int64_t kMaxSweepsLimit = 1000;

Result<json> sweeps_filter(const Args& args) {
  json filter = json::object();
  if (auto st = no_words(args, "sweeps"); !st) return st.take_error();
  auto applied = for_each_option(args, [&](const std::string& flag, const std::string& value) -> Status {
    if (flag == "--state") {
      if (value != "running" && value != "interrupted" && value != "complete")
        return make_error(ErrorCode::kInvalid, "--state must be running, interrupted or complete, got '" + value + "'");
      filter["state"] = value;
      return ok_status();
    }
    auto n = parse_whole_option("--limit", value, 1, kMaxSweepsLimit);
    if (!n) return n.take_error();
    filter["limit"] = *n;
    return ok_status();
  });
  if (!applied) return applied.take_error();
  return filter;
}

std::string render_sweep_list(const json& sweeps) {
  Table t({{"id", Align::kRight},
           {"name", Align::kLeft},
           {"state", Align::kLeft},
           {"points", Align::kRight},
           {"runs", Align::kRight},
           {"created", Align::kLeft}});
  for (const auto& s : sweeps) {
    t.add_row({std::to_string(s.value("id", int64_t{0})), s.value("name", ""), s.value("state", ""),
               std::to_string(s.value("points", int64_t{0})), std::to_string(s.value("runs", int64_t{0})),
               format_local_ns(s.value("created_wall_ns", int64_t{0}))});
  }
  return t.render();
}

// The sweep id after `show` or `export`, and the options after it.
struct SubArgs {
  int64_t id = 0;
  Args rest;
};

Result<SubArgs> sub_args(const Args& args, const std::vector<OptionSpec>& options) {
  const std::string& verb = args.words.front();
  if (args.words.size() < 2) return make_error(ErrorCode::kInvalid, "sweep " + verb + " needs a sweep ID");
  auto id = parse_whole_option("sweep " + verb + " ID", args.words[1], 1, INT64_MAX);
  if (!id) return id.take_error();
  std::vector<std::string> rest(args.words.begin() + 2, args.words.end());
  auto parsed = parse_args(options, rest, false, "for sweep " + verb);
  if (!parsed) return parsed.take_error();
  if (!parsed->words.empty())
    return make_error(ErrorCode::kInvalid, "sweep " + verb + " takes one ID, got '" + parsed->words[0] + "' after it");
  parsed->options.insert(parsed->options.begin(), args.options.begin(), args.options.end());
  return SubArgs{*id, std::move(parsed).value()};
}

int sweep_show(Context ctx, const Args& args) {
  auto a = sub_args(args, {{"--json", "", ""}});
  if (!a) return usage_error(ctx, a.error().message);
  for (const auto& [flag, value] : a->rest.options) {
    if (flag != "--json") return usage_error(ctx, "sweep show takes --json only, not " + flag);
    ctx.json = true;
  }
  return print_sweep_results(ctx, a->id);
}

int sweep_export(const Context& ctx, const Args& args) {
  auto a = sub_args(args, {{"--csv", "", ""}, {"--json", "", ""}});
  if (!a) return usage_error(ctx, a.error().message);
  bool json_out = ctx.json;
  for (const auto& [flag, value] : a->rest.options) {
    if (flag != "--json" && flag != "--csv") return usage_error(ctx, "sweep export takes --csv or --json, not " + flag);
    json_out = flag == "--json";
  }
  auto reply = call_daemon(ctx, "sweep.show", {{"sweep", a->id}});
  if (reply.exit_code != kExitOk) return reply.exit_code;
  auto results = sweep_results_from(reply.result);
  if (!results) return report_failure(results.error());
  if (json_out) {
    print_json(sweep_export_json(*results));
  } else {
    std::cout << sweep_export_csv(*results);
  }
  return kExitOk;
}

}  // namespace

int cmd_sweeps(const Context& ctx, const Args& args) {
  auto filter = sweeps_filter(args);
  if (!filter) return usage_error(ctx, filter.error().message);
  auto reply = call_daemon(ctx, "sweep.list", *filter);
  if (reply.exit_code != kExitOk) return reply.exit_code;
  if (ctx.json) {
    print_json(reply.result);
    return kExitOk;
  }
  const json& sweeps = member(reply.result, "sweeps");
  std::cout << (sweeps.empty() ? std::string("no sweeps\n") : render_sweep_list(sweeps));
  if (reply.result.contains("next_before_id")) std::cout << "(more: raise --limit)\n";
  return kExitOk;
}

// The dispatch hook: `show`, `export` and `plot` are read here; anything else
// (options, `--resume ID`, `-- CMD ...`) runs a sweep.
int cmd_sweep(const Context& ctx, const Args& args) {
  if (!args.words.empty() && args.words.front() == "show") return sweep_show(ctx, args);
  if (!args.words.empty() && args.words.front() == "export") return sweep_export(ctx, args);
  if (!args.words.empty() && args.words.front() == "plot") return cmd_sweep_plot(ctx, args);
  return cmd_sweep_run(ctx, args);
}

}  // namespace energy::cli
