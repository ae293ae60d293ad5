// energyctl baseline [--duration D] [--name N] [--json]: measures the idle
// power (a run tagged energyd.kind=baseline lasting D, default 10 s) and
// prints it per rail and in total; later runs report idle and net energy
// against the newest baseline (baseline_measure.h).
// energyctl baseline --show [--json]: the newest baseline.
#include <iostream>

#include "baseline_measure.h"
#include "command.h"
#include "duration_arg.h"
#include "run_report.h"
#include "table.h"
#include "time_arg.h"

namespace energy::cli {
namespace {

struct BaselineArgs {
  BaselineRequest request;
  bool show = false;
  bool json = false;
};

Status apply(const std::string& flag, const std::string& value, BaselineArgs& a) {
  if (flag == "--name") {
    if (value.empty() || value.size() > 200) return make_error(ErrorCode::kInvalid, "--name must be 1-200 characters");
    a.request.name = value;
    return ok_status();
  }
  if (flag != "--duration") return make_error(ErrorCode::kInvalid, "unknown option '" + flag + "' for baseline");
  auto ms = parse_duration_ms(value);
  if (!ms) return make_error(ErrorCode::kInvalid, "--duration: " + ms.error().message);
  if (*ms > kMaxBaselineMs)
    return make_error(ErrorCode::kInvalid, "--duration must be at most 1h, got '" + value + "'");
  a.request.duration_ms = *ms;
  return ok_status();
}

Result<BaselineArgs> parse_baseline_args(const Context& ctx, const Args& args) {
  BaselineArgs a;
  a.json = ctx.json;
  bool measuring_option = false;
  if (auto st = no_words(args, "baseline"); !st) return st.take_error();
  auto applied = for_each_option(args, [&](const std::string& flag, const std::string& value) {
    if (flag == "--show") {
      a.show = true;
      return ok_status();
    }
    measuring_option = true;
    return apply(flag, value, a);
  });
  if (!applied) return applied.take_error();
  if (a.show && measuring_option) return make_error(ErrorCode::kInvalid, "--show takes no --duration or --name");
  return a;
}

int show(const Context& ctx, bool json) {
  nlohmann::json filter = {{"tags", {{"energyd.kind", "baseline"}}}, {"state", "stopped"}, {"limit", 1}};
  auto list = call_daemon(ctx, "runs.list", filter);
  if (list.exit_code != kExitOk) return list.exit_code;
  const auto& runs = member(list.result, "runs");
  if (runs.empty()) {
    std::fprintf(stderr, "energyctl: no baseline has been measured; 'energyctl baseline' measures one\n");
    return kExitFailed;
  }
  auto rep = call_daemon(ctx, "runs.show", {{"run", std::to_string(runs[0].value("id", int64_t{0}))}});
  if (rep.exit_code != kExitOk) return rep.exit_code;
  if (json) {
    print_json(rep.result);
    return kExitOk;
  }
  int64_t stop_wall = member(rep.result, "run").value("stop_wall_ns", int64_t{0});
  std::cout << render_baseline(rep.result) << "measured " << format_local_ns(stop_wall) << " ("
            << duration_text(static_cast<double>(wall_now_ns() - stop_wall) / 1e9) << " ago)\n";
  return kExitOk;
}

}  // namespace

int cmd_baseline(const Context& ctx, const Args& args) {
  auto a = parse_baseline_args(ctx, args);
  if (!a) return usage_error(ctx, a.error().message);
  if (a->show) return show(ctx, a->json);
  auto out = measure_baseline(ctx, a->request);
  if (out.report.is_null()) return out.exit_code;
  if (out.signal != 0) {
    std::fprintf(stderr,
                 "energyctl: the baseline was cut short by %s; run %lld is tagged "
                 "energyd.kind=baseline-interrupted and will not be used\n",
                 signal_name(out.signal).c_str(),
                 static_cast<long long>(member(out.report, "run").value("id", int64_t{0})));
  }
  if (a->json)
    print_json(out.report);
  else
    std::cout << render_baseline(out.report);
  if (out.signal == 0 && !a->json) std::cout << "runs from now on report idle and net energy against it\n";
  return out.exit_code;
}

}  // namespace energy::cli
