// TaskRunner driven directly: posting order, one worker thread, pending(),
// and stop: the running task may finish within the grace, tasks not yet
// started are discarded, and a task that never returns is abandoned
// (detached) without holding up stop or touching freed state.
#include "task_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace energy::daemon {
namespace {

using std::chrono::milliseconds;

// A gate a task waits on until the test opens it; shared so that a detached
// worker may still touch it after the test body ends.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  bool entered = false;
  void wait() {
    std::unique_lock<std::mutex> lock(mu);
    entered = true;
    cv.notify_all();
    cv.wait(lock, [&] { return open; });
  }
  void wait_entered() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return entered; });
  }
  void release() {
    std::lock_guard<std::mutex> lock(mu);
    open = true;
    cv.notify_all();
  }
};

TEST(TaskRunnerTest, TasksRunInPostingOrderOnOneThread) {
  TaskRunner runner("order");
  std::mutex mu;
  std::vector<int> order;
  std::set<std::thread::id> threads;
  for (int i = 0; i < 200; ++i) {
    runner.post([&, i] {
      std::lock_guard<std::mutex> lock(mu);
      order.push_back(i);
      threads.insert(std::this_thread::get_id());
    });
  }
  std::promise<void> done;
  runner.post([&] { done.set_value(); });
  done.get_future().wait();
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(order.size(), 200u);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
  EXPECT_EQ(threads.size(), 1u);
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u);
}

TEST(TaskRunnerTest, PendingCountsTasksWaitingBehindABusyWorker) {
  TaskRunner runner("pending");
  auto gate = std::make_shared<Gate>();
  runner.post([gate] { gate->wait(); });
  gate->wait_entered();
  EXPECT_EQ(runner.pending(), 0u);
  runner.post([] {});
  runner.post([] {});
  EXPECT_EQ(runner.pending(), 2u);
  std::promise<void> done;
  runner.post([&] { done.set_value(); });
  gate->release();
  done.get_future().wait();
  EXPECT_EQ(runner.pending(), 0u);
}

TEST(TaskRunnerTest, StopLetsTheRunningTaskFinishAndDiscardsTasksNotStarted) {
  TaskRunner runner("stop");
  auto gate = std::make_shared<Gate>();
  std::atomic<bool> first_finished{false};
  std::atomic<int> later_ran{0};
  runner.post([gate, &first_finished] {
    gate->wait();
    first_finished = true;
  });
  gate->wait_entered();
  for (int i = 0; i < 5; ++i) runner.post([&later_ran] { ++later_ran; });
  std::thread opener([gate] {
    std::this_thread::sleep_for(milliseconds(20));  // lets stop() begin waiting
    gate->release();
  });
  runner.stop(milliseconds(10'000));
  opener.join();
  EXPECT_TRUE(first_finished);  // stop waited for it (joined, not detached)
  EXPECT_EQ(later_ran, 0);
  EXPECT_EQ(runner.pending(), 0u);
}

TEST(TaskRunnerTest, ATaskThatNeverReturnsIsAbandonedAfterTheGrace) {
  auto gate = std::make_shared<Gate>();
  auto after = std::make_shared<std::atomic<bool>>(false);
  {
    TaskRunner runner("stuck");
    runner.post([gate, after] {
      gate->wait();
      *after = true;
    });
    gate->wait_entered();
    runner.stop(milliseconds(30));  // returns although the task is still blocked
    EXPECT_FALSE(*after);
    runner.post([] {});  // after stop: never runs, must not crash
  }                      // the destructor's stop is a no-op now
  gate->release();       // the detached worker wakes after its runner is gone
  for (int i = 0; i < 2000 && !*after; ++i) std::this_thread::sleep_for(milliseconds(1));
  EXPECT_TRUE(*after);
}

TEST(TaskRunnerTest, StopTwiceAndDestructionAfterStopAreHarmless) {
  std::atomic<int> ran{0};
  TaskRunner runner("twice");
  std::promise<void> done;
  runner.post([&] {
    ++ran;
    done.set_value();
  });
  done.get_future().wait();
  runner.stop(milliseconds(1000));
  runner.stop(milliseconds(1000));
  EXPECT_EQ(ran, 1);
}

}  // namespace
}  // namespace energy::daemon
