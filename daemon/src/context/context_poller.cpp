#include "context_poller.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>

#include <pthread.h>

#include "context_tracker.h"
#include "energy/context_probe.h"
#include "energy/histogram.h"

namespace energy::daemon {

using SteadyClock = std::chrono::steady_clock;

struct ContextPoller::Shared {
  std::atomic<bool> stopping{false};  // also read without the mutex, right after a read returns
  // on_sweep() wakes the poller once the steady clock (ns) reaches this: the
  // next poll is due (within sweep_early). INT64_MAX: not waiting for a sweep.
  std::atomic<int64_t> nudge_from_ns{INT64_MAX};
  mutable std::mutex mu;  // guards the members below
  std::condition_variable cv;
  bool requested = false;
  std::vector<std::function<void()>> waiting;  // poll_now(polled): called once the asked poll is delivered
  bool nudged = false;                         // a sweep came when a poll was due
  bool finished = false;
  std::condition_variable finished_cv;
  ContextSink* sink = nullptr;  // null once stop() has returned
  ContextPollerStats stats;
  LatencyHistogram clock_poll_ns;
  LatencyHistogram thermal_poll_ns;
};

namespace {

int64_t steady_ns(SteadyClock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

// A read that takes longer than this (or a whole period) did not observe
// the source all along; sysfs reads normally take microseconds.
constexpr int64_t kMinStallNs = 20 * kNsPerMs;

// A schedule whose polls wait for the sampler's sweeps.
bool rides_sweeps(const ContextPollerOptions& o, std::chrono::milliseconds period) {
  return o.sweep_period.count() > 0 && o.sweep_period <= period;
}

// Gap: 2.5 periods as for rail readings, plus the wait for a sweep.
ContextTracker::Limits limits_for(const ContextPollerOptions& o, std::chrono::milliseconds period) {
  int64_t p = period.count() * kNsPerMs;
  int64_t wait = rides_sweeps(o, period) ? o.sweep_wait.count() * kNsPerMs : 0;
  return {p, std::max(p, kMinStallNs), p * 5 / 2 + wait};
}

// What one poll produced, handed to the sink and the stats under the lock.
struct PollOutcome {
  std::vector<ContextChange> rows;
  int64_t stalls = 0;
  int64_t gaps = 0;
};

// Everything the polling thread owns; moved into it, so a thread left
// behind in a blocked read still owns what it touches.
class PollWork {
 public:
  PollWork(const SysRoot& root, const ClockInventory& inv, ContextPollerOptions o, const Clock& clock)
      : probe_(root, inv),
        options_(o),
        clock_(clock),
        clocks_(limits_for(o, o.clock_period)),
        thermal_(limits_for(o, o.thermal_period)),
        clock_stall_ns_(limits_for(o, o.clock_period).stall_ns),
        thermal_stall_ns_(limits_for(o, o.thermal_period).stall_ns) {}

  bool clocks_on() const { return options_.clock_period.count() > 0; }
  bool thermal_on() const { return options_.thermal_period.count() > 0; }
  std::chrono::milliseconds clock_period() const { return options_.clock_period; }
  std::chrono::milliseconds thermal_period() const { return options_.thermal_period; }
  std::chrono::milliseconds sweep_early() const { return options_.sweep_early; }
  std::chrono::milliseconds sweep_wait() const { return options_.sweep_wait; }
  bool rides(std::chrono::milliseconds period) const { return rides_sweeps(options_, period); }

  // Sources of a schedule that is off: unknown from the start.
  void announce_off(PollOutcome& out);
  // False when stopping was asked during a read (nothing more may be touched).
  bool poll_clocks(const std::atomic<bool>& stopping, PollOutcome& out, int64_t& took_ns);
  bool poll_thermal(const std::atomic<bool>& stopping, PollOutcome& out, int64_t& took_ns);
  void forget_all(std::vector<ContextChange>& out);

 private:
  ContextProbe probe_;
  ContextPollerOptions options_;
  const Clock& clock_;
  ContextTracker clocks_;
  ContextTracker thermal_;
  int64_t clock_stall_ns_;
  int64_t thermal_stall_ns_;
};

void PollWork::announce_off(PollOutcome& out) {
  int64_t t = clock_.boot_ns();
  if (!clocks_on()) {
    for (size_t i = 0; i < probe_.domain_count(); ++i) {
      clocks_.observe(ContextKind::kClock, probe_.domain_name(i), t, t, ContextValue::unknown(), out.rows);
      if (probe_.has_governor(i)) {
        clocks_.observe(ContextKind::kGovernor, probe_.domain_name(i), t, t, ContextValue::unknown(), out.rows);
      }
    }
  }
  if (!thermal_on()) {
    for (size_t i = 0; i < probe_.zone_count(); ++i) {
      thermal_.observe(ContextKind::kThermal, probe_.zone_name(i), t, t, ContextValue::unknown(), out.rows);
    }
  }
}

bool PollWork::poll_clocks(const std::atomic<bool>& stopping, PollOutcome& out, int64_t& took_ns) {
  const int64_t begin = clock_.boot_ns();
  size_t before = out.rows.size();
  clocks_.begin_poll(begin, out.rows);
  out.gaps += out.rows.size() > before ? 1 : 0;
  int64_t t = begin;
  for (size_t i = 0; i < probe_.domain_count(); ++i) {
    ContextValue hz = probe_.read_frequency(i);
    ContextValue gov = probe_.read_governor(i);
    if (stopping) return false;
    int64_t end = clock_.boot_ns();
    out.stalls += end - t > clock_stall_ns_ ? 1 : 0;
    clocks_.observe(ContextKind::kClock, probe_.domain_name(i), t, end, hz, out.rows);
    if (probe_.has_governor(i)) clocks_.observe(ContextKind::kGovernor, probe_.domain_name(i), t, end, gov, out.rows);
    t = end;
  }
  clocks_.end_poll(t);
  took_ns = t - begin;
  return true;
}

bool PollWork::poll_thermal(const std::atomic<bool>& stopping, PollOutcome& out, int64_t& took_ns) {
  const int64_t begin = clock_.boot_ns();
  size_t before = out.rows.size();
  thermal_.begin_poll(begin, out.rows);
  out.gaps += out.rows.size() > before ? 1 : 0;
  int64_t t = begin;
  for (size_t i = 0; i < probe_.zone_count(); ++i) {
    ContextValue mc = probe_.read_temperature(i);
    if (stopping) return false;
    int64_t end = clock_.boot_ns();
    out.stalls += end - t > thermal_stall_ns_ ? 1 : 0;
    thermal_.observe(ContextKind::kThermal, probe_.zone_name(i), t, end, mc, out.rows);
    t = end;
  }
  thermal_.end_poll(t);
  took_ns = t - begin;
  return true;
}

void PollWork::forget_all(std::vector<ContextChange>& out) {
  int64_t t = clock_.boot_ns();
  clocks_.forget_all(t, out);
  thermal_.forget_all(t, out);
}

// Under the lock: rows to the sink (unless stop() has returned), figures to the stats.
void deliver(ContextPoller::Shared& s, PollOutcome& out) {
  s.stats.rows += static_cast<int64_t>(out.rows.size());
  s.stats.stalls += out.stalls;
  s.stats.gaps += out.gaps;
  if (s.sink != nullptr && !out.rows.empty()) s.sink->push_context(std::move(out.rows));
  out = PollOutcome{};
}

void advance(SteadyClock::time_point& next, std::chrono::milliseconds period, SteadyClock::time_point now) {
  next += period;
  if (next <= now) next = now + period;  // held up: skip the missed polls rather than catch up
}

struct Wake {
  SteadyClock::time_point due;
  bool rides = false;  // waits for a sweep (until sweep_wait after due)
};

// When the next poll is due, and whether it waits for a sweep; none when both schedules are off.
std::optional<Wake> next_wake(const PollWork& w, SteadyClock::time_point clock_at, SteadyClock::time_point thermal_at) {
  bool clock_first = w.clocks_on() && (!w.thermal_on() || clock_at <= thermal_at);
  if (clock_first) return Wake{clock_at, w.rides(w.clock_period())};
  if (w.thermal_on()) return Wake{thermal_at, w.rides(w.thermal_period())};
  return std::nullopt;
}

// One turn: the polls that are due (or asked for). False when stopping.
bool poll_due(ContextPoller::Shared& s, PollWork& w, bool asked, bool nudged, SteadyClock::time_point& clock_at,
              SteadyClock::time_point& thermal_at) {
  auto now = SteadyClock::now() + (nudged ? w.sweep_early() : SteadyClock::duration::zero());
  PollOutcome out;
  int64_t took = 0;
  if (w.clocks_on() && (asked || now >= clock_at)) {
    if (!w.poll_clocks(s.stopping, out, took)) return false;
    if (now >= clock_at) advance(clock_at, w.clock_period(), now);
    std::lock_guard<std::mutex> lock(s.mu);
    ++s.stats.clock_polls;
    s.clock_poll_ns.record(took);
  }
  if (w.thermal_on() && (asked || now >= thermal_at)) {
    if (!w.poll_thermal(s.stopping, out, took)) return false;
    if (now >= thermal_at) advance(thermal_at, w.thermal_period(), now);
    std::lock_guard<std::mutex> lock(s.mu);
    ++s.stats.thermal_polls;
    s.thermal_poll_ns.record(took);
  }
  std::lock_guard<std::mutex> lock(s.mu);
  deliver(s, out);
  return true;
}

void poll_loop(ContextPoller::Shared& s, PollWork& w) {
  auto clock_at = SteadyClock::now();
  auto thermal_at = clock_at;
  std::unique_lock<std::mutex> lock(s.mu);
  while (!s.stopping) {
    auto woken = [&] { return s.stopping || s.requested || s.nudged; };
    auto wake = next_wake(w, clock_at, thermal_at);
    if (wake && wake->rides) {
      s.nudge_from_ns = steady_ns(wake->due - w.sweep_early());
      s.cv.wait_until(lock, wake->due + w.sweep_wait(), woken);
    } else if (wake) {
      s.cv.wait_until(lock, wake->due, woken);
    } else {
      s.cv.wait(lock, woken);  // nothing to poll: only a stop ends the wait
    }
    if (s.stopping) break;
    bool asked = s.requested;
    bool nudged = s.nudged;
    s.requested = s.nudged = false;
    s.nudge_from_ns = INT64_MAX;
    auto waiting = std::move(s.waiting);
    s.waiting.clear();
    lock.unlock();
    bool going_on = poll_due(s, w, asked, nudged, clock_at, thermal_at);
    for (auto& polled : waiting) polled();
    lock.lock();
    if (!going_on) return;
  }
  PollOutcome out;
  w.forget_all(out.rows);
  deliver(s, out);
}

void run_thread(const std::shared_ptr<ContextPoller::Shared>& s, PollWork& w) {
  PollOutcome first;
  w.announce_off(first);
  {
    std::lock_guard<std::mutex> lock(s->mu);
    deliver(*s, first);
  }
  poll_loop(*s, w);
  std::lock_guard<std::mutex> lock(s->mu);
  for (auto& polled : s->waiting) polled();  // stopping: nobody waits for a poll that will not come
  s->waiting.clear();
  s->finished = true;
  s->finished_cv.notify_all();
}

}  // namespace

ContextPoller::ContextPoller(const SysRoot& root, const ClockInventory& inventory, ContextPollerOptions options,
                             const Clock& clock, ContextSink& sink)
    : shared_(std::make_shared<Shared>()) {
  shared_->sink = &sink;
  auto work = std::make_shared<PollWork>(root, inventory, options, clock);
  thread_ = std::thread([s = shared_, work]() mutable {
    pthread_setname_np(pthread_self(), "context");
    std::unique_lock<std::mutex> lock(s->mu);
    s->cv.wait(lock, [&] { return s->requested || s->stopping; });  // start() asks the first poll
    lock.unlock();
    run_thread(s, *work);
  });
}

ContextPoller::~ContextPoller() { stop(std::chrono::milliseconds(1000)); }

void ContextPoller::start() { poll_now(); }

void ContextPoller::on_sweep() {
  if (steady_ns(SteadyClock::now()) < shared_->nudge_from_ns.load(std::memory_order_relaxed)) return;
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    if (shared_->nudged || shared_->nudge_from_ns == INT64_MAX) return;
    shared_->nudged = true;
    shared_->nudge_from_ns = INT64_MAX;
  }
  shared_->cv.notify_one();
}

void ContextPoller::poll_now() { poll_now(nullptr); }

void ContextPoller::poll_now(std::function<void()> polled) {
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    shared_->requested = true;
    ++shared_->stats.requested_polls;
    if (polled) shared_->waiting.push_back(std::move(polled));
  }
  shared_->cv.notify_one();
}

void ContextPoller::stop(std::chrono::milliseconds grace) {
  if (!thread_.joinable()) return;
  std::unique_lock<std::mutex> lock(shared_->mu);
  shared_->stopping = true;
  shared_->cv.notify_all();
  bool done = shared_->finished_cv.wait_for(lock, grace, [&] { return shared_->finished; });
  shared_->sink = nullptr;
  lock.unlock();
  if (done)
    thread_.join();
  else
    thread_.detach();
}

ContextPollerStats ContextPoller::stats() const {
  std::lock_guard<std::mutex> lock(shared_->mu);
  ContextPollerStats s = shared_->stats;
  s.clock_poll_p50_ns = shared_->clock_poll_ns.quantile(0.5);
  s.clock_poll_p99_ns = shared_->clock_poll_ns.quantile(0.99);
  s.clock_poll_max_ns = shared_->clock_poll_ns.max();
  s.thermal_poll_p50_ns = shared_->thermal_poll_ns.quantile(0.5);
  s.thermal_poll_max_ns = shared_->thermal_poll_ns.max();
  return s;
}

}  // namespace energy::daemon
