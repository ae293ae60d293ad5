// Sampler driven directly on a static simulator-built board tree: a sweep at
// start and on request, stamped at its midpoint in the raw tier's precision;
// a failed rail read is a gap (an errno), never a zero reading, and is
// counted per rail; deadlines stay on the absolute grid of CLOCK_MONOTONIC,
// so a sweep held up by a slow sink costs missed ticks, not drift.
#include "sampler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <thread>

#include "energy/chunker.h"
#include "static_board.h"
#include "store_session.h"

namespace energy::daemon {
namespace {

using core_test::eventually;
using std::chrono::milliseconds;

// Records every sweep; optionally holds the first one until released.
class RecordingSink : public SampleSink {
 public:
  void push_sample(const Sample& s) override {
    std::unique_lock<std::mutex> lock(mu_);
    samples_.push_back(s);
    cv_.notify_all();
    cv_.wait(lock, [&] { return !hold_; });
  }
  void hold() {
    std::lock_guard<std::mutex> lock(mu_);
    hold_ = true;
  }
  void release() {
    std::lock_guard<std::mutex> lock(mu_);
    hold_ = false;
    cv_.notify_all();
  }
  void wait_for_count(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(10), [&] { return samples_.size() >= n; });
  }
  std::vector<Sample> samples() const {
    std::lock_guard<std::mutex> lock(mu_);
    return samples_;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Sample> samples_;
  bool hold_ = false;
};

// Real CLOCK_MONOTONIC (the sampler's timerfd runs on it); boot time steps
// by 10.000001 ms at every call; wall time stands still.
class SteppingClock : public Clock {
 public:
  int64_t boot_ns() const override { return kBootStart + calls_++ * kBootStep; }
  int64_t mono_ns() const override { return real_.mono_ns(); }
  int64_t wall_ns() const override { return kWall; }
  static constexpr int64_t kBootStart = 1'000'333;
  static constexpr int64_t kBootStep = 10'000'001;
  static constexpr int64_t kWall = 42'000'000'000;

 private:
  SystemClock real_;
  mutable std::atomic<int64_t> calls_{0};
};

class SamplerTest : public StaticBoardTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(make_board("jetson-orin-nano", 36));
    rails_ = discover_rails(*root_).rails;
    ASSERT_GE(rails_.size(), 2u);
  }
  std::unique_ptr<Sampler> sampler(milliseconds period, const Clock& clock) {
    return std::make_unique<Sampler>(*root_, rails_, period, milliseconds(5000), clock, sink_);
  }
  // Takes a sample on request and returns what the callback saw.
  static Sample request(Sampler& s) {
    std::mutex mu;
    std::condition_variable cv;
    std::optional<Sample> got;
    s.request_sample([&](const Sample& x) {
      std::lock_guard<std::mutex> lock(mu);
      got = x;
      cv.notify_all();
    });
    std::unique_lock<std::mutex> lock(mu);
    cv.wait_for(lock, std::chrono::seconds(10), [&] { return got.has_value(); });
    return got.value_or(Sample{});
  }
  void overwrite(const std::string& board_path, const std::string& text) {
    auto host = root_->resolve(board_path);
    ASSERT_TRUE(host.ok());
    std::ofstream(*host) << text;  // same inode: the reader's open file sees it
  }

  std::vector<RailInfo> rails_;
  RecordingSink sink_;
  SystemClock clock_;
};

TEST_F(SamplerTest, ASweepAtStartGoesToTheSinkWithEveryRailRead) {
  auto s = sampler(milliseconds(60'000), clock_);
  ASSERT_TRUE(s->start().ok());
  sink_.wait_for_count(1);
  auto got = sink_.samples();
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].values.size(), rails_.size());
  for (const auto& v : got[0].values) {
    EXPECT_EQ(v.err, 0);
    EXPECT_GT(v.voltage_mv, 0);
  }
  ASSERT_TRUE(eventually([&] { return s->stats().sweeps == 1; }));  // recorded right after the sink
  EXPECT_EQ(s->stats().ticks, 0);                                   // the period has not come yet
  EXPECT_EQ(s->latest().t_ns, got[0].t_ns);
  s->stop();
  EXPECT_TRUE(s->stopped_cleanly());
}

