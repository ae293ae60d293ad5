// ContextPoller: polls the board context (energy/context.h): every clock
// domain's current frequency every clock_poll_ms and its governor every
// governor_period (a second: governors change only when something writes
// them), every thermal zone every thermal_poll_ms, and all of them once more
// when asked (at a mark, so a run's edges are fresh, and after energyd's own
// pins and restores).
//
// A domain with residency counters (cpufreq stats/time_in_state, devfreq
// trans_stat; ContextProbe) that parse at its first poll is not polled
// every clock_poll_ms: its counters and current frequency are read with the
// governors and at every asked poll, and the time each frequency was held
// in between becomes change rows (residency_counters.h counted_rows), exact
// per frequency between two reads. Counters that fail to read or parse,
// shrink, change their frequencies or do not add up to the time between two
// reads are logged once and the domain is polled from then on. Changed values go to a ContextSink (the storage
// writer), which commits them with its next transaction.
//
// Where the polls run: a due poll rides on the sampler's sweep (on_sweep),
// while the CPU is awake anyway. With inline_reads it runs on the sampler's
// thread right after the sweep was handed on, and the poller's own thread
// ("context") sleeps on a timer that the polls push back (about once a
// second, timer_slack): it wakes only for requests (marks, pins), stop, or
// when no sweep comes. Without inline_reads
// the sweep wakes that thread, which polls.
//
// A clock file can hang (Thor's devfreq): there, only the poller's thread
// reads (the daemon leaves inline_reads off), and the sampler, the event
// loop and the writer never wait on a read; a mark asks for a poll and does
// not wait for it. A read that hangs, or a poll held up past the gap limit,
// makes the sources unknown for that stretch (ContextTracker).
// A schedule whose period is 0 is off: its sources get one unknown row at
// start, so run reports list them as unknown rather than leaving them out.
//
// Thread-safety: poll_now, on_sweep and stats from any thread; start/stop
// from the owner. The sink is called on the poller's thread or the sweeping
// thread (one poll at a time), never after stop().
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "energy/board.h"
#include "energy/clocks.h"
#include "energy/context.h"
#include "energy/result.h"
#include "energy/sysroot.h"
#include "energy/tick_path.h"
#include "energy/time_source.h"
#include "sampler.h"

