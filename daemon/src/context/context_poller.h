// ContextPoller: polls the board context (energy/context.h) on its own
// thread ("context"): every clock domain's current frequency and governor
// every clock_poll_ms, every thermal zone every thermal_poll_ms, and both
// once more when asked (at a mark, so a run's edges are fresh). Changed
// values go to a ContextSink (the storage writer), which commits them with
// its next transaction.
//
// A clock file can hang (Thor's devfreq): only this thread waits on it. The
// sampler, the event loop and the writer never do; a mark asks for a poll
// and does not wait for it. A read that hangs, or a poll held up past the
// gap limit, makes the sources unknown for that stretch (ContextTracker).
// A schedule whose period is 0 is off: its sources get one unknown row at
// start, so run reports list them as unknown rather than leaving them out.
//
// Thread-safety: poll_now and stats from any thread; start/stop from the
// owner. The sink is called on the poller's thread, never after stop().
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "energy/clocks.h"
#include "energy/context.h"
#include "energy/sysroot.h"
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
  // The sampler's period: a schedule at least this long waits for the
  // sampler's sweeps (on_sweep) to start its polls; 0: never waits.
  std::chrono::milliseconds sweep_period{0};
  // A sweep this much before a poll is due counts as due, so the poll rides
  // on the sampler's wake-up rather than waking the CPU again.
  std::chrono::milliseconds sweep_early{5};
  // Without a sweep (no rails, a stalled sampler, a long sampling period) a
  // poll starts on the poller's own timer this long after it was due.
  std::chrono::milliseconds sweep_wait{20};
};

struct ContextPollerStats {
  int64_t clock_polls = 0;
  int64_t thermal_polls = 0;
  int64_t requested_polls = 0;    // extra polls asked for (marks)
  int64_t rows = 0;               // change rows handed to the sink
  int64_t stalls = 0;             // reads longer than the stall limit
  int64_t gaps = 0;               // polls that came later than the gap limit
  int64_t clock_poll_p50_ns = 0;  // time one clock poll takes (all domains)
  int64_t clock_poll_p99_ns = 0;
  int64_t clock_poll_max_ns = 0;
  int64_t thermal_poll_p50_ns = 0;
  int64_t thermal_poll_max_ns = 0;
};

class ContextPoller {
 public:
  ContextPoller(const SysRoot& root, const ClockInventory& inventory, ContextPollerOptions options, const Clock& clock,
                ContextSink& sink);
  ~ContextPoller();
  ContextPoller(const ContextPoller&) = delete;
  ContextPoller& operator=(const ContextPoller&) = delete;

  void start();
  // Stops polling; every source is then unknown from now. A thread still
  // inside a blocked read after `grace` is left behind (it exits when the
  // read returns, without touching the sink).
  void stop(std::chrono::milliseconds grace);
  // Polls clocks and temperatures as soon as the thread is free; returns at once.
  void poll_now();
  // The same, and `polled` is called on the poller's thread once that poll's
  // rows are with the sink (or at stop, if the poll never comes): a run that
  // opens after it has the clocks in force at its start on record (a pinned
  // mark.start). A hung clock read delays it, as it delays the pin's own read-back.
  void poll_now(std::function<void()> polled);
  // From the sampler's thread after each sweep: a poll that is due (or due
  // within sweep_early) starts now, while the CPU is awake anyway, rather
  // than on the poller's own timer (which still fires sweep_wait after a
  // poll is due when no sweep comes). Cheap when nothing is due: one atomic load.
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
  void push_sample(const Sample& sample) override {
    next_.push_sample(sample);
    if (ContextPoller* p = poller_.load()) p->on_sweep();
  }

 private:
  SampleSink& next_;
  std::atomic<ContextPoller*> poller_{nullptr};
};

}  // namespace energy::daemon
