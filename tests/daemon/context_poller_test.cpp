// ContextPoller on a simulator-built Orin Nano tree (static files): every
// source's first value at start, only changes after, a poll on request,
// unknown rows when polling is off and when it stops.
#include "context_poller.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "../time_units.h"
#include "energy/context_probe.h"
#include "static_board.h"

namespace energy::daemon {
namespace {

using std::chrono::milliseconds;

class RecordingSink final : public ContextSink {
 public:
  void push_context(std::vector<ContextChange> changes) override {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& c : changes) rows_.push_back(std::move(c));
    cv_.notify_all();
  }
  // Waits (at most 10 s) until `pred(rows)` holds; returns a copy of the rows.
  template <typename Pred>
  std::vector<ContextChange> wait_for(Pred pred) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(10), [&] { return pred(rows_); });
    return rows_;
  }
  std::vector<ContextChange> rows() {
    std::lock_guard<std::mutex> lock(mu_);
    return rows_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<ContextChange> rows_;
};

size_t count(const std::vector<ContextChange>& rows, ContextKind kind) {
  size_t n = 0;
  for (const auto& r : rows) n += r.kind == kind ? 1 : 0;
  return n;
}

class ContextPollerTest : public StaticBoardTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(make_board("jetson-orin-nano", 36));
    inv_ = discover_clocks(*root_);
    for (const auto& d : inv_.domains) {
      if (d.kind == DomainKind::kGpu) gpu_dir_ = d.dir;
    }
    ASSERT_FALSE(gpu_dir_.empty());
    // These tests change the GPU's cur_freq and expect the clock polls to
    // see it: a kernel without devfreq counters (CountedClocksTest writes them).
    std::filesystem::remove(root_->resolve(gpu_dir_ + "/trans_stat").value());
  }
  // sweep_period 0: polls never wait for sweeps.
  std::unique_ptr<ContextPoller> poller(milliseconds clock_period, milliseconds thermal_period,
                                        milliseconds sweep_period = milliseconds(0),
                                        milliseconds sweep_wait = milliseconds(20), bool inline_reads = false,
                                        milliseconds governor_period = milliseconds(1000)) {
    ContextPollerOptions o;
    o.timer_slack = milliseconds(60);
    o.governor_period = governor_period;
    o.inline_reads = inline_reads;
    o.clock_period = clock_period;
    o.thermal_period = thermal_period;
    o.sweep_period = sweep_period;
    o.sweep_wait = sweep_wait;
    return std::make_unique<ContextPoller>(*root_, inv_, o, clock_, sink_);
  }
  template <typename Pred>
  static bool eventually(Pred pred) {
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!pred() && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(milliseconds(1));
    return pred();
  }
  size_t sources() const {
    ContextProbe probe(*root_, inv_);
    size_t n = probe.domain_count() + probe.zone_count();
    for (size_t i = 0; i < probe.domain_count(); ++i) n += probe.has_governor(i) ? 1u : 0u;
    return n;
  }

  ClockInventory inv_;
  std::string gpu_dir_;
  SystemClock clock_;
  RecordingSink sink_;
};

TEST_F(ContextPollerTest, EverySourceAtStartThenOnlyChangesAndAPollOnRequest) {
  auto p = poller(milliseconds(10'000), milliseconds(10'000));  // the periods never come: polls are asked for
  ASSERT_TRUE(p->start());
  auto rows = sink_.wait_for([&](const auto& r) { return r.size() >= sources(); });
  ASSERT_EQ(rows.size(), sources());
  EXPECT_EQ(count(rows, ContextKind::kThermal), inv_.thermal.size());
  std::ofstream(root_->resolve(gpu_dir_ + "/cur_freq").value()) << "624750000\n";
  p->poll_now();
  rows = sink_.wait_for([&](const auto& r) { return r.size() > sources(); });
  ASSERT_EQ(rows.size(), sources() + 1);
  EXPECT_EQ(rows.back().name, "gpu");
  EXPECT_EQ(rows.back().v.number, 624'750'000);
  EXPECT_GE(p->stats().requested_polls, 2);
  EXPECT_GE(p->stats().clock_polls, 2);
}

