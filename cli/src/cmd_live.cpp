// energyctl live [--interval D] [--count N] [--json]: a tegrastats-like view
// (live_view.h) refreshed every D (default 1s, 100ms..1h) on absolute
// deadlines. On a terminal it redraws in place (ANSI home and clear);
// otherwise, and with --count for scripts, it prints one block per refresh;
// --json prints one JSON object per line. Runs until Ctrl-C or N refreshes.
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <limits>
#include <thread>

#include "command.h"
#include "duration_arg.h"
#include "live_view.h"
#include "number_arg.h"
#include "time_arg.h"

namespace energy::cli {
namespace {

constexpr int64_t kMinIntervalMs = 100;
constexpr int64_t kMaxIntervalMs = 3'600'000;

struct LiveArgs {
  int64_t interval_ms = 1000;
  int64_t count = 0;  // 0: until interrupted
  bool json = false;
};

Status apply(const std::string& flag, const std::string& value, LiveArgs& a) {
  if (flag == "--count") {
    auto n = parse_whole_option("--count", value, 1, std::numeric_limits<int64_t>::max());
    if (!n) return n.take_error();
    a.count = *n;
    return ok_status();
  }
  if (flag != "--interval") return make_error(ErrorCode::kInvalid, "unknown option '" + flag + "' for live");
  auto ms = parse_duration_ms(value);
  if (!ms) return make_error(ErrorCode::kInvalid, "--interval: " + ms.error().message);
  if (*ms < kMinIntervalMs || *ms > kMaxIntervalMs) {
    return make_error(ErrorCode::kInvalid, "--interval must be 100ms..1h, got '" + value + "'");
  }
  a.interval_ms = *ms;
  return ok_status();
}

Result<LiveArgs> parse_live_args(const Context& ctx, const Args& args) {
  LiveArgs a;
  a.json = ctx.json;
  if (auto st = no_words(args, "live"); !st) return st.take_error();
  auto applied =
      for_each_option(args, [&](const std::string& flag, const std::string& value) { return apply(flag, value, a); });
  if (!applied) return applied.take_error();
  return a;
}

Result<nlohmann::json> snapshot(Client& client) {
  auto status = client.call("status");
  if (!status) return status.take_error();
  auto clocks = client.call("clocks");
  if (!clocks) return clocks.take_error();
  return live_snapshot(*status, *clocks, wall_now_ns());
}

void show(const nlohmann::json& snap, bool json, bool redraw) {
  if (json) {
    std::cout << snap.dump() << "\n" << std::flush;
    return;
  }
  // Home, the block, then clear whatever the previous (longer) block left below.
  if (redraw)
    std::cout << "\x1b[H" << render_live(snap) << "\x1b[J" << std::flush;
  else
    std::cout << render_live(snap) << "\n" << std::flush;
}

}  // namespace

int cmd_live(const Context& ctx, const Args& args) {
  auto a = parse_live_args(ctx, args);
  if (!a) return usage_error(ctx, a.error().message);
  auto client = connect_daemon(ctx);
  if (!client) return report_failure(client.error());
  bool redraw = !a->json && ::isatty(STDOUT_FILENO) == 1;
  if (redraw) std::cout << "\x1b[2J";
  auto next = std::chrono::steady_clock::now();
  for (int64_t shown = 0; a->count == 0 || shown < a->count; ++shown) {
    if (shown > 0) std::this_thread::sleep_until(next);
    auto snap = snapshot(*client);
    if (!snap) return report_failure(snap.error());
    show(*snap, a->json, redraw);
    next += std::chrono::milliseconds(a->interval_ms);
  }
  return kExitOk;
}

}  // namespace energy::cli
