#include "sweep_cooldown.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace energy::cli {
namespace {

constexpr std::chrono::milliseconds kPollEvery{100};

using SteadyClock = std::chrono::steady_clock;

std::optional<double> hottest_zone(const nlohmann::json& clocks) {
  std::optional<double> out;
  for (const auto& z : member(clocks, "thermal")) {
    const auto& t = member(z, "temp_c");
    if (t.is_number() && !z.value("gated", false)) out = std::max(out.value_or(t.get<double>()), t.get<double>());
  }
  return out;
}

// Sleeps up to `ms` in short slices; returns a forwarded-kind signal that arrived, or 0.
int sleep_watching(int64_t ms, const SignalBlock& block) {
  auto end = SteadyClock::now() + std::chrono::milliseconds(ms);
  for (;;) {
    if (int sig = block.take_pending(); sig != 0) return sig;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - SteadyClock::now());
    if (left.count() <= 0) return 0;
    std::this_thread::sleep_for(std::min(left, kPollEvery));
  }
}

int64_t ms_since(SteadyClock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - t).count();
}

// Polls until near idle, the timeout, a signal or a failed read (then it
// stops waiting and says why in the outcome).
CooldownOutcome wait_for_idle(const Context& ctx, int64_t timeout_ms, const IdleReference& idle,
                              const SignalBlock& block) {
  CooldownOutcome out;
  auto began = SteadyClock::now();
  for (;;) {
    auto now = read_board(ctx);
    if (!now) {
      out.read_error = now.error().describe();
      break;
    }
    if (near_idle(*now, idle)) break;
    if (ms_since(began) >= timeout_ms) {
      out.timed_out = true;
      break;
    }
    out.signal = sleep_watching(kPollEvery.count(), block);
    if (out.signal != 0) break;
  }
  out.waited_ms = ms_since(began);
  return out;
}

}  // namespace

Result<IdleReference> read_board(const Context& ctx) {
  auto client = connect_daemon(ctx);
  if (!client) return client.take_error();
  auto status = client->call("status");
  if (!status) return status.take_error();
  const auto& power = member(member(*status, "total"), "power_w");
  if (!power.is_number()) return make_error(ErrorCode::kState, "energyd has no reading of the module's total power");
  IdleReference out;
  out.power_w = power.get<double>();
  auto clocks = client->call("clocks");
  if (clocks) out.temp_c = hottest_zone(*clocks);
  return out;
}

bool near_idle(const IdleReference& now, const IdleReference& idle) {
  bool power = now.power_w <= idle.power_w * (1.0 + kCooldownPowerShare) + kCooldownPowerSlackW;
  bool temp = !now.temp_c || !idle.temp_c || *now.temp_c <= *idle.temp_c + kCooldownTempSlackC;
  return power && temp;
}

CooldownOutcome cool_down(const Context& ctx, const Cooldown& rule, const IdleReference& idle,
                          const SignalBlock& block) {
  if (rule.mode == CooldownMode::kOff) return {};
  if (rule.mode == CooldownMode::kAuto) return wait_for_idle(ctx, rule.ms, idle, block);
  CooldownOutcome out;
  auto began = SteadyClock::now();
  out.signal = sleep_watching(rule.ms, block);
  out.waited_ms = ms_since(began);
  return out;
}

}  // namespace energy::cli