namespace energy::daemon {

class ContextSink {
 public:
  virtual ~ContextSink() = default;
  virtual void push_context(std::vector<ContextChange> changes) = 0;
};

struct ContextPollerOptions {
  std::chrono::milliseconds clock_period{100};     // 0: clocks not polled
  std::chrono::milliseconds thermal_period{1000};  // 0: temperatures not polled
  // Governors are read with the clock poll that is due at least this long
  // after the previous read of them (at least clock_period; 0: every clock
  // poll), with every asked poll (poll_now), and after a gap.
  std::chrono::milliseconds governor_period{1000};
  // The sampler's period: a schedule at least this long waits for the
  // sampler's sweeps (on_sweep) to start its polls; 0: never waits.
  std::chrono::milliseconds sweep_period{0};
  // A sweep this much before a poll is due counts as due, so the poll rides
  // on the sampler's wake-up rather than waking the CPU again; at least half
  // of sweep_period is used, so sweeps that jitter never miss their poll.
  std::chrono::milliseconds sweep_early{5};
  // Without a sweep (no rails, a stalled sampler, a long sampling period) a
  // poll starts on the poller's own timer this long after it was due.
  std::chrono::milliseconds sweep_wait{20};
  // A due poll runs on the sweeping (sampler's) thread itself, in on_sweep,
  // so the poller's thread does not wake at all while sweeps come. Only for
  // boards whose clock and thermal files do not hang (the daemon leaves it
  // off on Thor); a read slower than 20 ms ends it for good.
  bool inline_reads = false;
  // After a poll that rode on a sweep, the poller's own timer is left up to
  // this much later than needed, so it is re-armed about once per slack
  // rather than at every poll; sweeps that stop have their polls taken over
  // up to this late (a gap, unknown, when past the gap limit).
  std::chrono::milliseconds timer_slack{1000};
};

struct ContextPollerStats {
  int64_t clock_polls = 0;
  int64_t governor_polls = 0;  // clock polls that also read the governors
  int64_t thermal_polls = 0;
  int64_t requested_polls = 0;    // extra polls asked for (marks)
  int64_t rows = 0;               // change rows handed to the sink
  int64_t stalls = 0;             // reads longer than the stall limit
  int64_t gaps = 0;               // polls that came later than the gap limit
  int64_t inline_polls = 0;       // polls run on the sweeping thread (inline_reads)
  int64_t thread_wakeups = 0;     // times the poller's own thread woke (requests, its timer, nudges)
  int64_t counted_clocks = 0;     // clock domains whose residency comes from their counters now
  int64_t counter_fallbacks = 0;  // domains whose counters failed (unreadable, malformed, shrinking): polled since
  int64_t clock_poll_p50_ns = 0;  // time one clock poll takes (all domains)
  int64_t clock_poll_p99_ns = 0;
  int64_t clock_poll_max_ns = 0;
  int64_t thermal_poll_p50_ns = 0;
  int64_t thermal_poll_max_ns = 0;
};

// Whether the board's clock and thermal files may be read on the sampler's
// thread (ContextPollerOptions::inline_reads): not on Thor (tegra264, L4T 38
// and later), whose devfreq reads have been seen to hang, and not on a board
// that was not identified.
bool inline_reads_safe(const BoardIdentity& board);

class ContextPoller {
 public:
  ContextPoller(const SysRoot& root, const ClockInventory& inventory, ContextPollerOptions options, const Clock& clock,
                ContextSink& sink);
  ~ContextPoller();
  ContextPoller(const ContextPoller&) = delete;
  ContextPoller& operator=(const ContextPoller&) = delete;

  // Starts the thread and asks for the first poll (every source's value).
  Status start();
  // Stops polling; every source is then unknown from now. A thread still
  // inside a blocked read after `grace` is left behind (it exits when the
  // read returns, without touching the sink).
  void stop(std::chrono::milliseconds grace);
  // Polls clocks and temperatures as soon as the thread is free; returns at once.
  void poll_now();
  // The same, and `polled` is called on the poller's thread once that poll's
  // rows are with the sink (or at stop, if the poll never comes; at once on
  // the caller's thread once the poller has stopped): a run that
  // opens after it has the clocks in force at its start on record (a pinned
  // mark.start). A hung clock read delays it, as it delays the pin's own read-back.
  void poll_now(std::function<void()> polled);
  // From the sampler's thread after each sweep: a poll that is due (or due
  // within sweep_early) starts now, while the CPU is awake anyway, rather
  // than on the poller's own timer (which still fires sweep_wait after a
  // poll is due when no sweep comes). With inline_reads the poll runs right
  // here, on the caller's thread (skipped if the poller's thread is inside a
  // poll); otherwise the poller's thread is woken for it. Cheap when nothing
  // is due: one atomic load.
  void on_sweep();
  ContextPollerStats stats() const;

  struct Shared;  // state shared with the polling thread

 private:
  std::shared_ptr<Shared> shared_;  // outlives a thread left behind
  std::thread thread_;
};

// Hands the sampler's sweeps to the next sink (the storage writer) and then
// tells the context poller a sweep happened (ContextPoller::on_sweep).
// Thread-safety: set_poller from any thread; push_sample on the sampler's.
class SweepRelay final : public SampleSink {
 public:
  explicit SweepRelay(SampleSink& next) : next_(next) {}
  void set_poller(ContextPoller* poller) { poller_.store(poller); }
  ENERGY_TICK_PATH void push_sample(const Sample& sample) override {
    next_.push_sample(sample);
    if (ContextPoller* p = poller_.load()) p->on_sweep();
  }

 private:
  SampleSink& next_;
  std::atomic<ContextPoller*> poller_{nullptr};
};

}  // namespace energy::daemon