TEST_F(ContextPollerTest, StoppingMakesEverySourceUnknown) {
  auto p = poller(milliseconds(10'000), milliseconds(10'000));  // one poll (at start): no late-poll gaps on a slow host
  ASSERT_TRUE(p->start());
  sink_.wait_for([&](const auto& r) { return r.size() >= sources(); });
  p->stop(milliseconds(2000));
  auto rows = sink_.rows();
  size_t known = 0;
  for (size_t i = 0; i < sources(); ++i) known += rows[i].v != ContextValue::unknown() ? 1u : 0u;
  EXPECT_GT(known, sources() / 2);
  ASSERT_EQ(rows.size(), sources() + known);  // nothing changed on the static tree
  for (size_t i = sources(); i < rows.size(); ++i) EXPECT_EQ(rows[i].v, ContextValue::unknown()) << rows[i].name;
}

TEST_F(ContextPollerTest, AScheduleThatIsOffAnnouncesItsSourcesAsUnknown) {
  auto p = poller(milliseconds(0), milliseconds(10'000));
  ASSERT_TRUE(p->start());
  auto rows = sink_.wait_for([&](const auto& r) { return r.size() >= sources(); });
  ASSERT_EQ(rows.size(), sources());
  for (const auto& r : rows) {
    if (r.kind == ContextKind::kThermal) continue;
    EXPECT_EQ(r.v, ContextValue::unknown()) << r.name;
  }
  EXPECT_EQ(p->stats().clock_polls, 0);
}

TEST_F(ContextPollerTest, WithBothSchedulesOffEverySourceIsUnknownAndStopStillEnds) {
  auto p = poller(milliseconds(0), milliseconds(0));
  ASSERT_TRUE(p->start());
  auto rows = sink_.wait_for([&](const auto& r) { return r.size() >= sources(); });
  ASSERT_EQ(rows.size(), sources());
  for (const auto& r : rows) EXPECT_EQ(r.v, ContextValue::unknown()) << r.name;
  p->poll_now();  // nothing to poll
  p->stop(milliseconds(2000));
  EXPECT_EQ(p->stats().clock_polls, 0);
  EXPECT_EQ(p->stats().thermal_polls, 0);
  EXPECT_EQ(sink_.rows().size(), sources());  // already unknown: stopping adds nothing
}

TEST_F(ContextPollerTest, ADuePollWaitsForASweepAndRidesOnIt) {
  // Sweeps every 100 ms; the poller's own timer would fire 10 s after a poll is due.
  auto p = poller(milliseconds(100), milliseconds(10'000), milliseconds(100), milliseconds(10'000));
  ASSERT_TRUE(p->start());
  ASSERT_TRUE(eventually([&] { return p->stats().clock_polls == 1; }));
  p->on_sweep();                                   // nothing due yet
  std::this_thread::sleep_for(milliseconds(250));  // the next poll is due after 100 ms
  EXPECT_EQ(p->stats().clock_polls, 1) << "polled on its own timer, not waiting for a sweep";
  p->on_sweep();
  EXPECT_TRUE(eventually([&] { return p->stats().clock_polls == 2; }));
  p->on_sweep();  // not due again for ~100 ms
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(p->stats().clock_polls, 2);
  EXPECT_EQ(p->stats().thermal_polls, 1);
}

TEST_F(ContextPollerTest, WhenNoSweepComesAPollStartsOnItsOwnTimer) {
  auto p = poller(milliseconds(20), milliseconds(10'000), milliseconds(10), milliseconds(5));
  ASSERT_TRUE(p->start());
  EXPECT_TRUE(eventually([&] { return p->stats().clock_polls >= 5; }));
}

TEST_F(ContextPollerTest, PollsMoreFrequentThanSweepsDoNotWaitForThem) {
  // Sampling every second, clocks every 20 ms: waiting for sweeps would stretch the polls.
  auto p = poller(milliseconds(20), milliseconds(10'000), milliseconds(1000), milliseconds(10'000));
  ASSERT_TRUE(p->start());
  EXPECT_TRUE(eventually([&] { return p->stats().clock_polls >= 5; }));
}

TEST_F(ContextPollerTest, InlinePollsRunOnTheSweepingThreadAndThePollersThreadSleeps) {
  // Sweeps every 100 ms (this test's thread); the poller's own timer would fire 10 s after a due poll.
  auto p = poller(milliseconds(100), milliseconds(10'000), milliseconds(100), milliseconds(10'000), true);
  ASSERT_TRUE(p->start());
  ASSERT_TRUE(eventually([&] { return p->stats().clock_polls == 1; }));
  const int64_t woke = p->stats().thread_wakeups;
  for (int i = 1; i <= 5; ++i) {
    std::this_thread::sleep_for(milliseconds(100));
    std::ofstream(root_->resolve(gpu_dir_ + "/cur_freq").value()) << 100'000'000 + i << "\n";  // a new value each poll
    p->on_sweep();
    auto st = p->stats();  // no waiting: the poll ran inside on_sweep
    EXPECT_EQ(st.clock_polls, 1 + i);
    EXPECT_EQ(st.inline_polls, i);
  }
  EXPECT_EQ(p->stats().thread_wakeups, woke) << "the poller's thread woke although every poll rode inline";
  auto rows = sink_.rows();
  size_t gpu_rows = 0;
  for (const auto& r : rows) gpu_rows += r.kind == ContextKind::kClock && r.name == "gpu" ? 1u : 0u;
  EXPECT_EQ(gpu_rows, 1u + 5u) << "every inline poll's change reached the sink";
  p->on_sweep();  // not due again for ~100 ms
  EXPECT_EQ(p->stats().inline_polls, 5);
}

// A clock read again at the value its last row holds skips the tracker
// (issue 16): a value that comes back after a change is still a row, and
// quiet polls between changes make none.
TEST_F(ContextPollerTest, AClockThatComesBackToAValueIsARowEachTimeAndQuietPollsMakeNone) {
  auto p = poller(milliseconds(100), milliseconds(10'000), milliseconds(100), milliseconds(10'000), true);
  const std::string cur_freq = root_->resolve(gpu_dir_ + "/cur_freq").value();
  std::ofstream(cur_freq) << "306000000\n";
  ASSERT_TRUE(p->start());
  ASSERT_TRUE(eventually([&] { return p->stats().clock_polls == 1; }));
  const int64_t values[] = {306'000'000, 306'000'000, 612'000'000, 612'000'000, 306'000'000, 306'000'000, 612'000'000};
  for (int64_t v : values) {
    std::this_thread::sleep_for(milliseconds(100));
    std::ofstream(cur_freq) << v << "\n";
    const int64_t polls = p->stats().clock_polls;
    p->on_sweep();
    ASSERT_EQ(p->stats().clock_polls, polls + 1) << "the sweep did not take the due poll";
  }
  std::vector<int64_t> gpu;
  for (const auto& r : sink_.rows()) {
    if (r.kind == ContextKind::kClock && r.name == "gpu") gpu.push_back(r.v.number.value_or(-1));
  }
  EXPECT_EQ(gpu, (std::vector<int64_t>{306'000'000, 612'000'000, 306'000'000, 612'000'000}));
}

// Quiet polls (no row, nothing but a count and a duration) are recorded in
// slots without the stats' lock and folded when asked (issue 16): more of
// them than there are slots, with nobody asking in between, all count.
TEST_F(ContextPollerTest, QuietPollsAllCountWhenTheirSlotsWrapWithNobodyAsking) {
  // Every sweep 3 ms apart takes the 2 ms poll; the poller's own timer is 10 s away.
  auto p =
      poller(milliseconds(2), milliseconds(10'000), milliseconds(2), milliseconds(10'000), true, milliseconds(60'000));
  ASSERT_TRUE(p->start());
  ASSERT_TRUE(eventually([&] { return p->stats().clock_polls == 1; }));
  const size_t rows = sink_.rows().size();
  constexpr int kSweeps = 150;  // more than twice the 64 slots
  for (int i = 0; i < kSweeps; ++i) {
    std::this_thread::sleep_for(milliseconds(3));
    p->on_sweep();
  }
  auto st = p->stats();
  // A read held up past the 20 ms stall limit (a loaded machine) ends
  // inline polling for good, and the sweeps after it wake the thread.
  if (st.stalls > 0) GTEST_SKIP() << st.stalls << " clock reads took longer than the stall limit here";
  EXPECT_EQ(st.inline_polls, kSweeps);
  EXPECT_EQ(st.clock_polls, 1 + kSweeps);
  EXPECT_EQ(st.governor_polls, 1) << "only the first poll's";
  EXPECT_GT(st.clock_poll_max_ns, 0);
  EXPECT_LE(st.clock_poll_p50_ns, st.clock_poll_max_ns);
  EXPECT_EQ(sink_.rows().size(), rows) << "nothing changed on the static tree";
  std::ofstream(root_->resolve(gpu_dir_ + "/cur_freq").value()) << "624750000\n";
  std::this_thread::sleep_for(milliseconds(3));
  p->on_sweep();  // a change: delivered under the lock, after the quiet polls before it
  st = p->stats();
  EXPECT_EQ(st.clock_polls, 2 + kSweeps);
  EXPECT_EQ(sink_.rows().size(), rows + 1);
}

TEST_F(ContextPollerTest, WithInlineReadsAndNoSweepThePollersThreadStillPolls) {
  auto p = poller(milliseconds(20), milliseconds(10'000), milliseconds(10), milliseconds(5), true);
  ASSERT_TRUE(p->start());
  EXPECT_TRUE(eventually([&] { return p->stats().clock_polls >= 5; }));
  EXPECT_EQ(p->stats().inline_polls, 0);
  EXPECT_GE(p->stats().thread_wakeups, 5);
}

TEST_F(ContextPollerTest, ARequestedPollStillRunsOnThePollersThreadWithInlineReads) {
  auto p = poller(milliseconds(10'000), milliseconds(10'000), milliseconds(100), milliseconds(10'000), true);
  ASSERT_TRUE(p->start());
  ASSERT_TRUE(eventually([&] { return p->stats().clock_polls == 1; }));
  std::mutex mu;
  std::condition_variable cv;
  bool polled = false;
  p->poll_now([&] {
    std::lock_guard<std::mutex> lock(mu);
    polled = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  EXPECT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return polled; }));
  EXPECT_EQ(p->stats().clock_polls, 2);
  EXPECT_EQ(p->stats().inline_polls, 0);
}

size_t governor_rows(const std::vector<ContextChange>& rows, const std::string& name, const std::string& governor) {
  size_t n = 0;
  for (const auto& r : rows) n += r.kind == ContextKind::kGovernor && r.name == name && r.v.text == governor ? 1u : 0u;
  return n;
}

TEST_F(ContextPollerTest, GovernorsAreNotReadAtEveryClockPollButAtARequest) {
  // Clocks every 10 ms, governors every 10 s: after the first poll only a request reads them.
  auto p =
      poller(milliseconds(10), milliseconds(10'000), milliseconds(0), milliseconds(20), false, milliseconds(10'000));
  ASSERT_TRUE(p->start());
  ASSERT_TRUE(eventually([&] { return p->stats().clock_polls >= 1; }));
  std::ofstream(root_->resolve(gpu_dir_ + "/governor").value()) << "performance\n";
  const int64_t polls = p->stats().clock_polls;
  ASSERT_TRUE(eventually([&] { return p->stats().clock_polls >= polls + 3; }));
  EXPECT_EQ(governor_rows(sink_.rows(), "gpu", "performance"), 0u) << "clock polls read the governor";
  EXPECT_EQ(p->stats().governor_polls, 1);
  p->poll_now();
  auto rows = sink_.wait_for([&](const auto& r) { return governor_rows(r, "gpu", "performance") > 0; });
  EXPECT_EQ(governor_rows(rows, "gpu", "performance"), 1u);
  EXPECT_EQ(p->stats().governor_polls, 2);
}

TEST_F(ContextPollerTest, AChangedGovernorIsSeenWithinItsPeriodWithoutARequest) {
  auto p = poller(milliseconds(10), milliseconds(10'000), milliseconds(0), milliseconds(20), false, milliseconds(40));
  ASSERT_TRUE(p->start());
  ASSERT_TRUE(eventually([&] { return p->stats().clock_polls >= 1; }));
  std::ofstream(root_->resolve(gpu_dir_ + "/governor").value()) << "performance\n";
  auto rows = sink_.wait_for([&](const auto& r) { return governor_rows(r, "gpu", "performance") > 0; });
  EXPECT_EQ(governor_rows(rows, "gpu", "performance"), 1u);
  EXPECT_EQ(p->stats().requested_polls, 1) << "only the first poll was asked for";
  EXPECT_GE(p->stats().governor_polls, 2);
}

TEST_F(ContextPollerTest, WhenInlineSweepsStopThePollersThreadTakesOver) {
  // Polls ride on sweeps (every 20 ms here) and push the own timer back lazily (up to 60 ms late); then the sweeps
  // stop.
  auto p = poller(milliseconds(40), milliseconds(10'000), milliseconds(20), milliseconds(10), true);
  ASSERT_TRUE(p->start());
  ASSERT_TRUE(eventually([&] { return p->stats().clock_polls >= 1; }));
  for (int i = 0; i < 8; ++i) {
    std::this_thread::sleep_for(milliseconds(20));
    p->on_sweep();
  }
  EXPECT_GE(p->stats().inline_polls, 2);
  const auto before = p->stats();
  EXPECT_TRUE(eventually([&] { return p->stats().clock_polls >= before.clock_polls + 2; }));
  EXPECT_GT(p->stats().thread_wakeups, before.thread_wakeups);
  EXPECT_EQ(p->stats().inline_polls, before.inline_polls);
}

// Residency from counters: a fake boot clock makes the counted times and the
// rows' instants exact.
class SetClock final : public Clock {
 public:
  int64_t boot_ns() const override { return boot_.load(); }
  int64_t mono_ns() const override { return real_.mono_ns(); }
  int64_t wall_ns() const override { return real_.wall_ns(); }
  void set_boot_ns(int64_t t) { boot_ = t; }

 private:
  SystemClock real_;
  std::atomic<int64_t> boot_{10'000'000'000};
};

class CountedClocksTest : public ContextPollerTest {
 protected:
  static constexpr int64_t kT0 = 10'000'000'000;

  // Requested polls only (clock and governor periods never come), unless `clock_period` says otherwise.
  std::unique_ptr<ContextPoller> counted_poller(milliseconds clock_period = milliseconds(10'000)) {
    ContextPollerOptions o;
    o.clock_period = clock_period;
    o.thermal_period = milliseconds(10'000);
    o.governor_period = milliseconds(10'000);
    return std::make_unique<ContextPoller>(*root_, inv_, o, fake_, sink_);
  }
  const std::vector<int64_t>& gpu_hz() const {
    for (const auto& d : inv_.domains) {
      if (d.kind == DomainKind::kGpu) return d.available_hz;
    }
    throw std::logic_error("no GPU");
  }
  // The GPU's trans_stat with these ms per frequency (no transitions counted).
  void write_trans_stat(const std::vector<int64_t>& ms) {
    std::ofstream out(root_->resolve(gpu_dir_ + "/trans_stat").value());
    out << "     From  :   To\n           :";
    for (int64_t hz : gpu_hz()) out << " " << hz;
    out << "   time(ms)\n";
    for (size_t i = 0; i < gpu_hz().size(); ++i) {
      out << "  " << gpu_hz()[i] << ":";
      for (size_t j = 0; j < gpu_hz().size(); ++j) out << " 0";
      out << " " << ms[i] << "\n";
    }
    out << "Total transition : 0\n";
  }
  void write_cur(int64_t hz) { std::ofstream(root_->resolve(gpu_dir_ + "/cur_freq").value()) << hz << "\n"; }
  // Asks for a poll at boot time t and waits until its rows are with the sink.
  void poll_at(ContextPoller& p, int64_t t) {
    fake_.set_boot_ns(t);
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    p.poll_now([&] {
      std::lock_guard<std::mutex> lock(mu);
      done = true;
      cv.notify_all();
    });
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return done; }));
  }
  std::vector<ContextChange> gpu_clock_rows() {
    std::vector<ContextChange> out;
    for (const auto& r : sink_.rows()) {
      if (r.kind == ContextKind::kClock && r.name == "gpu") out.push_back(r);
    }
    return out;
  }

  SetClock fake_;
};

TEST_F(CountedClocksTest, TheTimeBetweenTwoReadsBecomesRowsGivingEachFrequencyItsCountedTime) {
  const std::vector<int64_t>& hz = gpu_hz();
  ASSERT_GE(hz.size(), 3u);
  write_trans_stat(std::vector<int64_t>(hz.size(), 1000));
  write_cur(hz[0]);
  auto p = counted_poller();
  ASSERT_TRUE(p->start());
  sink_.wait_for([&](const auto& r) { return r.size() >= sources(); });
  EXPECT_EQ(p->stats().counted_clocks, 3) << "two CPU policies and the GPU; the EMC is polled";
  // In the next second: 300 ms more at hz[0], 200 ms at hz[1], 500 ms at hz[2], where it is now.
  std::vector<int64_t> ms(hz.size(), 1000);
  ms[0] += 300;
  ms[1] += 200;
  ms[2] += 500;
  write_trans_stat(ms);
  write_cur(hz[2]);
  for (const auto& d : inv_.domains) {  // the CPUs' counters follow the clock too (all at their lowest frequency)
    if (d.kind != DomainKind::kCpu) continue;
    std::ofstream out(root_->resolve(d.dir + "/stats/time_in_state").value());
    for (size_t i = 0; i < d.available_hz.size(); ++i)
      out << d.available_hz[i] / 1000 << " " << (i == 0 ? 100 : 0) << "\n";
  }
  ASSERT_NO_FATAL_FAILURE(poll_at(*p, kT0 + 1000 * kMs));
  const std::vector<ContextChange> rows = gpu_clock_rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].t_ns, kT0);
  EXPECT_EQ(rows[0].v.number, hz[0]);
  EXPECT_EQ(rows[1].t_ns, kT0 + 300 * kMs);
  EXPECT_EQ(rows[1].v.number, hz[1]);
  EXPECT_EQ(rows[2].t_ns, kT0 + 500 * kMs);
  EXPECT_EQ(rows[2].v.number, hz[2]);
  EXPECT_EQ(p->stats().counter_fallbacks, 0);
}

TEST_F(CountedClocksTest, MalformedCountersAtStartFallBackToPollingTheCurrentFrequency) {
  std::ofstream(root_->resolve(gpu_dir_ + "/trans_stat").value()) << "Not Supported.\n";
  auto p = counted_poller(milliseconds(10));
  ASSERT_TRUE(p->start());
  ASSERT_TRUE(eventually([&] { return p->stats().counter_fallbacks == 1; }));
  EXPECT_EQ(p->stats().counted_clocks, 2) << "the CPUs keep their counters";
  fake_.set_boot_ns(kT0 + 50 * kMs);  // the boot clock moves on (a row needs a later instant)
  write_cur(gpu_hz().back());
  auto rows = sink_.wait_for([&](const auto& r) {
    return std::any_of(r.begin(), r.end(), [&](const ContextChange& c) { return c.v.number == gpu_hz().back(); });
  });
  EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [&](const ContextChange& c) {
    return c.name == "gpu" && c.v.number == gpu_hz().back();
  })) << "a clock poll (not a request) saw the change";
}

TEST_F(CountedClocksTest, ShrinkingOrStalledCountersFallBackAndAreNeverReadAsZeroTime) {
  write_trans_stat(std::vector<int64_t>(gpu_hz().size(), 1000));
  write_cur(gpu_hz()[0]);
  auto p = counted_poller();
  ASSERT_TRUE(p->start());
  sink_.wait_for([&](const auto& r) { return r.size() >= sources(); });
  std::vector<int64_t> shrunk(gpu_hz().size(), 1000);
  shrunk[1] = 10;
  write_trans_stat(shrunk);
  write_cur(gpu_hz()[1]);
  // The CPUs' counters do not move in that second: they fall back too.
  ASSERT_NO_FATAL_FAILURE(poll_at(*p, kT0 + 1000 * kMs));
  EXPECT_EQ(p->stats().counter_fallbacks, 3);
  EXPECT_EQ(p->stats().counted_clocks, 0);
  const std::vector<ContextChange> rows = gpu_clock_rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].t_ns, kT0 + 1000 * kMs) << "the value read, at the read: no counted rows";
  EXPECT_EQ(rows[1].v.number, gpu_hz()[1]);
}

TEST(InlineReads, OnlyIdentifiedBoardsBeforeThor) {
  BoardIdentity b;
  EXPECT_FALSE(inline_reads_safe(b)) << "a board that was not identified";
  b.known = true;
  b.compatible = {"nvidia,p3768-0000+p3767-0005", "nvidia,tegra234"};
  b.l4t_release = "36.4.3";
  EXPECT_TRUE(inline_reads_safe(b));
  b.l4t_release = "";
  EXPECT_TRUE(inline_reads_safe(b)) << "no release file: the device tree decides";
  b.l4t_release = "38.2.0";
  EXPECT_FALSE(inline_reads_safe(b)) << "L4T 38 (JetPack 7)";
  b.l4t_release = "32.7.4";
  b.compatible = {"nvidia,p3834-0008", "nvidia,tegra264"};
  EXPECT_FALSE(inline_reads_safe(b)) << "Thor by its device tree";
}

}  // namespace
}  // namespace energy::daemon
