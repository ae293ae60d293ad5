#include "context_poller.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <mutex>
#include <optional>

#include <pthread.h>
#include <spdlog/spdlog.h>

#include "context_tracker.h"
#include "energy/context_probe.h"
#include "energy/histogram.h"
#include "energy/tick_path.h"
#include "energy/unique_fd.h"

namespace energy::daemon {

using SteadyClock = std::chrono::steady_clock;

namespace {

int64_t steady_ns(SteadyClock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

// A read that takes longer than this (or a whole period) did not observe
// the source all along; sysfs reads normally take microseconds.
constexpr int64_t kMinStallNs = 20 * kNsPerMs;
constexpr int64_t kNever = INT64_MAX / 4;  // a stall or gap limit that is never reached

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

// What one poll produced, handed to the sink and the stats under the lock
// (one locked section a poll: deliver).
struct PollOutcome {
  std::vector<ContextChange> rows;
  int64_t stalls = 0;
  int64_t gaps = 0;
  bool clock_polled = false;  // with how long it took, whether the governors were read, and the counting
  bool governors_read = false;
  int64_t clock_took_ns = 0;
  int64_t counted_clocks = 0;
  int64_t counter_fallbacks = 0;
  bool thermal_polled = false;
  int64_t thermal_took_ns = 0;
  bool inline_poll = false;  // on the sweeping thread
};

// When each schedule's next poll is due.
struct Schedule {
  SteadyClock::time_point clock_at;
  SteadyClock::time_point governor_at;  // the governors go with the first clock poll at or after this
  SteadyClock::time_point thermal_at;
};

// Everything a poll touches, owned through Shared (so a thread left behind
// in a blocked read still owns it) and used under Shared::work_mu by the
// polling thread or, inline, by the sampler's.
class PollWork {
 public:
  PollWork(const SysRoot& root, const ClockInventory& inv, ContextPollerOptions o, const Clock& clock)
      : probe_(root, inv),
        options_(o),
        clock_(clock),
        clocks_(limits_for(o, o.clock_period)),
        counted_tracker_(ContextTracker::Limits{0, kNever, kNever}),
        thermal_(limits_for(o, o.thermal_period)),
        clock_stall_ns_(limits_for(o, o.clock_period).stall_ns),
        thermal_stall_ns_(limits_for(o, o.thermal_period).stall_ns) {
    counted_.resize(probe_.domain_count());
    for (size_t i = 0; i < counted_.size(); ++i) counted_[i].on = probe_.has_counters(i);
    quiet_hz_.resize(probe_.domain_count());
  }

  bool clocks_on() const { return options_.clock_period.count() > 0; }
  bool thermal_on() const { return options_.thermal_period.count() > 0; }
  std::chrono::milliseconds clock_period() const { return options_.clock_period; }
  std::chrono::milliseconds thermal_period() const { return options_.thermal_period; }
  std::chrono::milliseconds governor_period() const { return std::max(options_.governor_period, clock_period()); }
  // At least half the sampling period: a sweep a little earlier than the one
  // the poll took its phase from (the previous one was late) still takes it.
  std::chrono::milliseconds sweep_early() const { return std::max(options_.sweep_early, options_.sweep_period / 2); }
  std::chrono::milliseconds sweep_wait() const { return options_.sweep_wait; }
  std::chrono::milliseconds timer_slack() const { return options_.timer_slack; }
  bool rides(std::chrono::milliseconds period) const { return rides_sweeps(options_, period); }

  // Sources of a schedule that is off: unknown from the start.
  void announce_off(PollOutcome& out);
  // False when stopping was asked during a read (nothing more may be touched).
  // With `governors` (or after a gap) the governors are read too; `governors` tells whether they were.
  bool poll_clocks(const std::atomic<bool>& stopping, PollOutcome& out, int64_t& took_ns, bool& governors);
  bool poll_thermal(const std::atomic<bool>& stopping, PollOutcome& out, int64_t& took_ns);
  void forget_all(std::vector<ContextChange>& out);
  int64_t counted_domains() const;
  int64_t counter_fallbacks() const { return counter_fallbacks_; }

  Schedule schedule;

 private:
  // A domain whose residency comes from its counters: the last read's.
  struct Counted {
    bool on = false;  // false: polled (no counters, or they failed)
    std::optional<ResidencyCounters> last;
    int64_t t_ns = 0;               // when `last` was read (its end)
    int64_t read_ns = 0;            // how long that read took
    std::optional<int64_t> cur_hz;  // the value in force after the last read
  };
  void poll_domain(size_t i, bool governors, bool gap, int64_t& t, PollOutcome& out);
  int64_t read_counted(size_t i, bool gap, int64_t start_ns, PollOutcome& out);
  // slack_ns: how long this read and the previous one took.
  Status count_interval(size_t i, const ResidencyCounters& now, const ContextValue& hz, int64_t end_ns,
                        int64_t slack_ns, PollOutcome& out);
  void stop_counting(size_t i, const Error& why, int64_t start_ns, int64_t end_ns, const ContextValue& hz,
                     PollOutcome& out);

  ContextProbe probe_;
  std::vector<Counted> counted_;
  int64_t counter_fallbacks_ = 0;
  ContextPollerOptions options_;
  const Clock& clock_;
  ContextTracker clocks_;
  // Per domain that is polled: its value as clocks_'s last row holds it,
  // when that is known. A read of the same value, neither stalled nor after
  // a gap, would make no row, so it does not go through the tracker: on
  // most ticks no clock changes (issue 16). Unknown (nullopt) until the
  // tracker has observed the domain, and again after forget_all.
  std::vector<std::optional<ContextValue>> quiet_hz_;
  // The counted domains' clock rows: no gaps and no stalls, as the counters
  // cover the time between two reads however long it is.
  ContextTracker counted_tracker_;
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

// A governor is observed only when read: between reads its last value
// holds (the clock poll's gap check covers it, and a gap forces a read).
ENERGY_TICK_PATH bool PollWork::poll_clocks(const std::atomic<bool>& stopping, PollOutcome& out, int64_t& took_ns,
                                            bool& governors) {
  const int64_t begin = clock_.boot_ns();
  size_t before = out.rows.size();
  clocks_.begin_poll(begin, out.rows);
  bool gap = out.rows.size() > before;
  out.gaps += gap ? 1 : 0;
  governors = governors || gap;
  int64_t t = begin;
  for (size_t i = 0; i < probe_.domain_count(); ++i) {
    poll_domain(i, governors, gap, t, out);
    if (stopping) return false;
  }
  clocks_.end_poll(t);
  took_ns = t - begin;
  return true;
}

// One domain: its frequency (from its counters at the governor cadence,
// else read every poll), and its governor when `governors`. `t` is when its
// reads start, and then when they ended. One clock read per file read: the
// end of one read is the start of the next (the bookkeeping between them
// takes well under a microsecond, against the stall limit's milliseconds).
ENERGY_TICK_PATH void PollWork::poll_domain(size_t i, bool governors, bool gap, int64_t& t, PollOutcome& out) {
  const bool counted = counted_[i].on;
  if (counted && !governors) return;  // counters: nothing is lost between reads
  int64_t end = 0;
  if (counted) {
    end = read_counted(i, gap, t, out);
  } else {
    ContextValue hz = probe_.read_frequency(i);
    end = clock_.boot_ns();
    const bool stalled = end - t > clock_stall_ns_;
    out.stalls += stalled ? 1 : 0;
    std::optional<ContextValue>& quiet = quiet_hz_[i];
    if (stalled || gap || !quiet || !(*quiet == hz)) {
      if (clocks_.observe(ContextKind::kClock, probe_.domain_name(i), t, end, hz, out.rows))
        quiet = std::move(hz);
      else
        quiet.reset();
    }
  }
  if (governors && probe_.has_governor(i)) {
    const int64_t start = end;
    ContextValue gov = probe_.read_governor(i);
    end = clock_.boot_ns();
    clocks_.observe(ContextKind::kGovernor, probe_.domain_name(i), start, end, gov, out.rows);
  }
  t = end;
}

// The counters and the current frequency, read together. The first read
// is a baseline: its value is observed as a poll's. After it, the interval
// since the previous read becomes rows giving each frequency its counted
// time, even after a gap (the counters cover it). A read that fails or
// does not add up ends the counting for the domain, except after a gap,
// when the board may have been suspended (jiffies stop, CLOCK_BOOTTIME
// does not): that interval is unknown and the read a new baseline.
// Returns when the reads ended.
int64_t PollWork::read_counted(size_t i, bool gap, int64_t start_ns, PollOutcome& out) {
  ContextValue hz = probe_.read_frequency(i);
  Result<ResidencyCounters> now = probe_.read_counters(i);
  const int64_t end = clock_.boot_ns();
  Counted& c = counted_[i];
  Status counted = !now ? Status(now.error()) : ok_status();
  if (counted && c.last) counted = count_interval(i, *now, hz, end, (end - start_ns) + c.read_ns, out);
  if (!counted && now && gap) {
    counted_tracker_.observe(ContextKind::kClock, probe_.domain_name(i), c.t_ns + 1, c.t_ns + 1,
                             ContextValue::unknown(), out.rows);
    counted = ok_status();
  }
  if (!counted) {
    stop_counting(i, counted.error(), start_ns, end, hz, out);
    return end;
  }
  counted_tracker_.observe(ContextKind::kClock, probe_.domain_name(i), start_ns, end, hz, out.rows);
  c.last = std::move(now).value();
  c.t_ns = end;
  c.read_ns = end - start_ns;
  c.cur_hz = hz.number;
  return end;
}

Status PollWork::count_interval(size_t i, const ResidencyCounters& now, const ContextValue& hz, int64_t end_ns,
                                int64_t slack_ns, PollOutcome& out) {
  Counted& c = counted_[i];
  const std::string& label = probe_.counters_label(i);
  Result<ResidencyCounters> delta = counter_delta(*c.last, now, label);
  if (!delta) return delta.take_error();
  Status covered = check_coverage(*delta, now.size(), probe_.counter_unit_ns(i), end_ns - c.t_ns, slack_ns, label);
  if (!covered) return covered;
  for (const ContextRow& row : counted_rows(*delta, c.t_ns, end_ns, c.cur_hz, hz.number)) {
    counted_tracker_.observe(ContextKind::kClock, probe_.domain_name(i), row.t_ns, row.t_ns, row.v, out.rows);
  }
  return ok_status();
}

// The domain is polled from now on, as a domain without counters; this
// read's value is its first poll.
void PollWork::stop_counting(size_t i, const Error& why, int64_t start_ns, int64_t end_ns, const ContextValue& hz,
                             PollOutcome& out) {
  counted_[i] = Counted{};
  counted_tracker_.forget(ContextKind::kClock, probe_.domain_name(i));
  clocks_.observe(ContextKind::kClock, probe_.domain_name(i), start_ns, end_ns, hz, out.rows);
  ++counter_fallbacks_;
  spdlog::warn("clock {}: residency counters unusable ({}); polling its current frequency every {} ms instead",
               probe_.domain_name(i), why.describe(), clock_period().count());
}

int64_t PollWork::counted_domains() const {
  return std::count_if(counted_.begin(), counted_.end(), [](const Counted& c) { return c.on; });
}

// Once a second; not inlined into poll_due, which runs every tick (tick_path.h).
[[gnu::noinline]] bool PollWork::poll_thermal(const std::atomic<bool>& stopping, PollOutcome& out, int64_t& took_ns) {
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
  std::fill(quiet_hz_.begin(), quiet_hz_.end(), std::nullopt);
  counted_tracker_.forget_all(t, out);
  thermal_.forget_all(t, out);
}

}  // namespace

struct ContextPoller::Shared {
  std::atomic<bool> stopping{false};  // also read without the mutex, right after a read returns
  // on_sweep() polls (or wakes the thread) once the steady clock (ns) reaches
  // this: the next poll is due (within sweep_early). INT64_MAX: not waiting for a sweep.
  std::atomic<int64_t> nudge_from_ns{INT64_MAX};
  std::atomic<bool> inline_polls{false};  // due polls run on the sweeping thread (ContextPollerOptions::inline_reads)
  UniqueFd wake_fd;                       // eventfd: a request, a nudge or stop
  UniqueFd timer_fd;                      // timerfd: when the thread polls on its own (absolute, CLOCK_MONOTONIC)
  SteadyClock::time_point timer_at{};     // when timer_fd fires (epoch: disarmed); guarded by work_mu
  std::mutex work_mu;                     // guards `work` (and its schedule); held for a whole poll
  std::unique_ptr<PollWork> work;
  // Quiet clock polls (no row, no stall, no gap, no governors, no thermal
  // poll: most ticks) are not delivered under `mu`: the polling side, which
  // holds work_mu, writes each one's duration into the next slot with no
  // lock, and stats() folds the slots into the figures below (fold_quiet).
  // When nobody asks, the polling side folds them itself once every slot is
  // taken (under `mu`, once per kQuietSlots polls). Issue 16. Here, beside
  // the members a tick touches anyway, rather than after the histograms.
  static constexpr size_t kQuietSlots = 64;
  std::atomic<uint64_t> quiet_written{0};  // stored by the polling side (release)
  std::atomic<uint64_t> quiet_folded{0};   // stored under `mu` (release)
  // The stats' counted_clocks and counter_fallbacks as last delivered:
  // written under both work_mu and `mu`, read by the polling side.
  int64_t delivered_counted = 0;
  int64_t delivered_fallbacks = 0;
  struct QuietPoll {
    int64_t took_ns = 0;
    bool inline_poll = false;
  };
  std::array<QuietPoll, kQuietSlots> quiet{};
  mutable std::mutex mu;  // guards the members below
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

using Shared = ContextPoller::Shared;

ENERGY_TICK_PATH void wake(const Shared& s) {
  uint64_t one = 1;
  (void)!::write(s.wake_fd.get(), &one, sizeof one);
}

// Under the lock: rows to the sink (unless stop() has returned), figures to the stats.
ENERGY_TICK_PATH void deliver(Shared& s, PollOutcome& out) {
  s.stats.rows += static_cast<int64_t>(out.rows.size());
  s.stats.stalls += out.stalls;
  s.stats.gaps += out.gaps;
  if (out.clock_polled) {
    ++s.stats.clock_polls;
    s.stats.governor_polls += out.governors_read ? 1 : 0;
    s.stats.counted_clocks = out.counted_clocks;
    s.stats.counter_fallbacks = out.counter_fallbacks;
    s.clock_poll_ns.record(out.clock_took_ns);
  }
  if (out.thermal_polled) {
    ++s.stats.thermal_polls;
    s.thermal_poll_ns.record(out.thermal_took_ns);
  }
  s.stats.inline_polls += out.inline_poll ? 1 : 0;
  if (s.sink != nullptr && !out.rows.empty()) s.sink->push_context(std::move(out.rows));
  out = PollOutcome{};
}

// Under `mu`: the quiet polls recorded since the last fold, into the stats.
[[gnu::noinline]] void fold_quiet(Shared& s) {
  const uint64_t w = s.quiet_written.load(std::memory_order_acquire);
  uint64_t f = s.quiet_folded.load(std::memory_order_relaxed);
  for (; f < w; ++f) {
    const Shared::QuietPoll& q = s.quiet[f % Shared::kQuietSlots];
    ++s.stats.clock_polls;
    s.stats.inline_polls += q.inline_poll ? 1 : 0;
    s.clock_poll_ns.record(q.took_ns);
  }
  s.quiet_folded.store(w, std::memory_order_release);
}

// Whether a poll's outcome changes nothing but the counts of clock polls
// and their durations (the stats' counted_clocks and counter_fallbacks as
// last delivered).
ENERGY_TICK_PATH bool quiet_outcome(const Shared& s, const PollOutcome& out) {
  return out.clock_polled && !out.governors_read && !out.thermal_polled && out.rows.empty() && out.stalls == 0 &&
         out.gaps == 0 && out.counted_clocks == s.delivered_counted && out.counter_fallbacks == s.delivered_fallbacks;
}

// A poll that is not quiet, under `mu`, after the quiet ones before it.
// Out of line: most ticks' polls are quiet (hand_in).
[[gnu::noinline]] void deliver_in_order(Shared& s, PollOutcome& out) {
  std::lock_guard<std::mutex> lock(s.mu);
  fold_quiet(s);
  deliver(s, out);
  s.delivered_counted = s.stats.counted_clocks;
  s.delivered_fallbacks = s.stats.counter_fallbacks;
}

// The polling side (holding work_mu): a quiet poll into its slot, without
// `mu` unless every slot is taken; anything else delivered under `mu`.
ENERGY_TICK_PATH void hand_in(Shared& s, PollOutcome& out) {
  if (!quiet_outcome(s, out)) return deliver_in_order(s, out);
  const uint64_t w = s.quiet_written.load(std::memory_order_relaxed);
  if (w - s.quiet_folded.load(std::memory_order_acquire) >= Shared::kQuietSlots) {
    std::lock_guard<std::mutex> lock(s.mu);
    fold_quiet(s);
  }
  s.quiet[w % Shared::kQuietSlots] = Shared::QuietPoll{out.clock_took_ns, out.inline_poll};
  s.quiet_written.store(w + 1, std::memory_order_release);
}

// A schedule's next due time after a poll at `now`: one period on (skipping
// missed polls rather than catching up), or, when the poll rode on a sweep
// at `real`, one period after that sweep.
ENERGY_TICK_PATH SteadyClock::time_point next_due(SteadyClock::time_point due, std::chrono::milliseconds period,
                                                  SteadyClock::time_point now, bool nudged,
                                                  SteadyClock::time_point real) {
  if (nudged) return real + period;
  due += period;
  return due <= now ? now + period : due;
}

struct Wake {
  SteadyClock::time_point due;
  bool rides = false;  // waits for a sweep (until sweep_wait after due)
  std::chrono::milliseconds period{0};
};

// When the next poll is due, and whether it waits for a sweep; none when both schedules are off.
ENERGY_TICK_PATH std::optional<Wake> next_wake(const PollWork& w) {
  const Schedule& at = w.schedule;
  bool clock_first = w.clocks_on() && (!w.thermal_on() || at.clock_at <= at.thermal_at);
  if (clock_first) return Wake{at.clock_at, w.rides(w.clock_period()), w.clock_period()};
  if (w.thermal_on()) return Wake{at.thermal_at, w.rides(w.thermal_period()), w.thermal_period()};
  return std::nullopt;
}

// Caller holds work_mu. Arms the thread's own timer for the next poll (a
// poll that rides on sweeps: sweep_wait after it is due, in case no sweep
// comes) and tells on_sweep when a sweep is early enough to take it.
// Re-arming a timerfd does not wake the thread that sleeps on it.
// `lazy` (after a poll that rode on a sweep, so sweeps are coming): a timer
// that already fires no sooner than needed and at most timer_slack later
// is kept, and a new one is set timer_slack late, so about one poll a
// second pays a timerfd_settime rather than every one. Sweeps that stop
// (the sampler's thread held up for longer than its own stall limit, which
// leaves a gap in the energy too) then have their polls taken over up to
// timer_slack late; a takeover later than the gap limit is a gap, unknown.
ENERGY_TICK_PATH void arm_next(Shared& s, const PollWork& w, bool lazy) {
  auto next = next_wake(w);
  SteadyClock::time_point fire{};
  if (next && next->rides) {
    s.nudge_from_ns = steady_ns(next->due - w.sweep_early());
    fire = next->due + w.sweep_wait();
    const auto slack = std::max<SteadyClock::duration>(w.timer_slack(), next->period);
    if (lazy && s.timer_at >= fire && s.timer_at <= fire + slack) return;
    if (lazy) fire += slack;
  } else {
    s.nudge_from_ns = INT64_MAX;
    if (next) fire = next->due;
  }
  s.timer_at = next ? fire : SteadyClock::time_point{};
  int64_t ns = next ? std::max<int64_t>(steady_ns(fire), 1) : 0;  // 0 disarms
  itimerspec spec{timespec{0, 0}, timespec{static_cast<time_t>(ns / kNsPerSec), static_cast<long>(ns % kNsPerSec)}};
  (void)::timerfd_settime(s.timer_fd.get(), TFD_TIMER_ABSTIME, &spec, nullptr);
}

struct PollResult {
  bool going_on = true;  // false when stopping
  int64_t stalls = 0;    // reads of this poll longer than the stall limit
};

// When a poll runs: `real` is the time, `now` counts a sweep's early start as due.
struct PollTime {
  SteadyClock::time_point real;
  SteadyClock::time_point now;
  bool asked = false;
  bool nudged = false;
};

// Caller holds work_mu. The clock poll, if due or asked for, with the
// governors when theirs is due too (or asked for). False when stopping.
ENERGY_TICK_PATH bool poll_clocks_due(Shared& s, PollWork& w, const PollTime& pt, PollOutcome& out) {
  Schedule& at = w.schedule;
  if (!w.clocks_on() || !(pt.asked || pt.now >= at.clock_at)) return true;
  const bool governors_due = pt.now >= at.governor_at;
  bool governors = pt.asked || governors_due;
  int64_t took = 0;
  if (!w.poll_clocks(s.stopping, out, took, governors)) return false;
  if (pt.now >= at.clock_at) at.clock_at = next_due(at.clock_at, w.clock_period(), pt.now, pt.nudged, pt.real);
  if (governors_due)
    at.governor_at = next_due(at.governor_at, w.governor_period(), pt.now, pt.nudged, pt.real);
  else if (governors)
    at.governor_at = pt.real + w.governor_period();  // read for a request or after a gap
  out.clock_polled = true;
  out.governors_read = governors;
  out.clock_took_ns = took;
  out.counted_clocks = w.counted_domains();
  out.counter_fallbacks = w.counter_fallbacks();
  return true;
}

// Caller holds work_mu. The polls that are due (or asked for).
// A poll that rides on a sweep sets its schedule's phase to the sweep's, so
// the next one is due at a sweep too (the sampler's deadlines are absolute).
// `inline_poll`: on the sweeping thread (counted in the stats).
ENERGY_TICK_PATH PollResult poll_due(Shared& s, PollWork& w, bool asked, bool nudged, bool inline_poll,
                                     SteadyClock::time_point real) {
  const auto now = real + (nudged ? w.sweep_early() : SteadyClock::duration::zero());
  Schedule& at = w.schedule;
  PollOutcome out;
  out.inline_poll = inline_poll;
  if (!poll_clocks_due(s, w, PollTime{real, now, asked, nudged}, out)) return {false, out.stalls};
  if (w.thermal_on() && (asked || now >= at.thermal_at)) {
    if (!w.poll_thermal(s.stopping, out, out.thermal_took_ns)) return {false, out.stalls};
    if (now >= at.thermal_at) at.thermal_at = next_due(at.thermal_at, w.thermal_period(), now, nudged, real);
    out.thermal_polled = true;
  }
  PollResult result{true, out.stalls};
  hand_in(s, out);
  return result;
}

// Sleeps until a request, a nudge, stop or the own timer.
void sleep_until_woken(const Shared& s) {
  pollfd fds[2] = {{s.wake_fd.get(), POLLIN, 0}, {s.timer_fd.get(), POLLIN, 0}};
  if (::poll(fds, 2, -1) < 0) return;  // EINTR: the loop looks again
  if ((fds[0].revents & POLLIN) != 0) drain_fd(s.wake_fd.get());
  if ((fds[1].revents & POLLIN) != 0) drain_fd(s.timer_fd.get());
}

struct Turn {
  bool asked = false;
  bool nudged = false;
  std::vector<std::function<void()>> waiting;
};

Turn take_turn(Shared& s) {
  std::lock_guard<std::mutex> lock(s.mu);
  ++s.stats.thread_wakeups;
  Turn t{s.requested, s.nudged, std::move(s.waiting)};
  s.requested = s.nudged = false;
  s.waiting.clear();
  return t;
}

void poll_loop(Shared& s) {
  PollWork& w = *s.work;
  {
    std::lock_guard<std::mutex> work(s.work_mu);
    w.schedule.clock_at = w.schedule.governor_at = w.schedule.thermal_at = SteadyClock::now();
    arm_next(s, w, false);
  }
  while (!s.stopping) {
    sleep_until_woken(s);
    if (s.stopping) break;
    Turn turn = take_turn(s);
    PollResult r;
    {
      std::lock_guard<std::mutex> work(s.work_mu);
      r = poll_due(s, w, turn.asked, turn.nudged, false, SteadyClock::now());
      if (r.going_on) arm_next(s, w, false);
    }
    for (auto& polled : turn.waiting) polled();
    if (!r.going_on) return;
  }
  std::lock_guard<std::mutex> work(s.work_mu);
  PollOutcome out;
  w.forget_all(out.rows);
  std::lock_guard<std::mutex> lock(s.mu);
  deliver(s, out);
}

void run_thread(const std::shared_ptr<Shared>& s) {
  PollOutcome first;
  {
    std::lock_guard<std::mutex> work(s->work_mu);
    s->work->announce_off(first);
  }
  {
    std::lock_guard<std::mutex> lock(s->mu);
    deliver(*s, first);
  }
  poll_loop(*s);
  std::lock_guard<std::mutex> lock(s->mu);
  for (auto& polled : s->waiting) polled();  // stopping: nobody waits for a poll that will not come
  s->waiting.clear();
  s->finished = true;
  s->finished_cv.notify_all();
}

// On the sweeping thread: the due poll, unless the polling thread is inside
// one (then that poll serves). A read that took longer than the stall limit
// ends inline polling for good: a board whose files can be that slow must
// not hold up the sampler again.
ENERGY_TICK_PATH void poll_inline(Shared& s, SteadyClock::time_point now) {
  std::unique_lock<std::mutex> work(s.work_mu, std::try_to_lock);
  if (!work.owns_lock() || s.stopping) return;
  PollResult r = poll_due(s, *s.work, false, true, true, now);
  if (!r.going_on) return;
  arm_next(s, *s.work, true);
  work.unlock();
  if (r.stalls > 0 && s.inline_polls.exchange(false)) {
    spdlog::warn(
        "a clock or thermal read took longer than the stall limit on the sampler's thread; "
        "the context is polled on its own thread from now on");
  }
}

}  // namespace

bool inline_reads_safe(const BoardIdentity& board) {
  if (!board.known) return false;
  for (const auto& c : board.compatible) {
    if (c == "nvidia,tegra264") return false;
  }
  int major = 0;
  auto [end, ec] =
      std::from_chars(board.l4t_release.data(), board.l4t_release.data() + board.l4t_release.size(), major);
  (void)end;
  return ec != std::errc() || major < 38;  // an unknown release: the device tree decides
}

ContextPoller::ContextPoller(const SysRoot& root, const ClockInventory& inventory, ContextPollerOptions options,
                             const Clock& clock, ContextSink& sink)
    : shared_(std::make_shared<Shared>()) {
  shared_->sink = &sink;
  shared_->inline_polls = options.inline_reads;
  shared_->work = std::make_unique<PollWork>(root, inventory, options, clock);
  shared_->wake_fd.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  shared_->timer_fd.reset(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
}

ContextPoller::~ContextPoller() { stop(std::chrono::milliseconds(1000)); }

Status ContextPoller::start() {
  if (thread_.joinable()) return ok_status();
  if (!shared_->wake_fd || !shared_->timer_fd) return errno_error("cannot create the context poller's timers");
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    shared_->requested = true;  // every source's first value at once
    ++shared_->stats.requested_polls;
  }
  thread_ = std::thread([s = shared_] {
    pthread_setname_np(pthread_self(), "context");
    run_thread(s);
  });
  wake(*shared_);
  return ok_status();
}

ENERGY_TICK_PATH void ContextPoller::on_sweep() {
  Shared& s = *shared_;
  const auto now = SteadyClock::now();
  if (steady_ns(now) < s.nudge_from_ns.load(std::memory_order_relaxed)) return;
  if (s.inline_polls) return poll_inline(s, now);
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.nudged || s.nudge_from_ns == INT64_MAX) return;
    s.nudged = true;
    s.nudge_from_ns = INT64_MAX;
  }
  wake(s);
}

void ContextPoller::poll_now() { poll_now(nullptr); }

void ContextPoller::poll_now(std::function<void()> polled) {
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    if (!shared_->finished) {
      shared_->requested = true;
      ++shared_->stats.requested_polls;
      if (polled) shared_->waiting.push_back(std::move(polled));
      polled = nullptr;
    }
  }
  if (polled) return polled();  // stopped: no poll will come
  wake(*shared_);
}

void ContextPoller::stop(std::chrono::milliseconds grace) {
  shared_->inline_polls = false;
  shared_->nudge_from_ns = INT64_MAX;
  if (!thread_.joinable()) return;
  std::unique_lock<std::mutex> lock(shared_->mu);
  shared_->stopping = true;
  wake(*shared_);
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
  fold_quiet(*shared_);
  ContextPollerStats s = shared_->stats;
  s.clock_poll_p50_ns = shared_->clock_poll_ns.quantile(0.5);
  s.clock_poll_p99_ns = shared_->clock_poll_ns.quantile(0.99);
  s.clock_poll_max_ns = shared_->clock_poll_ns.max();
  s.thermal_poll_p50_ns = shared_->thermal_poll_ns.quantile(0.5);
  s.thermal_poll_max_ns = shared_->thermal_poll_ns.max();
  return s;
}

}  // namespace energy::daemon
