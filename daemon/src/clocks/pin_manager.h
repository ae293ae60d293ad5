// PinManager: the clock-pin verbs (clocks.pin, clocks.unpin, clocks.leases)
// and the lease lifecycle, driven from the event loop.
//
// Every clock file access and journal write runs on PinManager's own worker
// thread (a PinEngine there), so a hung devfreq file or a slow fsync never
// stalls the loop; operations run one at a time in arrival order, so a
// connection that closes right after its pin releases it after the pin.
// A loop timer ticks the engine every kWatchPeriod while a lease exists:
// duration leases expire, failed restores are retried and pinned files are
// re-read for external writers (skipped while the previous tick still runs).
// Without a lease the timer sleeps, so an idle daemon's loop does not wake.
//
// Thread-safety: every method on the loop thread, except events_between
// and pins_for_run, which any thread may call. Completions run on the loop thread.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "event_loop.h"
#include "pin_engine.h"
#include "pin_history.h"
#include "task_runner.h"

namespace energy::daemon {

class PinManager {
 public:
  using Done = std::function<void(Result<nlohmann::json>)>;
  static constexpr std::chrono::milliseconds kWatchPeriod{500};

  PinManager(sd_event* loop, Poster& poster, const SysRoot& root, const ClockInventory& clocks, const Clock& clock,
             std::string journal_path);
  ~PinManager();

  // Before the socket listens: restores or adopts the journal's leases,
  // waiting up to `wait` (the rest finishes in the background), then starts
  // the watch timer.
  Status start(const std::set<int64_t>& open_runs, std::chrono::milliseconds wait);
  void pin(PinOrder order, Done done);
  // PinEngine::bind_to_run, in order with the other operations.
  void bind_to_run(int64_t lease, int64_t run_id, Done done);
  // ids empty: every lease `caller` may unpin (its own; root: all).
  void unpin(std::vector<int64_t> ids, Caller caller, Done done);
  nlohmann::json leases_json() const;
  void connection_closed(uint64_t connection);
  void run_stopped(int64_t run_id);
  // Daemon stop: restores every lease, waiting up to `wait`; leases still
  // recorded after that are restored at the next start.
  void stop(std::chrono::milliseconds wait);
  // Clock events (external changes, pins, restores) on CLOCK_BOOTTIME, for run reports.
  std::vector<ClockEvent> events_between(int64_t from_boot_ns, int64_t to_boot_ns) const;
  // The run's `clock_pins` (PinHistory::for_run); any thread.
  nlohmann::json pins_for_run(int64_t run_id, int64_t from_boot_ns, int64_t to_boot_ns) const;
  // Called on the worker thread after an operation that pinned, restored or
  // found changed clock files (a clock event was logged), so the context
  // poller reads them (and the governors) at once; must not block. Not
  // called once stop() has returned.
  void set_clocks_written_hook(std::function<void()> hook);

 private:
  static int on_timer(sd_event_source* s, uint64_t usec, void* self);
  Status arm_timer();
  void wake_timer();  // on the loop thread: the timer again, if it sleeps
  // A task's reply is posted to the loop after the leases view is published,
  // so a client holding its reply sees the leases it changed.
  using Reply = std::function<void()>;
  void run(std::function<Reply(PinEngine&)> task);
  bool wait_for(std::function<void(PinEngine&)> task, std::chrono::milliseconds wait);

  // Shared with the worker's tasks: a worker stuck in a read is detached at
  // stop and may outlive the manager.
  struct Shared {
    ClockEventLog events;
    PinHistory history;
    std::atomic<bool> tick_busy{false};
    std::atomic<size_t> leases{0};    // lease records after the last task: no tick work without one
    std::atomic<bool> closed{false};  // stop() or destruction began: posted wakes do nothing
    std::mutex hook_mu;               // guards clocks_written
    std::function<void()> clocks_written;
    std::mutex mu;
    nlohmann::json snapshot = nlohmann::json::object();
  };

  sd_event* loop_;
  Poster& poster_;
  const Clock& clock_;
  std::set<uint64_t> lease_connections_;  // connections that asked for a connection lease or a pinned mark.start
  std::shared_ptr<Shared> shared_;
  std::shared_ptr<PinEngine> engine_;
  TaskRunner worker_;
  SourcePtr timer_;
};

}  // namespace energy::daemon
