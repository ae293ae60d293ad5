// Sampler: reads every rail on absolute deadlines of CLOCK_MONOTONIC and
// hands each sweep to a sink; never waits on storage or clients.
//
// A timerfd with an interval keeps the deadline grid absolute (no drift);
// expirations beyond one per wake-up are counted as missed ticks. Requests
// for an immediate sample (marks) are served between ticks, in order.
//
// Thread-safety: start/stop from the owner thread; request_sample, latest and
// stats from any thread. The sink is called on the sampler thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "energy/clock.h"
#include "energy/rails.h"
#include "energy/result.h"
#include "energy/sample.h"
#include "energy/sysroot.h"
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
  int64_t extra_samples = 0;      // taken on request (marks)
  int64_t max_lateness_ns = 0;
  int64_t last_lateness_ns = 0;
  int64_t last_read_ns = 0;       // duration of the last sweep
  std::vector<int64_t> read_errors;  // per rail
  std::vector<int32_t> last_errno;   // per rail, 0 if the last read succeeded
};

class Sampler {
 public:
  using SampleCallback = std::function<void(const Sample&)>;

  Sampler(const SysRoot& root, const std::vector<RailInfo>& rails, std::chrono::milliseconds period,
          const Clock& clock, SampleSink& sink);
  ~Sampler();

  Status start();
  void stop();
  // Takes a sample as soon as possible; `then` runs on the sampler thread
  // right after the sample went to the sink.
  void request_sample(SampleCallback then);
  Sample latest() const;
  SamplerStats stats() const;

 private:
  void loop();
  void on_timer();
  void serve_requests();
  Sample take_sample();

  std::vector<RailReader> readers_;
  std::chrono::milliseconds period_;
  const Clock& clock_;
  SampleSink& sink_;
  UniqueFd timer_fd_;
  UniqueFd wake_fd_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  int64_t first_deadline_ns_ = 0;
  int64_t expirations_ = 0;

  mutable std::mutex mu_;  // guards the members below
  std::vector<SampleCallback> requests_;
  Sample latest_;
  SamplerStats stats_;
};

}  // namespace energy::daemon
