// The board context change log in the Store: sources, windows for run
// reports, the end of an earlier daemon's polling, and retention with the
// 1 s tier (store.h, context.h).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "../time_units.h"
#include "energy/chunker.h"
#include "energy/residency.h"
#include "energy/store.h"
#include "temp_store.h"

namespace energy {
namespace {

class StoreContextTest : public TempStoreTest {
 protected:
  void SetUp() override {
    TempStoreTest::SetUp();
    if (HasFatalFailure()) return;
    boot_ = boot("boot-a");
  }
  int64_t boot(const std::string& id) {
    auto b = store_->ensure_boot(id, 0);
    EXPECT_TRUE(b.ok());
    return b.ok() ? *b : 0;
  }
  int64_t source(ContextKind kind, const std::string& name) {
    auto id = store_->context().ensure_source(kind, name);
    EXPECT_TRUE(id.ok()) << id.error().describe();
    return id.ok() ? *id : 0;
  }
  void put(int64_t boot, int64_t source, int64_t t_ns, ContextValue v) {
    auto st = store_->context().put_row(boot, source, ContextRow{t_ns, std::move(v)});
    ASSERT_TRUE(st.ok()) << st.error().describe();
  }
  std::vector<ContextSeries> window(int64_t boot, EnergyWindow w) {
    auto s = store_->context().window(boot, w);
    EXPECT_TRUE(s.ok()) << s.error().describe();
    return s.ok() ? *s : std::vector<ContextSeries>{};
  }
  static const ContextSeries* find(const std::vector<ContextSeries>& all, ContextKind kind, const std::string& name) {
    for (const auto& s : all) {
      if (s.kind == kind && s.name == name) return &s;
    }
    return nullptr;
  }
  // Raw sweeps of one constant rail, one a second over [from, to), as the writer stores them.
  void sweeps(int64_t boot, int64_t from_ns, int64_t to_ns) {
    RailInfo info;
    info.label = "VDD_IN";
    auto ids = store_->ensure_rails({info});
    ASSERT_TRUE(ids.ok());
    Chunker chunker({ChunkRail{0}}, 600, {});
    for (int64_t t = from_ns; t < to_ns; t += kSec) chunker.add(Sample{t, t, {RailValue{5'000'000, 5000, 1000, 0}}});
    ASSERT_TRUE(store_->begin().ok());
    for (const auto& c : chunker.take_closed()) ASSERT_TRUE(store_->readings().put_chunk(boot, *ids, c).ok());
    ASSERT_TRUE(store_->readings().put_chunk(boot, *ids, chunker.open_chunk()).ok());
    ASSERT_TRUE(store_->commit().ok());
  }
  RetentionStep retain(const RetentionPolicy& p, const RetentionNow& now, int64_t* steps = nullptr) {
    RetentionStep last;
    for (int i = 0; i < 100'000; ++i) {
      auto step = store_->tiers().apply_retention(p, now);
      EXPECT_TRUE(step.ok()) << step.error().describe();
      if (!step.ok()) break;
      EXPECT_LE(step->context_rows_deleted, p.max_context_rows_per_step);
      last = *step;
      if (steps != nullptr) ++*steps;
      if (!step->more) break;
    }
    return last;
  }
  int64_t boot_ = 0;
};

TEST_F(StoreContextTest, SourcesAreKeptByKindAndName) {
  int64_t gpu = source(ContextKind::kClock, "gpu");
  EXPECT_EQ(source(ContextKind::kClock, "gpu"), gpu);
  EXPECT_NE(source(ContextKind::kGovernor, "gpu"), gpu);
}

TEST_F(StoreContextTest, AWindowStartsWithTheRowAtOrBeforeItsStart) {
  int64_t gpu = source(ContextKind::kClock, "gpu");
  put(boot_, gpu, 1 * kSec, ContextValue::of_number(306'000'000));
  put(boot_, gpu, 2 * kSec, ContextValue::of_number(408'000'000));
  put(boot_, gpu, 5 * kSec, ContextValue::of_number(510'000'000));
  put(boot_, gpu, 9 * kSec, ContextValue::of_number(612'000'000));
  auto all = window(boot_, {3 * kSec, 8 * kSec});
  const auto* s = find(all, ContextKind::kClock, "gpu");
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->rows.size(), 2u);
  EXPECT_EQ(s->rows[0].t_ns, 2 * kSec);  // the state at 3 s
  EXPECT_EQ(s->rows[1].t_ns, 5 * kSec);
  EXPECT_EQ(s->rows[1].v.number, 510'000'000);
  auto at_row = window(boot_, {5 * kSec, 6 * kSec});
  EXPECT_EQ(find(at_row, ContextKind::kClock, "gpu")->rows.front().t_ns, 5 * kSec);
}

TEST_F(StoreContextTest, ValuesTextAndUnknownRoundTrip) {
  int64_t gov = source(ContextKind::kGovernor, "cpu0");
  int64_t zone = source(ContextKind::kThermal, "GPU-therm");
  put(boot_, gov, kSec, ContextValue::of_text("schedutil"));
  put(boot_, zone, kSec, ContextValue::of_text(kThermalGatedText));
  put(boot_, zone, 2 * kSec, ContextValue::unknown());
  auto all = window(boot_, {0, 3 * kSec});
  EXPECT_EQ(find(all, ContextKind::kGovernor, "cpu0")->rows[0].v.text, "schedutil");
  const auto* z = find(all, ContextKind::kThermal, "GPU-therm");
  ASSERT_EQ(z->rows.size(), 2u);
  EXPECT_FALSE(z->rows[0].v.number.has_value());
  EXPECT_EQ(z->rows[0].v.text, kThermalGatedText);
  EXPECT_EQ(z->rows[1].v, ContextValue::unknown());
}

TEST_F(StoreContextTest, OtherBootsAndLaterSourcesAreNotInAWindow) {
  int64_t other = boot("boot-b");
  int64_t gpu = source(ContextKind::kClock, "gpu");
  int64_t cpu = source(ContextKind::kClock, "cpu0");
  put(other, gpu, kSec, ContextValue::of_number(1));
  put(boot_, cpu, 20 * kSec, ContextValue::of_number(2));  // first polled after the window
  auto all = window(boot_, {0, 10 * kSec});
  ASSERT_EQ(all.size(), 1u);  // the gpu is a source of the other boot only
  EXPECT_EQ(all[0].name, "cpu0");
  EXPECT_TRUE(all[0].rows.empty());  // listed, unknown all along
  EXPECT_EQ(window(other, {0, 10 * kSec}).size(), 1u);
}

TEST_F(StoreContextTest, ClosingAnEarlierDaemonsPollingMakesTheDowntimeUnknown) {
  int64_t gpu = source(ContextKind::kClock, "gpu");
  int64_t zone = source(ContextKind::kThermal, "cpu-thermal");
  int64_t gone = source(ContextKind::kThermal, "gpu-thermal");
  put(boot_, gpu, 10 * kSec, ContextValue::of_number(612'000'000));
  put(boot_, zone, 30 * kSec, ContextValue::of_number(41'000));  // after the last sweep
  put(boot_, gone, 5 * kSec, ContextValue::unknown());           // already unknown: nothing to end
  auto added = store_->context().close(boot_, 20 * kSec);        // the old daemon's last sweep
  ASSERT_TRUE(added.ok()) << added.error().describe();
  EXPECT_EQ(*added, 2);
  // The new daemon polls again from 60 s: [20 s, 60 s) is unknown, not 612 MHz.
  put(boot_, gpu, 60 * kSec, ContextValue::of_number(612'000'000));
  auto ctx = summarize_context(window(boot_, {0, 100 * kSec}), {0, 100 * kSec});
  ASSERT_EQ(ctx.clocks.size(), 1u);
  EXPECT_EQ(ctx.clocks[0].unknown_ns, 10 * kSec + 40 * kSec);
  EXPECT_EQ(ctx.clocks[0].residency[0].ns, 10 * kSec + 40 * kSec);
  auto all = window(boot_, {0, 100 * kSec});
  const auto* z = find(all, ContextKind::kThermal, "cpu-thermal");
  ASSERT_EQ(z->rows.size(), 2u);
  EXPECT_EQ(z->rows[1].t_ns, 30 * kSec + 1);  // never before the row it ends
  EXPECT_EQ(find(all, ContextKind::kThermal, "gpu-thermal")->rows.size(), 1u);
  auto again = store_->context().close(boot_, 70 * kSec);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 1);  // only the gpu, polled again since
}

TEST_F(StoreContextTest, ContextAgesOutWithTheSecondTierKeepingTheStateAtTheCut) {
  int64_t gpu = source(ContextKind::kClock, "gpu");
  sweeps(boot_, 0, 3 * kHour);
  for (int64_t t = 5 * kSec; t < 3 * kHour; t += 10 * kSec) put(boot_, gpu, t, ContextValue::of_number(t / kSec));
  RetentionPolicy p;
  p.raw_retention_ns = kHour;
  p.second_retention_ns = 2 * kHour;
  p.minute_retention_ns = 0;
  p.disk_budget_bytes = 0;
  p.max_context_rows_per_step = 100;
  int64_t steps = 0;
  retain(p, RetentionNow{boot_, 3 * kHour, 3 * kHour}, &steps);
  // Where the 1 s tier starts now: context before it is gone but for the row in force there.
  auto rails = store_->rails();
  ASSERT_TRUE(rails.ok() && rails->size() == 1);
  auto seconds = store_->tiers().rail_buckets(boot_, rails->front().id, Tier::kSecond, {0, 3 * kHour});
  ASSERT_TRUE(seconds.ok() && !seconds->empty());
  int64_t cut = seconds->front().start_ns;
  ASSERT_GT(cut, 30 * kMinuteNs);                                          // the oldest 1 s rows went to the 1 min tier
  int64_t kept = (cut - 5 * kSec) / (10 * kSec) * (10 * kSec) + 5 * kSec;  // the newest row at or before the cut
  auto all = window(boot_, {0, 3 * kHour});
  const auto* s = find(all, ContextKind::kClock, "gpu");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->rows.front().t_ns, kept);
  EXPECT_EQ(static_cast<int64_t>(s->rows.size()), (3 * kHour - kept) / (10 * kSec) + 1);
  EXPECT_GT(steps, 3);  // hundreds of rows at 100 per step
  // From the cut on the state is known; before the kept row it is unknown, and said so.
  auto at_cut = summarize_context(window(boot_, {cut, cut + kMinuteNs}), {cut, cut + kMinuteNs});
  EXPECT_EQ(at_cut.clocks[0].unknown_ns, 0);
  EXPECT_EQ(at_cut.clocks[0].residency.back().hz, kept / kSec);
  auto before = summarize_context(window(boot_, {kept - kMinuteNs, kept - kSec}), {kept - kMinuteNs, kept - kSec});
  ASSERT_EQ(before.clocks.size(), 1u);
  EXPECT_EQ(before.clocks[0].unknown_ns, kMinuteNs - kSec);
  EXPECT_TRUE(before.clocks[0].residency.empty());
}

TEST_F(StoreContextTest, AnEarlierBootWithoutHistoryKeepsOnlyEachSourcesLastRow) {
  int64_t old_boot = boot("boot-old");
  int64_t gpu = source(ContextKind::kClock, "gpu");
  int64_t zone = source(ContextKind::kThermal, "tj-thermal");
  for (int64_t t = 1; t <= 50; ++t) put(old_boot, gpu, t * kSec, ContextValue::of_number(t));
  put(old_boot, zone, kSec, ContextValue::of_number(40'000));
  put(boot_, gpu, kSec, ContextValue::of_number(1));  // the current boot, without rails: kept by age
  put(boot_, gpu, 2 * kSec, ContextValue::of_number(2));
  RetentionPolicy p;
  p.disk_budget_bytes = 0;
  auto last = retain(p, RetentionNow{boot_, 10 * kSec, 10 * kSec});
  EXPECT_FALSE(last.more);
  auto old_rows = window(old_boot, {0, 100 * kSec});
  ASSERT_EQ(find(old_rows, ContextKind::kClock, "gpu")->rows.size(), 1u);
  EXPECT_EQ(find(old_rows, ContextKind::kClock, "gpu")->rows[0].v.number, 50);
  EXPECT_EQ(find(old_rows, ContextKind::kThermal, "tj-thermal")->rows.size(), 1u);
  EXPECT_EQ(find(window(boot_, {0, 100 * kSec}), ContextKind::kClock, "gpu")->rows.size(), 2u);
  // By age, the current boot's rows go once older than the 1 s retention.
  p.second_retention_ns = 5 * kSec;
  retain(p, RetentionNow{boot_, 10 * kSec, 10 * kSec});
  EXPECT_EQ(find(window(boot_, {0, 100 * kSec}), ContextKind::kClock, "gpu")->rows.size(), 1u);
}

TEST_F(StoreContextTest, OverBudgetContextOlderThanTheRawReadingsGoesBeforeAnyReading) {
  int64_t gpu = source(ContextKind::kClock, "gpu");
  sweeps(boot_, 0, 2 * kHour);
  ASSERT_TRUE(store_->begin().ok());
  for (int64_t t = 50'000'000; t < 2 * kHour; t += 100'000'000) {
    put(boot_, gpu, t, ContextValue::of_number(t % 7));  // a change at every 100 ms poll: the context dominates
  }
  ASSERT_TRUE(store_->commit().ok());
  RetentionPolicy p;
  p.raw_retention_ns = kHour;  // raw readings from about 1 h on, 1 s buckets before
  p.second_retention_ns = int64_t{30} * 24 * kHour;
  p.disk_budget_bytes = 0;
  RetentionNow now{boot_, 2 * kHour, 2 * kHour};
  retain(p, now);
  auto sweeps_before = store_->readings().sample_count();
  ASSERT_TRUE(sweeps_before.ok());
  auto in_window = [&](EnergyWindow w) { return find(window(boot_, w), ContextKind::kClock, "gpu")->rows.size(); };
  size_t all_rows = in_window({0, 2 * kHour});
  ASSERT_GT(all_rows, 70'000u);  // age alone kept it: it goes with the 1 s tier
  // A budget the readings fit in, but not with all the context.
  auto pages = store_->tiers().footprint();
  ASSERT_TRUE(pages.ok());
  p.disk_budget_bytes = (pages->file_bytes - pages->free_bytes) * 8 / 10;
  p.max_context_rows_per_step = 20'000;
  auto last = retain(p, now);
  EXPECT_FALSE(last.over_budget);
  auto sweeps_after = store_->readings().sample_count();
  ASSERT_TRUE(sweeps_after.ok());
  EXPECT_EQ(*sweeps_after, *sweeps_before);  // no raw reading was downsampled for it
  auto rails = store_->rails();
  ASSERT_TRUE(rails.ok());
  auto raw_from = store_->readings().rail_points(boot_, rails->front().id, {kHour, kHour + kMinuteNs});
  ASSERT_TRUE(raw_from.ok() && !raw_from->empty());
  int64_t raw_start = 2 * kHour;
  for (const auto& pt : *raw_from) raw_start = std::min(raw_start, pt.t_ns);
  // Context from the raw readings' start on is all there, and the state there is known.
  size_t kept = in_window({raw_start, 2 * kHour});
  EXPECT_GE(kept, static_cast<size_t>((2 * kHour - raw_start) / 100'000'000));
  EXPECT_LE(in_window({0, 2 * kHour}), kept + 1);
  auto at_start = summarize_context(window(boot_, {raw_start, raw_start + kSec}), {raw_start, raw_start + kSec});
  EXPECT_EQ(at_start.clocks[0].unknown_ns, 0);
}

}  // namespace
}  // namespace energy
