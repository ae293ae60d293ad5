// Poster and the sd-event owner types, on a real sd-event loop run by the
// test: functions posted from any thread run on the loop thread in posting
// order; a SourcePtr's release disables its source, so a timer or fd whose
// owner is gone never calls back; sd_event_exit stops the loop.
#include "event_loop.h"

#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

namespace energy::daemon {
namespace {

class EventLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sd_event* e = nullptr;
    ASSERT_GE(sd_event_new(&e), 0);
    loop_.reset(e);
    ASSERT_TRUE(poster_.attach(loop_.get()).ok());
  }
  // Runs loop iterations until `pred` holds (each waits at most 100 ms).
  template <typename Pred>
  bool run_until(Pred pred, int max_iterations = 200) {
    for (int i = 0; i < max_iterations && !pred(); ++i) {
      if (sd_event_run(loop_.get(), 100'000) < 0) return false;
    }
    return pred();
  }
  // One loop iteration that waits at most `usec` for something to happen.
  void run_once(uint64_t usec) { ASSERT_GE(sd_event_run(loop_.get(), usec), 0); }

  EventPtr loop_;
  Poster poster_;
};

TEST_F(EventLoopTest, PostedFunctionsRunOnTheLoopThreadInPostingOrder) {
  std::vector<int> order;  // touched on the loop (this) thread only
  std::atomic<bool> other_thread_ran{false};
  std::thread poster_thread([&] {
    for (int i = 0; i < 100; ++i) {
      poster_.post([&order, i] { order.push_back(i); });
    }
    other_thread_ran = true;
  });
  poster_thread.join();
  auto loop_id = std::this_thread::get_id();
  std::thread::id ran_on;
  poster_.post([&] { ran_on = std::this_thread::get_id(); });
  ASSERT_TRUE(run_until([&] { return order.size() == 100 && ran_on != std::thread::id(); }));
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
  EXPECT_EQ(ran_on, loop_id);
  EXPECT_TRUE(other_thread_ran);
}

TEST_F(EventLoopTest, NothingRunsUntilTheLoopTurns) {
  bool ran = false;
  poster_.post([&] { ran = true; });
  EXPECT_FALSE(ran);
  ASSERT_TRUE(run_until([&] { return ran; }));
}

TEST_F(EventLoopTest, AFunctionPostedByAPostedFunctionRunsOnALaterTurn) {
  std::vector<int> order;
  poster_.post([&] {
    order.push_back(1);
    poster_.post([&] { order.push_back(3); });
  });
  poster_.post([&] { order.push_back(2); });
  ASSERT_TRUE(run_until([&] { return order.size() == 3; }));
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST_F(EventLoopTest, PostsFromManyThreadsAllRunExactlyOnce) {
  constexpr int kThreads = 4;
  constexpr int kEach = 250;
  int count = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) poster_.post([&] { ++count; });
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_TRUE(run_until([&] { return count == kThreads * kEach; }));
  run_once(10'000);
  EXPECT_EQ(count, kThreads * kEach);
}

int on_timer(sd_event_source*, uint64_t, void* fired) {
  ++*static_cast<int*>(fired);
  return 0;
}

int on_io(sd_event_source*, int fd, uint32_t, void* fired) {
  uint64_t v = 0;
  (void)!::read(fd, &v, sizeof v);
  ++*static_cast<int*>(fired);
  return 0;
}

TEST_F(EventLoopTest, ATimerFiresWhileItsSourcePtrLivesAndNeverAfterItIsReleased) {
  int fired = 0;
  uint64_t now = 0;
  ASSERT_GE(sd_event_now(loop_.get(), CLOCK_MONOTONIC, &now), 0);
  sd_event_source* s = nullptr;
  ASSERT_GE(sd_event_add_time(loop_.get(), &s, CLOCK_MONOTONIC, now + 1000, 0, on_timer, &fired), 0);
  SourcePtr timer(s);
  ASSERT_TRUE(run_until([&] { return fired == 1; }));
  // Re-armed, then released before it is due: it must not fire.
  ASSERT_GE(sd_event_now(loop_.get(), CLOCK_MONOTONIC, &now), 0);
  ASSERT_GE(sd_event_source_set_time(timer.get(), now + 5000), 0);
  ASSERT_GE(sd_event_source_set_enabled(timer.get(), SD_EVENT_ONESHOT), 0);
  timer.reset();
  run_once(30'000);
  EXPECT_EQ(fired, 1);
}

TEST_F(EventLoopTest, AnFdSourceCallsBackOnReadinessAndNotAfterRelease) {
  UniqueFd efd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  ASSERT_TRUE(efd);
  int fired = 0;
  sd_event_source* s = nullptr;
  ASSERT_GE(sd_event_add_io(loop_.get(), &s, efd.get(), EPOLLIN, on_io, &fired), 0);
  SourcePtr io(s);
  run_once(10'000);
  EXPECT_EQ(fired, 0);  // not readable yet
  uint64_t one = 1;
  ASSERT_EQ(::write(efd.get(), &one, sizeof one), static_cast<ssize_t>(sizeof one));
  ASSERT_TRUE(run_until([&] { return fired == 1; }));
  io.reset();
  ASSERT_EQ(::write(efd.get(), &one, sizeof one), static_cast<ssize_t>(sizeof one));
  run_once(30'000);
  EXPECT_EQ(fired, 1);
}

TEST_F(EventLoopTest, ExitFromAPostedFunctionEndsTheLoop) {
  poster_.post([this] { sd_event_exit(loop_.get(), 7); });
  ASSERT_GE(sd_event_loop(loop_.get()), 0);  // returns instead of waiting forever
  int code = 0;
  ASSERT_GE(sd_event_get_exit_code(loop_.get(), &code), 0);
  EXPECT_EQ(code, 7);
}

}  // namespace
}  // namespace energy::daemon
