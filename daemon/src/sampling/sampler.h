// Sampler: reads every rail on absolute deadlines of CLOCK_MONOTONIC and
// hands each sweep to a sink; never waits on storage or clients.
//
// A timerfd with an interval keeps the deadline grid absolute (no drift);
// expirations beyond one per wake-up are counted as missed ticks. The
// sampling thread waits in one blocking read of it per tick (a minimal
// poller's one sleep). Requests for an immediate sample (marks) and stop()
// interrupt that wait by arming the timer to fire at once; the thread then
// puts it back on the grid, from the first deadline not yet swept, so no
// deadline is lost or invented. Requests are served between ticks.
//
// Blocking reads: sysfs reads can hang (an INA3221 waiting for a conversion,
// a wedged I2C bus). A watchdog thread, woken by a timer the sweeps keep
// armed a stall limit past the next tick (so it does not fire while they
// come in time), notices a read that takes longer than the stall limit,
// quarantines that rail (it reads as a gap with ETIMEDOUT) and starts a new
// sampling thread that carries on with the other rails. The
// stuck thread exits when its read returns, and the rail is sampled again.
//
// Thread-safety: start/stop from the owner thread; request_sample, latest and
// stats from any thread. The sink and the callbacks run on a sampling thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "energy/histogram.h"
#include "energy/rail_reader.h"
#include "energy/result.h"
#include "energy/sample.h"
#include "energy/sysroot.h"
#include "energy/time_source.h"
#include "energy/unique_fd.h"

namespace energy::daemon {

class SampleSink {
 public:
  virtual ~SampleSink() = default;
  virtual void push_sample(const Sample& sample) = 0;
};

struct SamplerStats {
  int64_t ticks = 0;
  int64_t missed_ticks = 0;
  int64_t extra_samples = 0;  // taken on request (marks)
  int64_t max_lateness_ns = 0;
  int64_t last_lateness_ns = 0;
  int64_t last_read_ns = 0;     // duration of the last sweep
  int64_t max_read_ns = 0;      // longest sweep so far
  int64_t stalls = 0;           // reads that blocked past the stall limit
  int64_t sweeps = 0;           // sweeps taken (ticks and extra samples)
  int64_t lateness_p50_ns = 0;  // over all ticks since start (LatencyHistogram bounds)
  int64_t lateness_p99_ns = 0;
  int64_t read_p50_ns = 0;  // sweep duration percentiles
  int64_t read_p99_ns = 0;
  std::vector<int64_t> read_errors;        // per rail
  std::vector<int32_t> last_errno;         // per rail, 0 if the last read succeeded
  std::vector<int64_t> rail_last_read_ns;  // per rail: duration of its last read
  std::vector<int64_t> rail_max_read_ns;   // per rail: its longest read
};

class Sampler {
 public:
  using SampleCallback = std::function<void(const Sample&)>;

  Sampler(const SysRoot& root, const std::vector<RailInfo>& rails, std::chrono::milliseconds period,
          std::chrono::milliseconds stall_limit, const Clock& clock, SampleSink& sink);
  ~Sampler();

  Status start();
  void stop();
  // False if a sampling thread was left inside a blocked read at stop; the
  // object must then outlive the process's remaining work (leak it).
  bool stopped_cleanly() const;
  // Takes a sample as soon as possible; `then` runs on the sampling thread
  // right after the sample went to the sink.
  void request_sample(SampleCallback then);
  Sample latest() const;
  SamplerStats stats() const;

 private:
  struct Slot {
    explicit Slot(RailReader r) : reader(std::move(r)) {}
    RailReader reader;
    bool quarantined = false;  // guarded by stall_mu_
  };

