// energyctl export [--since T] [--until T] [--rail R] [--format csv|json | --csv | --json]:
// raw readings as stored, paged from the daemon and printed as they come.
// `energyctl export RUN ...` is cmd_export_run.cpp.
#include <time.h>

#include <iostream>

#include "command.h"
#include "export_format.h"
#include "time_arg.h"

namespace energy::cli {
namespace {

struct ExportArgs {
  int64_t since = 0;
  int64_t until = 0;
  std::string rail;
  bool csv = true;
};

Status apply(const std::string& flag, const std::string& value, ExportArgs& out) {
  if (flag == "--csv" || flag == "--json") {
    out.csv = flag == "--csv";
    return ok_status();
  }
  if (flag == "--rail" && value.empty()) return make_error(ErrorCode::kInvalid, "--rail needs a rail label, got ''");
  if (flag == "--rail") {
    out.rail = value;
    return ok_status();
  }
  if (flag == "--format" && (value == "csv" || value == "json")) {
    out.csv = value == "csv";
    return ok_status();
  }
  if (flag == "--format") return make_error(ErrorCode::kInvalid, "--format must be csv or json, got '" + value + "'");
  auto t = parse_time_option(flag, value, wall_now_ns());
  if (!t) return t.take_error();
  (flag == "--since" ? out.since : out.until) = *t;
  return ok_status();
}

Result<ExportArgs> parse_export_args(const Context& ctx, const Args& args) {
  ExportArgs out{0, wall_now_ns(), "", !ctx.json};
  auto applied =
      for_each_option(args, [&](const std::string& flag, const std::string& value) { return apply(flag, value, out); });
  if (!applied) return applied.take_error();
  if (out.until < out.since) return make_error(ErrorCode::kInvalid, "--until is before --since");
  return out;
}

}  // namespace

int cmd_export(const Context& ctx, const Args& args) {
  if (!args.words.empty()) return cmd_export_run(ctx, args);
  auto a = parse_export_args(ctx, args);
  if (!a) return usage_error(ctx, a.error().message);
  if (a->csv) std::cout << csv_header();
  if (!a->csv) std::cout << "[";
  bool first = true;
  for (int64_t since = a->since;;) {
    auto out = call_daemon(ctx, "export", {{"since_wall_ns", since}, {"until_wall_ns", a->until}, {"rail", a->rail}});
    if (out.exit_code != kExitOk) return out.exit_code;
    for (const auto& r : member(out.result, "rows")) {
      if (a->csv)
        std::cout << csv_row(r);
      else
        std::cout << (first ? "\n" : ",\n") << r.dump();
      first = false;
    }
    if (!out.result.value("truncated", false)) break;
    since = out.result.value("next_since_wall_ns", a->until);
  }
  if (!a->csv) std::cout << "\n]\n";
  return kExitOk;
}

}  // namespace energy::cli
