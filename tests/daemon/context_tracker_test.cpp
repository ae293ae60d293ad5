// ContextTracker: polled values become change rows, with unknown stretches
// for reads that hang and polls that come late.
#include "context_tracker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../time_units.h"

namespace energy::daemon {
namespace {

ContextValue hz(int64_t v) { return ContextValue::of_number(v); }

class Tracker : public ::testing::Test {
 protected:
  ContextTracker tracker_{{100 * kMs, 100 * kMs, 250 * kMs}};
  std::vector<ContextChange> out_;

  // One poll of the gpu at t (read takes `read` ns).
  void poll(int64_t t, const ContextValue& v, int64_t read = kMs / 10) {
    tracker_.begin_poll(t, out_);
    tracker_.observe(ContextKind::kClock, "gpu", t, t + read, v, out_);
    tracker_.end_poll(t + read);
  }
};

TEST_F(Tracker, OnlyChangesBecomeRowsAndTheFirstValueAlwaysDoes) {
  poll(0, hz(306));
  poll(100 * kMs, hz(306));
  poll(200 * kMs, hz(612));
  poll(300 * kMs, hz(612));
  ASSERT_EQ(out_.size(), 2u);
  EXPECT_EQ(out_[0].v, hz(306));
  EXPECT_EQ(out_[1].v, hz(612));
  EXPECT_EQ(out_[1].t_ns, 200 * kMs + kMs / 10);  // stamped when the read returned
  EXPECT_EQ(out_[1].kind, ContextKind::kClock);
  EXPECT_EQ(out_[1].name, "gpu");
}

// The tracker finds a source among the ones observed lately by the address
// of its name (issue 16); a name is still the same source at any address,
// and a different one at a reused address.
TEST_F(Tracker, ASourceIsItsNameWhereverTheNameIsStored) {
  std::string a = "gpu", b = "gpu";
  tracker_.observe(ContextKind::kClock, a, 0, 1, hz(306), out_);
  tracker_.observe(ContextKind::kClock, a, 5, 6, hz(306), out_);    // found in the map: a hint for a's storage
  tracker_.observe(ContextKind::kClock, b, 10, 11, hz(306), out_);  // same source, other storage
  ASSERT_EQ(out_.size(), 1u);
  a = "emc";  // the same storage, another source
  tracker_.observe(ContextKind::kClock, a, 20, 21, hz(204), out_);
  tracker_.observe(ContextKind::kClock, a, 25, 26, hz(204), out_);  // unchanged: no row
  ASSERT_EQ(out_.size(), 2u);
  EXPECT_EQ(out_[1].name, "emc");
  tracker_.observe(ContextKind::kGovernor, b, 30, 31, hz(306), out_);  // same name, other kind
  ASSERT_EQ(out_.size(), 3u);
  EXPECT_EQ(out_[2].kind, ContextKind::kGovernor);
}

// More sources than the tracker keeps hints for, cycled, and one forgotten
// on the way (its entry erased): every change is still exactly one row.
TEST_F(Tracker, ManySourcesAndAForgottenOneKeepTheirRowsExact) {
  std::vector<std::string> names;
  names.reserve(40);
  for (int i = 0; i < 40; ++i) names.push_back("zone" + std::to_string(i));
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < names.size(); ++i) {
      int64_t t = int64_t{round} * 1000 + static_cast<int64_t>(i);
      tracker_.observe(ContextKind::kThermal, names[i], t, t, hz(round == 2 && i % 2 == 0 ? 2 : 1), out_);
    }
    if (round == 0) tracker_.forget(ContextKind::kThermal, names[5]);
  }
  // 40 first rows, zone5 again after it was forgotten, 20 changes in round 2.
  EXPECT_EQ(out_.size(), 40u + 1u + 20u);
  EXPECT_EQ(std::count_if(out_.begin(), out_.end(), [](const ContextChange& c) { return c.name == "zone5"; }), 2);
}

TEST_F(Tracker, AFirstReadThatFailsIsAnUnknownRowSoTheSourceIsListed) {
  poll(0, ContextValue::unknown());
  ASSERT_EQ(out_.size(), 1u);
  EXPECT_EQ(out_[0].v, ContextValue::unknown());
  poll(100 * kMs, ContextValue::unknown());
  EXPECT_EQ(out_.size(), 1u);
}