TEST_F(SamplerTest, ARequestedSampleGoesToTheSinkFirstAndIsCountedAsExtra) {
  auto s = sampler(milliseconds(60'000), clock_);
  ASSERT_TRUE(s->start().ok());
  sink_.wait_for_count(1);
  Sample got = request(*s);
  auto seen = sink_.samples();
  ASSERT_EQ(seen.size(), 2u);  // the callback ran after the sink had it
  EXPECT_EQ(seen[1].t_ns, got.t_ns);
  EXPECT_GE(got.t_ns, seen[0].t_ns);
  EXPECT_EQ(s->stats().extra_samples, 1);
  EXPECT_EQ(s->stats().sweeps, 2);
  s->stop();
}

TEST_F(SamplerTest, ASweepIsStampedAtItsMidpointInTheRawTiersPrecision) {
  SteppingClock clock;
  auto s = sampler(milliseconds(60'000), clock);
  ASSERT_TRUE(s->start().ok());
  sink_.wait_for_count(1);
  auto got = sink_.samples().at(0);
  int64_t before = SteppingClock::kBootStart;  // the first two boot_ns calls bracket the sweep
  int64_t after = before + SteppingClock::kBootStep;
  EXPECT_EQ(got.t_ns, to_stored_ns(before + (after - before) / 2));
  EXPECT_EQ(got.t_ns % 1000, 0);
  EXPECT_EQ(got.wall_ns, SteppingClock::kWall);
  s->stop();
}

TEST_F(SamplerTest, AFailedRailReadIsAGapWithItsErrnoNotAZeroReading) {
  auto s = sampler(milliseconds(60'000), clock_);
  ASSERT_TRUE(s->start().ok());
  sink_.wait_for_count(1);
  ASSERT_NO_FATAL_FAILURE(overwrite(rails_[0].voltage_file, "garbage\n"));
  Sample bad = request(*s);
  ASSERT_EQ(bad.values.size(), rails_.size());
  EXPECT_NE(bad.values[0].err, 0);  // a gap: the reading is unknown
  EXPECT_EQ(bad.values[1].err, 0);  // the other rails go on
  EXPECT_GT(bad.values[1].voltage_mv, 0);
  auto st = s->stats();
  EXPECT_EQ(st.read_errors[0], 1);
  EXPECT_EQ(st.read_errors[1], 0);
  EXPECT_EQ(st.last_errno[0], bad.values[0].err);
  ASSERT_NO_FATAL_FAILURE(overwrite(rails_[0].voltage_file, "5000\n"));
  Sample good = request(*s);
  EXPECT_EQ(good.values[0].err, 0);
  EXPECT_EQ(good.values[0].voltage_mv, 5000);
  EXPECT_EQ(s->stats().last_errno[0], 0);
  EXPECT_EQ(s->stats().read_errors[0], 1);  // a total, not the current state
  s->stop();
}

// The sweeps' figures go into 64 slots and are folded in batches
// (sampler.h): with nobody asking for them, the sampling thread folds the
// slots itself when they are all taken, and loses none.
TEST_F(SamplerTest, TheStatisticsCountEverySweepWhenTheSlotsWrapWithNobodyAsking) {
  auto s = sampler(milliseconds(60'000), clock_);
  ASSERT_TRUE(s->start().ok());
  sink_.wait_for_count(1);
  Sample last;
  for (int i = 0; i < 150; ++i) {  // the start's sweep and 150 asked for: the slots wrap twice
    if (i == 100) {
      ASSERT_NO_FATAL_FAILURE(overwrite(rails_[0].voltage_file, "garbage\n"));
    }
    if (i == 130) {
      ASSERT_NO_FATAL_FAILURE(overwrite(rails_[0].voltage_file, "5000\n"));
    }
    last = request(*s);
    ASSERT_FALSE(last.values.empty()) << "request " << i;
  }
  auto st = s->stats();
  EXPECT_EQ(st.sweeps, 151);
  EXPECT_EQ(st.extra_samples, 150);
  EXPECT_EQ(st.ticks, 0);
  EXPECT_EQ(st.read_errors[0], 30);
  EXPECT_EQ(st.read_errors[1], 0);
  EXPECT_EQ(st.last_errno[0], 0);
  Sample latest = s->latest();
  EXPECT_EQ(latest.t_ns, last.t_ns);
  ASSERT_EQ(latest.values.size(), last.values.size());
  EXPECT_EQ(latest.values[0].voltage_mv, 5000);
  s->stop();
}

TEST_F(SamplerTest, AnOutOfRangeReadingIsAGapToo) {
  auto s = sampler(milliseconds(60'000), clock_);
  ASSERT_TRUE(s->start().ok());
  sink_.wait_for_count(1);
  ASSERT_NO_FATAL_FAILURE(overwrite(rails_[1].voltage_file, "4294967295\n"));  // no INA bus reads 4 MV
  Sample bad = request(*s);
  EXPECT_EQ(bad.values[1].err, ERANGE);
  EXPECT_EQ(bad.values[1].voltage_mv, 0);
  EXPECT_EQ(bad.values[0].err, 0);
  s->stop();
}

// The first sweep is held in the sink for at least 6 periods: the timer's
// expirations meanwhile are counted as missed ticks, and the ticks plus the
// missed ones match the absolute grid: at least every period that had passed
// when the sink let go, at most every period until the stats were read.
TEST_F(SamplerTest, DeadlinesStayOnTheAbsoluteGridAndALateSweepCountsMissedTicks) {
  constexpr int64_t kPeriodNs = 10 * kNsPerMs;
  sink_.hold();
  int64_t started_before = clock_.mono_ns();
  auto s = sampler(milliseconds(10), clock_);
  ASSERT_TRUE(s->start().ok());
  int64_t started_after = clock_.mono_ns();
  sink_.wait_for_count(1);
  std::this_thread::sleep_for(milliseconds(60));  // real time must pass for a real timer to expire
  int64_t released = clock_.mono_ns();
  sink_.release();
  ASSERT_TRUE(eventually([&] { return s->stats().ticks >= 2; }));  // a timer read after the release
  auto st = s->stats();
  int64_t queried = clock_.mono_ns();
  s->stop();
  int64_t expirations = st.ticks + st.missed_ticks;
  // The first deadline lies one period after start; expirations by time t: (t - first) / period + 1.
  EXPECT_GE(expirations, (released - (started_after + kPeriodNs)) / kPeriodNs + 1);
  EXPECT_LE(expirations, (queried - (started_before + kPeriodNs)) / kPeriodNs + 1);
  EXPECT_GE(st.missed_ticks, 4);
  EXPECT_GT(st.max_lateness_ns, 0);
}

// A request interrupts the wait on the tick timer; the timer must then be
// back on the grid: its wake-ups count as neither ticks nor missed ticks,
// and the deadlines passed meanwhile are still swept.
TEST_F(SamplerTest, RequestsBetweenTicksNeitherAddNorLoseDeadlines) {
  constexpr int64_t kPeriodNs = 20 * kNsPerMs;
  int64_t started_before = clock_.mono_ns();
  auto s = sampler(milliseconds(20), clock_);
  ASSERT_TRUE(s->start().ok());
  int64_t started_after = clock_.mono_ns();
  for (int i = 0; i < 12; ++i) {
    request(*s);
    std::this_thread::sleep_for(milliseconds(i % 3 == 0 ? 7 : 1));
  }
  // The first deadline lies one period after start; expirations by time t: (t - first) / period + 1.
  // A deadline lost to an interruption would leave the count behind for good.
  EXPECT_TRUE(eventually([&] {
    int64_t now = clock_.mono_ns();
    auto st = s->stats();
    return st.ticks + st.missed_ticks >= (now - (started_after + kPeriodNs)) / kPeriodNs + 1;
  })) << "deadlines that passed during the requests were lost";
  auto st = s->stats();
  int64_t queried = clock_.mono_ns();
  s->stop();
  EXPECT_EQ(st.extra_samples, 12);
  EXPECT_LE(st.ticks + st.missed_ticks, (queried - (started_before + kPeriodNs)) / kPeriodNs + 1)
      << "an interrupted wait was counted as a tick";
}

TEST_F(SamplerTest, StopAnswersNoMoreAndIsIdempotent) {
  auto s = sampler(milliseconds(60'000), clock_);
  ASSERT_TRUE(s->start().ok());
  sink_.wait_for_count(1);
  s->stop();
  s->stop();
  EXPECT_TRUE(s->stopped_cleanly());
  size_t n = sink_.samples().size();
  EXPECT_EQ(n, 1u);
}

}  // namespace
}  // namespace energy::daemon
