// The host's real CPU load, which drives the simulated CPUs: /proc/stat's
// aggregate "cpu" line sampled every 50 ms; busy = everything but idle and
// iowait. The run process feeds each sample to LiveBoard::feed_host_cpu_load
// as a step (an event only when the per-mille value changes); every online
// simulated CPU gets that load (assumption A30).
//
// Thread-safety: the parsing functions are pure; HostLoadSampler owns one
// thread, started by start() and joined by the destructor.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "energy/result.h"

namespace energy::sim {

struct CpuTimes {
  std::uint64_t busy = 0;   // user nice system irq softirq steal (jiffies)
  std::uint64_t total = 0;  // busy + idle + iowait
};

// The aggregate "cpu " line of /proc/stat's text; kParse naming what is wrong.
Result<CpuTimes> parse_proc_stat(std::string_view text);
// Busy share between two samples, 0..1000; 0 when no time passed.
std::uint32_t busy_permille(const CpuTimes& before, const CpuTimes& after);

inline constexpr std::chrono::milliseconds kHostLoadPeriod{50};

class HostLoadSampler {
 public:
  using Sink = std::function<void(std::uint32_t permille)>;

  // Reads `stat_path` (normally /proc/stat) every `period`; kIo if it cannot be read now.
  static Result<std::unique_ptr<HostLoadSampler>> start(std::string stat_path, std::chrono::milliseconds period,
                                                        Sink sink);
  ~HostLoadSampler();
  HostLoadSampler(const HostLoadSampler&) = delete;
  HostLoadSampler& operator=(const HostLoadSampler&) = delete;

 private:
  HostLoadSampler(std::string stat_path, std::chrono::milliseconds period, Sink sink, CpuTimes first);
  void loop();

  const std::string stat_path_;
  const std::chrono::milliseconds period_;
  const Sink sink_;
  CpuTimes last_;
  std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace energy::sim
