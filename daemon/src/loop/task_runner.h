// TaskRunner: one worker thread for reads that may block (sysfs clock files:
// Thor's GPU devfreq reads have been seen to hang in D state), so the event
// loop never waits on them. Results go back to the loop through a Poster.
//
// energyd keeps interactive reads (`clocks`) and bulk reads (exports) on
// separate runners, so a queue of exports never delays a `clocks` reply.
// Tasks run in posting order; a task whose client has gone should check
// that itself (Responder::cancelled) and return at once.
//
// stop discards the tasks not yet started and waits up to `grace` for the
// running one; a task posted after stop never runs.
//
// Thread-safety: post from any thread; stop from the owner. A task that
// never returns is abandoned at stop (the thread is detached), since a read
// blocked in the kernel cannot be cancelled.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace energy::daemon {

class TaskRunner {
 public:
  // `name`: the worker thread's name (at most 15 characters), seen in ps and gdb.
  explicit TaskRunner(const char* name = "task");
  ~TaskRunner();
  void post(std::function<void()> task);
  void stop(std::chrono::milliseconds grace);
  size_t pending() const;

  struct Shared;  // state shared with the worker thread

 private:
  std::shared_ptr<Shared> shared_;  // outlives a detached worker
  std::thread thread_;
};

}  // namespace energy::daemon