TEST_F(Tracker, AReadThatHangsIsUnknownFromItsStartToItsEnd) {
  poll(0, hz(306));
  poll(100 * kMs, hz(306), 2000 * kMs);  // blocked for 2 s (Thor's devfreq)
  ASSERT_EQ(out_.size(), 3u);
  EXPECT_EQ(out_[1].t_ns, 100 * kMs);
  EXPECT_EQ(out_[1].v, ContextValue::unknown());
  EXPECT_EQ(out_[2].t_ns, 2100 * kMs);
  EXPECT_EQ(out_[2].v, hz(306));
}

TEST_F(Tracker, ALatePollLeavesTheUnobservedStretchUnknown) {
  poll(0, hz(306));
  poll(100 * kMs, hz(306));
  poll(1100 * kMs, hz(612));  // held up for a second (or the board was suspended)
  ASSERT_EQ(out_.size(), 3u);
  EXPECT_EQ(out_[1].v, ContextValue::unknown());
  EXPECT_EQ(out_[1].t_ns, 100 * kMs + kMs / 10 + 100 * kMs);  // one period after the last poll
  EXPECT_EQ(out_[2].v, hz(612));
}

TEST_F(Tracker, APollWithinTheGapLimitLeavesNoUnknownStretch) {
  poll(0, hz(306));
  poll(240 * kMs, hz(306));  // two periods late: within 2.5
  EXPECT_EQ(out_.size(), 1u);
}

TEST_F(Tracker, ForgettingMakesEveryKnownSourceUnknownOnce) {
  tracker_.begin_poll(0, out_);
  tracker_.observe(ContextKind::kClock, "gpu", 0, 1, hz(306), out_);
  tracker_.observe(ContextKind::kGovernor, "gpu", 0, 1, ContextValue::of_text("nvhost_podgov"), out_);
  tracker_.observe(ContextKind::kClock, "emc", 0, 1, ContextValue::unknown(), out_);
  tracker_.end_poll(1);
  out_.clear();
  tracker_.forget_all(1, out_);  // at the same instant as the rows: just after them
  ASSERT_EQ(out_.size(), 2u);
  for (const auto& c : out_) {
    EXPECT_EQ(c.v, ContextValue::unknown());
    EXPECT_EQ(c.t_ns, 2);
  }
  out_.clear();
  tracker_.forget_all(5, out_);
  EXPECT_TRUE(out_.empty());
}

// observe says whether the source's last row holds the value it was given:
// the poller skips the tracker for a clock read again at that value
// (issue 16), so true must mean that observing it again makes no row.
TEST_F(Tracker, ObserveSaysWhetherTheLastRowHoldsTheValue) {
  tracker_.begin_poll(0, out_);
  EXPECT_TRUE(tracker_.observe(ContextKind::kClock, "gpu", 0, 10, hz(306), out_));  // a first row
  tracker_.end_poll(10);
  tracker_.begin_poll(100 * kMs, out_);
  EXPECT_TRUE(tracker_.observe(ContextKind::kClock, "gpu", 100 * kMs, 100 * kMs + 10, hz(306), out_));  // no row
  EXPECT_TRUE(tracker_.observe(ContextKind::kClock, "gpu", 100 * kMs + 20, 100 * kMs + 30, hz(612), out_));
  tracker_.end_poll(100 * kMs + 30);
  ASSERT_EQ(out_.size(), 2u);
  // A read stamped before the last row cannot make one: the value is not held.
  EXPECT_FALSE(tracker_.observe(ContextKind::kClock, "gpu", 5, 6, hz(204), out_));
  EXPECT_EQ(out_.size(), 2u);
  // After a gap the last row is unknown: the same value as before makes a row again.
  tracker_.begin_poll(2000 * kMs, out_);
  ASSERT_EQ(out_.size(), 3u);
  EXPECT_EQ(out_[2].v, ContextValue::unknown());
  EXPECT_TRUE(tracker_.observe(ContextKind::kClock, "gpu", 2000 * kMs, 2000 * kMs + 10, hz(612), out_));
  ASSERT_EQ(out_.size(), 4u);
  EXPECT_EQ(out_[3].v, hz(612));
  // A stalled read of the held value: unknown over the stall, then the value again.
  tracker_.end_poll(2000 * kMs + 10);
  tracker_.begin_poll(2100 * kMs, out_);
  EXPECT_TRUE(tracker_.observe(ContextKind::kClock, "gpu", 2100 * kMs, 2300 * kMs, hz(612), out_));
  EXPECT_EQ(out_.size(), 6u);
}

}  // namespace
}  // namespace energy::daemon
