// energyctl export [--since T] [--until T] [--rail R] [--format csv|json]:
// raw readings as stored, paged from the daemon and printed as they come.
#include <time.h>

#include <iostream>

#include "command.h"
#include "time_arg.h"

namespace energy::cli {
namespace {

struct ExportArgs {
  int64_t since = 0;
  int64_t until = 0;
  std::string rail;
  bool csv = true;
};

int64_t wall_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

Result<ExportArgs> parse(const Context& ctx, const std::vector<std::string>& args) {
  ExportArgs out{0, wall_now_ns(), "", !ctx.json};
  for (size_t i = 0; i < args.size(); ++i) {
    if (i + 1 >= args.size()) return make_error(ErrorCode::kInvalid, "option '" + args[i] + "' needs a value");
    const std::string& flag = args[i];
    const std::string& value = args[++i];
    if (flag == "--rail") {
      out.rail = value;
      continue;
    }
    if (flag == "--format" && (value == "csv" || value == "json")) {
      out.csv = value == "csv";
      continue;
    }
    if (flag == "--format") return make_error(ErrorCode::kInvalid, "--format must be csv or json, got '" + value + "'");
    if (flag != "--since" && flag != "--until") return make_error(ErrorCode::kInvalid, "unknown export option '" + flag + "'");
    auto t = parse_time_arg(value, wall_now_ns());
    if (!t) return t.take_error();
    (flag == "--since" ? out.since : out.until) = *t;
  }
  if (out.until < out.since) return make_error(ErrorCode::kInvalid, "--until is before --since");
  return out;
}

void print_csv_row(const nlohmann::json& r) {
  std::cout << r.value("boot_id", "") << ',' << r.value("t_ns", int64_t{0}) << ','
            << format_wall_ns(r.value("wall_ns", int64_t{0})) << ',' << r.value("rail", "") << ',';
  if (r.contains("errno")) {
    std::cout << ",,," << r["errno"].get<int>() << '\n';
    return;
  }
  std::cout << r.value("voltage_mv", 0) << ',' << r.value("current_ma", 0) << ',' << r.value("power_uw", int64_t{0})
            << ",\n";
}

}  // namespace

int cmd_export(const Context& ctx, const std::vector<std::string>& args) {
  auto a = parse(ctx, args);
  if (!a) return usage_error(a.error().message);
  if (a->csv) std::cout << "boot_id,t_ns,wall_time,rail,voltage_mv,current_ma,power_uw,errno\n";
  if (!a->csv) std::cout << "[";
  bool first = true;
  for (int64_t since = a->since;;) {
    auto out = call_daemon(ctx, "export", {{"since_wall_ns", since}, {"until_wall_ns", a->until}, {"rail", a->rail}});
    if (out.exit_code != kExitOk) return out.exit_code;
    for (const auto& r : member(out.result, "rows")) {
      if (a->csv) print_csv_row(r);
      else std::cout << (first ? "\n" : ",\n") << r.dump();
      first = false;
    }
    if (!out.result.value("truncated", false)) break;
    since = out.result.value("next_since_wall_ns", a->until);
  }
  if (!a->csv) std::cout << "\n]\n";
  return kExitOk;
}

}  // namespace energy::cli