  void loop(uint64_t generation);
  void interrupt_wait();
  bool resume_grid();
  void watch();
  void quarantine_current_read();
  void arm_stall_timer(int64_t after_ns);
  void stall_timer_around_sweep(bool starting, int64_t now);
  void keep_stall_timer_ahead(int64_t from_ns, int64_t now);
  int64_t next_deadline_ns() const;
  // A timer sweep's facts for the statistics, recorded with the sweep's.
  struct TickFacts {
    int64_t lateness_ns = 0;
  };
  bool on_ticks(uint64_t n, uint64_t generation);
  bool on_timer_sweep(uint64_t generation);
  bool serve_requests(uint64_t generation);
  // The sweep, in the sampling thread's own buffer (valid until its next
  // sweep), or null when this thread was superseded meanwhile.
  const Sample* take_sample(uint64_t generation, const TickFacts* tick = nullptr);
  static constexpr size_t kStopSweep = static_cast<size_t>(-1);
  size_t hand_over(size_t done, size_t from, uint64_t generation, std::vector<RailValue>& values, int64_t& now);
  void record(const Sample& s, int64_t sweep_ns, const std::vector<int64_t>& read_ns,
              const std::vector<std::string>& errors, const TickFacts* tick);
  void fold_facts() const;  // caller holds mu_
  void log_rail_change(size_t i, int32_t err, const std::string& error);
  void spawn(uint64_t generation);
  bool superseded(uint64_t generation) const;

  std::vector<std::unique_ptr<Slot>> slots_;
  std::chrono::milliseconds period_;
  std::chrono::milliseconds stall_limit_;
  const Clock& clock_;
  SampleSink& sink_;
  UniqueFd timer_fd_;       // blocking; armed on the grid, or at once by interrupt_wait
  UniqueFd stall_fd_;       // armed by the sweeps (stall_timer_around_sweep) and watch()
  UniqueFd watch_stop_fd_;  // wakes the watchdog at stop
  std::atomic<bool> stopping_{false};
  int64_t first_deadline_ns_ = 0;
  std::atomic<int64_t> expirations_{0};
  std::atomic<int64_t> missed_ticks_{0};  // SamplerStats::missed_ticks, counted without mu_
  std::mutex timer_mu_;                   // serialises interrupt_wait and resume_grid
  std::atomic<bool> wait_interrupted_{false};

  mutable std::mutex stall_mu_;          // guards the members below and Slot::quarantined
  std::atomic<uint64_t> generation_{0};  // written under stall_mu_; superseded() reads it without
  int64_t read_started_ns_ = 0;          // 0 when no read is in progress
  size_t reading_rail_ = 0;
  int64_t stall_expiry_ns_ = 0;  // when stall_fd_ fires (clock_.mono_ns()); 0: disarmed
  std::thread current_;
  std::vector<std::thread> abandoned_;  // superseded threads still inside a read
  std::thread watchdog_;

  // A sweep's facts for the statistics and latest(): the sampling thread
  // writes each sweep's into the next of kFactSlots slots, with no lock,
  // and they are folded into stats_ and latest_ in batches, under mu_: by
  // stats() and latest(), and by the sampling thread when every slot is
  // taken (once every kFactSlots sweeps when nobody asks). A tick touches
  // one slot's cache lines, not the statistics, the histograms and the
  // latest sweep (issue 16; docs/PERFORMANCE.md "The tick's reads as
  // plain system calls"). One sampling thread writes slots at a time: a
  // thread is superseded only inside a rail read, before it records.
  static constexpr uint64_t kFactSlots = 64;
  struct FactHead {
    int64_t t_ns = 0;
    int64_t wall_ns = 0;
    int64_t lateness_ns = 0;
    int64_t sweep_ns = 0;
    bool tick = false;  // a timer sweep (an extra sample has no lateness)
  };
  struct RailFact {
    RailValue value;
    int64_t read_ns = 0;
  };
  std::vector<FactHead> fact_heads_;               // kFactSlots
  std::vector<RailFact> rail_facts_;               // kFactSlots x rails, slot by slot
  std::atomic<uint64_t> facts_written_{0};         // slots written (the sampling thread stores it)
  mutable std::atomic<uint64_t> facts_folded_{0};  // slots folded (stored under mu_)
  std::vector<int32_t> logged_errno_;              // the sampling thread's: each rail's errno last logged

  mutable std::mutex mu_;  // guards the members below
  std::vector<SampleCallback> requests_;
  std::atomic<bool> requests_pending_{false};  // !requests_.empty(), for a check without the lock
  // Folded from the slots, also by the const readers:
  mutable Sample latest_;
  mutable SamplerStats stats_;
  mutable LatencyHistogram lateness_;
  mutable LatencyHistogram sweep_time_;
};

}  // namespace energy::daemon
