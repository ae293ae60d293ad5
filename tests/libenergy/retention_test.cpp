// Retention tiers of the Store: raw chunks downsampled into 1 s and 1 min
// buckets, energy answered from the finest tier holding each edge, and the
// disk budget (QUALITY.md D5). Time is synthetic: "now" is the newest
// sweep written, so nothing here sleeps.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <random>

#include "../time_units.h"
#include "energy/chunker.h"
#include "energy/report.h"
#include "energy/store.h"
#include "temp_store.h"

namespace energy {
namespace {

constexpr int64_t kDay = 24 * kHour;
constexpr int64_t kWallOffsetNs = 1'700'000'000 * kSec;

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

// Deterministic bursty rails, readable at any sweep index without state:
// each 16-sweep block switches once between two random levels (0.5..9 W,
// INA3221-like 8 mA steps), sweeps jitter by up to 2 ms, 0.5% of reads fail
// and rail 1 fails for 50 sweeps in a row every 20000 sweeps.
class Synth {
 public:
  Synth(int64_t period_ns, size_t rails) : period_ns_(period_ns), rails_(rails) {}

  int64_t t_ns(int64_t i) const {
    return i * period_ns_ + static_cast<int64_t>(mix(static_cast<uint64_t>(i) * 7 + 1) % 2000) * 1000;
  }
  size_t rails() const { return rails_; }
  int64_t period_ns() const { return period_ns_; }

  RailValue value(size_t r, int64_t i) const {
    uint64_t block = static_cast<uint64_t>(i / 16), salt = r * 1'000'003ULL;
    bool second_half = static_cast<uint64_t>(i % 16) >= mix(block * 3 + salt) % 16;
    int64_t level_mw = 500 + static_cast<int64_t>(mix(block * 2 + second_half + salt * 5) % 8500);
    int32_t mv = 5000 + 8 * static_cast<int32_t>(mix(static_cast<uint64_t>(i) + salt) % 3);
    int32_t ma = static_cast<int32_t>(level_mw * 1000 / mv / 8 * 8);
    if (failed(r, i)) return RailValue{0, 0, 0, EIO};
    return RailValue{int64_t{mv} * ma, mv, ma, 0};
  }

  Sample sweep(int64_t i) const {
    Sample s{t_ns(i), t_ns(i) + kWallOffsetNs, {}};
    for (size_t r = 0; r < rails_; ++r) s.values.push_back(value(r, i));
    return s;
  }

  // The exact energy of the readings (what the raw tier integrates).
  double energy_uj(size_t r, EnergyWindow w) const {
    std::vector<PowerPoint> pts;
    pts.reserve(static_cast<size_t>((w.end_ns - w.begin_ns) / period_ns_ + 122));
    for (int64_t i = std::max<int64_t>(0, w.begin_ns / period_ns_ - 60); i <= w.end_ns / period_ns_ + 60; ++i) {
      RailValue v = value(r, i);
      pts.push_back(PowerPoint{t_ns(i), v.power_uw, v.err == 0});
    }
    return integrate_power(pts, w, INT64_MAX).energy_uj;
  }

 private:
  bool failed(size_t r, int64_t i) const {
    if (r == 1 && i % 20000 >= 10000 && i % 20000 < 10050) return true;
    return mix(static_cast<uint64_t>(i) * 13 + r) % 200 == 0;
  }

  int64_t period_ns_;
  size_t rails_;
};

class RetentionTest : public TempStoreTest {
 protected:
  // Starts a boot with the synthetic rails.
  void start(const Synth& synth, const std::string& boot_id = "boot-a", int64_t filter_ns = 0) {
    synth_ = &synth;
    auto boot = store_->ensure_boot(boot_id, 0);
    ASSERT_TRUE(boot.ok());
    boot_ = *boot;
    std::vector<RailInfo> infos;
    for (size_t r = 0; r < synth.rails(); ++r) {
      RailInfo info;
      info.label = "RAIL" + std::to_string(r);
      info.device = "1-0040";
      info.channel = static_cast<int>(r);
      info.filter_ns = filter_ns;
      infos.push_back(info);
    }
    auto ids = store_->ensure_rails(infos, FilterSince{boot_, 0});
    ASSERT_TRUE(ids.ok());
    ids_ = *ids;
    chunker_.emplace(std::vector<ChunkRail>(synth.rails(), ChunkRail{0}), 600, std::vector<RailCursor>{});
    next_ = 0;
  }

  // Writes sweeps [next, until) in one transaction, as the daemon's writer does.
  void write_until(int64_t until) {
    for (; next_ < until; ++next_) chunker_->add(synth_->sweep(next_));
    ASSERT_TRUE(store_->begin().ok());
    for (const auto& c : chunker_->take_closed()) ASSERT_TRUE(store_->readings().put_chunk(boot_, ids_, c).ok());
    ASSERT_TRUE(store_->readings().put_chunk(boot_, ids_, chunker_->open_chunk()).ok());
    ASSERT_TRUE(store_->commit().ok());
  }

  RetentionNow now() const {
    int64_t t = synth_->t_ns(next_ - 1);
    return RetentionNow{boot_, t, t + kWallOffsetNs};
  }

  // Runs retention steps until none is left; returns the last step.
  RetentionStep retain(const RetentionPolicy& policy) {
    RetentionStep last;
    for (int i = 0; i < 1'000'000; ++i) {
      auto step = store_->tiers().apply_retention(policy, now());
      EXPECT_TRUE(step.ok()) << step.error().describe();
      if (!step.ok()) break;
      last = *step;
      if (!step->more) break;
    }
    return last;
  }

  EnergyAnswer energy(size_t rail, EnergyWindow w) {
    auto e = store_->readings().energy(boot_, ids_[rail], w);
    EXPECT_TRUE(e.ok() && e->has_value()) << "no energy for [" << w.begin_ns << ", " << w.end_ns << "]";
    return e.ok() && e->has_value() ? **e : EnergyAnswer{};
  }

  // Random windows of at least min_len inside [lo, hi]: each within
  // max_rel of the exact energy and inside its own error bound.
  void expect_close(size_t rail, int64_t lo, int64_t hi, int64_t min_len, Tier tier, double max_rel, int count) {
    std::mt19937_64 rng(static_cast<uint64_t>(lo) ^ static_cast<uint64_t>(rail));
    for (int i = 0; i < count; ++i) {
      int64_t len = min_len + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo - min_len));
      int64_t begin = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo - len));
      EnergyWindow w{begin, begin + len};
      double exact = synth_->energy_uj(rail, w);
      EnergyAnswer a = energy(rail, w);
      EXPECT_EQ(a.tier, tier) << "window " << w.begin_ns << ".." << w.end_ns;
      double fp_slack = 1e-9 * exact;  // the raw tier's bound is 0: it is the readings' own integral
      EXPECT_LE(std::abs(a.energy_uj - exact), a.error_bound_uj + fp_slack)
          << "window " << w.begin_ns << ".." << w.end_ns;
      EXPECT_LE(std::abs(a.energy_uj - exact), max_rel * exact) << "window " << w.begin_ns << ".." << w.end_ns;
    }
  }

  const Synth* synth_ = nullptr;
  int64_t boot_ = 0;
  std::vector<int64_t> ids_;
  std::optional<Chunker> chunker_;
  int64_t next_ = 0;
};

RetentionPolicy policy(int64_t raw_ns, int64_t second_ns, int64_t minute_ns, int64_t budget_bytes) {
  RetentionPolicy p;
  p.raw_retention_ns = raw_ns;
  p.second_retention_ns = second_ns;
  p.minute_retention_ns = minute_ns;
  p.disk_budget_bytes = budget_bytes;
  return p;
}

TEST_F(RetentionTest, BucketAlignedIntervalsEqualRawEnergyToRounding) {
  Synth synth(100 * kMs, 2);
  start(synth);
  write_until(int64_t{2} * 36'000);  // 2 h
  std::mt19937_64 rng(3);
  std::vector<std::pair<EnergyWindow, double>> raw;
  for (int i = 0; i < 200; ++i) {
    int64_t a = 1 + static_cast<int64_t>(rng() % 4000), b = a + 1 + static_cast<int64_t>(rng() % 800);
    EnergyWindow w{a * kSec, b * kSec};
    raw.emplace_back(w, energy(static_cast<size_t>(i % 2), w).energy_uj);
  }
  RetentionStep last = retain(policy(30 * kMinuteNs, 90 * kDay, 0, 0));
  EXPECT_FALSE(last.over_budget);
  for (size_t i = 0; i < raw.size(); ++i) {
    EnergyAnswer a = energy(i % 2, raw[i].first);
    EXPECT_EQ(a.tier, Tier::kSecond);
    EXPECT_NEAR(a.energy_uj, raw[i].second, kTierEnergyQuantumUj) << "window from " << raw[i].first.begin_ns;
    EXPECT_LE(a.error_bound_uj, 2 * kTierRoundingUj);
  }
  auto sweeps = store_->readings().sample_count();
  ASSERT_TRUE(sweeps.ok());
  EXPECT_LE(*sweeps, 31 * 600);  // 30 min of raw sweeps plus the chunk across the line
}

TEST_F(RetentionTest, UnalignedIntervalsOfThousandSecondBucketsStayWithinATenthOfAPercent) {
  Synth synth(100 * kMs, 2);
  start(synth);
  write_until(int64_t{3} * 36'000);  // 3 h, so that rail 1's runs of failed reads are inside
  retain(policy(30 * kMinuteNs, 90 * kDay, 0, 0));
  for (size_t rail = 0; rail < 2; ++rail)
    expect_close(rail, 2 * kSec, 149 * kMinuteNs, 1000 * kSec, Tier::kSecond, 1e-3, 150);
  std::mt19937_64 rng(5);
  for (int i = 0; i < 40; ++i) {  // the end in raw
    EnergyWindow w{100 * kMinuteNs + static_cast<int64_t>(rng() % 2'000'000'000'000), 0};
    w.end_ns = 155 * kMinuteNs + static_cast<int64_t>(rng() % 1'000'000'000'000);
    EnergyAnswer a = energy(static_cast<size_t>(i % 2), w);
    double exact = synth.energy_uj(static_cast<size_t>(i % 2), w);
    EXPECT_EQ(a.tier, Tier::kSecond);
    EXPECT_LE(std::abs(a.energy_uj - exact), std::min(a.error_bound_uj + 1e-9 * exact, 1e-3 * exact));
  }
}

TEST_F(RetentionTest, MinuteTierKeepsEnergyWithinATenthOfAPercent) {
  Synth synth(kSec, 2);
  start(synth);
  write_until(int64_t{24} * 3600);
  retain(policy(kHour, 2 * kHour, 0, 0));
  for (size_t rail = 0; rail < 2; ++rail) {
    expect_close(rail, 2 * kSec, 21 * kHour, 1000 * kMinuteNs, Tier::kMinute, 1e-3, 60);
  }
}

TEST_F(RetentionTest, EnergyFallsBackToTheFinestTierHoldingEachEdge) {
  Synth synth(kSec, 1);
  start(synth);
  write_until(int64_t{12} * 3600);
  retain(policy(kHour, 3 * kHour, 0, 0));
  EnergyAnswer raw = energy(0, {11 * kHour + 10 * kMinuteNs, 11 * kHour + 40 * kMinuteNs});
  EXPECT_EQ(raw.tier, Tier::kRaw);
  EXPECT_EQ(raw.error_bound_uj, 0);
  EXPECT_EQ(energy(0, {9 * kHour + 17 * kSec, 10 * kHour + 3 * kSec}).tier, Tier::kSecond);
  EXPECT_EQ(energy(0, {9 * kHour + 17 * kSec, 11 * kHour + 30 * kMinuteNs}).tier, Tier::kSecond);
  EXPECT_EQ(energy(0, {kHour + 17 * kSec, 11 * kHour + 30 * kMinuteNs}).tier, Tier::kMinute);
  auto before = store_->readings().energy(boot_, ids_[0], {-10 * kSec, kHour});
  ASSERT_TRUE(before.ok());
  EXPECT_FALSE(before->has_value());
  auto after = store_->readings().energy(boot_, ids_[0], {kHour, 13 * kHour});
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(after->has_value());
}

TEST_F(RetentionTest, BucketsOfAnOldWindowCarryCountsAndExtremes) {
  Synth synth(100 * kMs, 2);
  start(synth);
  write_until(36'000);
  retain(policy(10 * kMinuteNs, 90 * kDay, 0, 0));
  EnergyWindow w{10 * kMinuteNs, 20 * kMinuteNs};
  auto buckets = store_->tiers().rail_buckets(boot_, ids_[0], Tier::kSecond, w);
  ASSERT_TRUE(buckets.ok()) << buckets.error().describe();
  ASSERT_EQ(buckets->size(), 600u);
  int64_t valid = 0, failed = 0, i = w.begin_ns / synth.period_ns() - 5;
  for (const auto& b : *buckets) {
    valid += b.samples;
    failed += b.failed_samples;
    for (; synth.t_ns(i) < b.end_ns(); ++i) {
      if (synth.t_ns(i) < b.start_ns) continue;
      RailValue v = synth.value(0, i);
      if (v.err != 0) continue;
      EXPECT_GE(v.power_uw, b.min_power_uw);
      EXPECT_LE(v.power_uw, b.max_power_uw);
    }
  }
  int64_t want_valid = 0, want_failed = 0;
  for (int64_t j = 0; j < 36'000; ++j) {
    if (synth.t_ns(j) < w.begin_ns || synth.t_ns(j) >= w.end_ns) continue;
    (synth.value(0, j).err == 0 ? want_valid : want_failed)++;
  }
  EXPECT_EQ(valid, want_valid);
  EXPECT_EQ(failed, want_failed);
  EXPECT_GT(failed, 0);
  EXPECT_FALSE(store_->tiers().rail_buckets(boot_, ids_[0], Tier::kRaw, w).ok());
}

TEST_F(RetentionTest, ReportOfARunWhoseReadingsWereDownsampledComesFromTheTiers) {
  Synth synth(100 * kMs, 2);
  start(synth);
  write_until(int64_t{3} * 36'000);
  RunRecord run;
  run.boot = boot_;
  run.start_ns = 10 * kMinuteNs + 123 * kMs;  // the first rail's readings there become 1 s buckets
  auto raw_report = build_run_report(*store_, run, 2 * kHour + 50 * kMinuteNs, kSec);
  ASSERT_TRUE(raw_report.ok()) << raw_report.error().describe();
  retain(policy(30 * kMinuteNs, 90 * kDay, 0, 0));
  auto rep = build_run_report(*store_, run, 2 * kHour + 50 * kMinuteNs, kSec);
  ASSERT_TRUE(rep.ok()) << rep.error().describe();
  ASSERT_EQ(rep->rails.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const RailEnergyReport& now = rep->rails[i];
    const RailEnergyReport& then = raw_report->rails[i];
    EXPECT_EQ(now.resolution, Tier::kSecond);
    EXPECT_EQ(then.resolution, Tier::kRaw);
    EXPECT_LE(std::abs(now.stats.energy_uj - then.stats.energy_uj), now.error_bound_uj);
    EXPECT_NEAR(static_cast<double>(now.stats.samples), static_cast<double>(then.stats.samples), 10.0);
    EXPECT_NEAR(static_cast<double>(now.stats.failed_samples), static_cast<double>(then.stats.failed_samples), 2.0);
    EXPECT_GE(now.stats.peak_power_uw, then.stats.peak_power_uw);  // rounded up to whole mW
    EXPECT_LE(now.stats.peak_power_uw, then.stats.peak_power_uw + 1000);
    EXPECT_NEAR(now.stats.coverage(), then.stats.coverage(), 1e-3);
  }
  auto json = report_to_json(*rep);
  EXPECT_EQ(json["rails"][0]["resolution"], "1s");
  EXPECT_GT(json["rails"][0]["error_bound_j"].get<double>(), 0.0);
}

// Rails read through the chips' averaging (filter 430 ms): from the tiers
// the correction takes the buckets' mean power at the edges instead of the
// readings, and its bound covers the difference.
TEST_F(RetentionTest, TheAveragingCorrectionFromTheTiersStaysWithinItsBound) {
  Synth synth(100 * kMs, 2);
  start(synth, "boot-a", 430 * kMs);
  write_until(int64_t{3} * 36'000);
  RunRecord run;
  run.boot = boot_;
  run.start_ns = 10 * kMinuteNs + 123 * kMs;
  const int64_t end = 2 * kHour + 50 * kMinuteNs;
  auto raw_report = build_run_report(*store_, run, end, kSec);
  ASSERT_TRUE(raw_report.ok()) << raw_report.error().describe();
  retain(policy(30 * kMinuteNs, 90 * kDay, 0, 0));
  auto rep = build_run_report(*store_, run, end, kSec);
  ASSERT_TRUE(rep.ok()) << rep.error().describe();
  for (size_t i = 0; i < 2; ++i) {
    const RailEnergyReport& now = rep->rails[i];
    const RailEnergyReport& then = raw_report->rails[i];
    ASSERT_EQ(now.resolution, Tier::kSecond);
    ASSERT_NE(then.stats.filter_correction_uj, 0.0) << "the levels differ at the two edges";
    EXPECT_GT(now.stats.filter_bound_uj, 0.0) << "a bucket mean at an edge is not the reading there";
    EXPECT_LE(std::abs(now.stats.filter_correction_uj - then.stats.filter_correction_uj), now.stats.filter_bound_uj)
        << "rail " << i;
    EXPECT_LE(std::abs(now.stats.energy_uj - then.stats.energy_uj), now.error_bound_uj) << "rail " << i;
  }
}

TEST_F(RetentionTest, BudgetNeverTakesTheNewestChunkOrTheRecentMinutes) {
  Synth synth(100 * kMs, 2);
  start(synth);
  write_until(int64_t{30} * 600);                                   // 30 min
  RetentionStep last = retain(policy(90 * kDay, 90 * kDay, 0, 1));  // a budget nothing fits in
  EXPECT_TRUE(last.over_budget);
  EnergyAnswer recent = energy(0, {21 * kMinuteNs, 29 * kMinuteNs});
  EXPECT_EQ(recent.tier, Tier::kRaw);
  EXPECT_NEAR(recent.energy_uj, synth.energy_uj(0, {21 * kMinuteNs, 29 * kMinuteNs}), 1.0);
  write_until(int64_t{31} * 600);  // the open chunk is still written to
  EXPECT_EQ(energy(0, {21 * kMinuteNs, 30 * kMinuteNs + 50 * kSec}).tier, Tier::kRaw);
}

// raw_batch_ns (issue 16): aged chunks wait until the oldest is a batch
// past the retention, then every aged one goes, over as many steps as it
// takes, even once the oldest left is less than a batch past it.
TEST_F(RetentionTest, AgedChunksWaitForABatchAndThenAllOfThemGo) {
  Synth synth(100 * kMs, 1);
  start(synth);
  RetentionPolicy p = policy(60 * kMinuteNs, 90 * kDay, 0, 0);
  p.raw_batch_ns = 30 * kMinuteNs;
  p.max_units_per_step = 4;
  auto raw_sweeps = [&] {
    auto n = store_->readings().sample_count();
    EXPECT_TRUE(n.ok());
    return n.ok() ? *n : -1;
  };
  write_until(int64_t{80} * 600);  // 80 min: about 19 chunks past the retention, the oldest 79 min old
  RetentionStep waiting = retain(p);
  EXPECT_EQ(waiting.raw_chunks_downsampled, 0);
  EXPECT_EQ(raw_sweeps(), 80 * 600);
  write_until(int64_t{91} * 600 + 5);  // the oldest chunk now ends more than 90 min ago
  auto first = store_->tiers().apply_retention(p, now());
  ASSERT_TRUE(first.ok()) << first.error().describe();
  EXPECT_EQ(first->raw_chunks_downsampled, 4);
  EXPECT_TRUE(first->more);
  retain(p);  // the rest of the batch: the oldest left (0:04-0:05) is only 86 min old
  // Every chunk that ended more than 60 min ago went: 0:00-0:31 (31 chunks).
  EXPECT_EQ(raw_sweeps(), 91 * 600 + 5 - 31 * 600);
  EXPECT_EQ(energy(0, {kMinuteNs, 30 * kMinuteNs}).tier, Tier::kSecond);
  write_until(int64_t{93} * 600);  // two more chunks age out: not a batch yet
  RetentionStep after = retain(p);
  EXPECT_EQ(after.raw_chunks_downsampled, 0);
  EXPECT_EQ(raw_sweeps(), 93 * 600 - 31 * 600);
}

// RetentionPolicy::keep_free_pages (tried for issue 16 and not energyd's,
// docs/PERFORMANCE.md session 21, kept for storage_bench BM_WeekWrites): a
// batch keeps the pages it frees in the file, up to the WAL's allowance,
// which the budget counts, for the chunks written next; beyond it they go
// back to the file system.
TEST_F(RetentionTest, KeptFreePagesStayForTheNextChunksUpToTheAllowance) {
  Synth synth(100 * kMs, 3);
  start(synth);
  RetentionPolicy p = policy(30 * kMinuteNs, 90 * kDay, 0, 0);
  p.raw_batch_ns = 30 * kMinuteNs;
  p.max_units_per_step = 64;
  p.keep_free_pages = true;
  write_until(int64_t{91} * 600 + 5);
  auto before = store_->tiers().footprint();
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->free_bytes, 0);
  RetentionStep batch = retain(p);
  EXPECT_EQ(batch.raw_chunks_downsampled, 61);
  auto after = store_->tiers().footprint();
  ASSERT_TRUE(after.ok());
  EXPECT_GT(after->free_bytes, 20 * 4096);
  EXPECT_EQ(after->file_bytes, before->file_bytes);                                  // nothing given back
  EXPECT_EQ(batch.budget_bytes_used, after->file_bytes + int64_t{4} * 1024 * 1024);  // the kept pages, counted
  // The next chunks take the free pages before the file grows.
  write_until(int64_t{96} * 600);
  auto refilled = store_->tiers().footprint();
  ASSERT_TRUE(refilled.ok());
  EXPECT_EQ(refilled->file_bytes, after->file_bytes);
  EXPECT_LT(refilled->free_bytes, after->free_bytes);
  // More kept pages than the WAL's allowance (a sixteenth of a budget) go
  // back to the file system.
  const int64_t allowance = refilled->free_bytes / 2 / 4096 * 4096;
  RetentionPolicy tight = p;
  tight.disk_budget_bytes = 16 * allowance;
  ASSERT_GT(tight.disk_budget_bytes, refilled->file_bytes + allowance);  // room for every reading
  RetentionStep given = retain(tight);
  auto shrunk = store_->tiers().footprint();
  ASSERT_TRUE(shrunk.ok());
  EXPECT_EQ(given.raw_chunks_downsampled, 0);
  EXPECT_EQ(shrunk->free_bytes, 0);
  EXPECT_EQ(shrunk->file_bytes, refilled->file_bytes - refilled->free_bytes);
  EXPECT_EQ(given.budget_bytes_used, shrunk->file_bytes + allowance);
}

// energyd's retention: every step gives the pages it freed back to the
// file system.
TEST_F(RetentionTest, ByDefaultAStepGivesTheFreedPagesBack) {
  Synth synth(100 * kMs, 3);
  start(synth);
  RetentionPolicy p = policy(30 * kMinuteNs, 90 * kDay, 0, 0);
  p.raw_batch_ns = 30 * kMinuteNs;
  write_until(int64_t{91} * 600 + 5);
  auto before = store_->tiers().footprint();
  ASSERT_TRUE(before.ok());
  EXPECT_GT(retain(p).raw_chunks_downsampled, 0);
  auto after = store_->tiers().footprint();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->free_bytes, 0);
  EXPECT_LT(after->file_bytes, before->file_bytes);
}

// energyd's chunks a step: 96 rail-chunks, between 8 and 32 chunks (a
// step's time grows with its rail-chunks; storage_bench BM_RetentionStep).
TEST(RetentionUnits, AStepHoldsAboutNinetySixRailChunksBetweenEightAndThirtyTwoChunks) {
  EXPECT_EQ(retention_units_per_step(0), 32);  // no rails yet: nothing costs more
  EXPECT_EQ(retention_units_per_step(1), 32);
  EXPECT_EQ(retention_units_per_step(3), 32);  // Orin Nano, Orin NX
  EXPECT_EQ(retention_units_per_step(4), 24);  // AGX Orin
  EXPECT_EQ(retention_units_per_step(9), 10);
  EXPECT_EQ(retention_units_per_step(12), 8);  // TX2: the step before
  EXPECT_EQ(retention_units_per_step(40), 8);
}

TEST_F(RetentionTest, EarlierBootsAgeByTheWallClockAndKeepTheirLastChunk) {
  Synth synth(kSec, 1);
  start(synth, "boot-old");
  write_until(int64_t{3} * 3600 + 17);  // ends mid-chunk: its last chunk has no successor
  int64_t old_boot = boot_, old_rail = ids_[0];
  Synth later(kSec, 1);
  start(later, "boot-new");
  write_until(600);
  RetentionNow n = now();
  n.wall_ns = kWallOffsetNs + 30 * kDay;  // the old boot ended a month ago by the wall clock
  auto step = store_->tiers().apply_retention(policy(kDay, 90 * kDay, 0, 0), n);
  ASSERT_TRUE(step.ok());
  while (step.ok() && step->more) step = store_->tiers().apply_retention(policy(kDay, 90 * kDay, 0, 0), n);
  auto e = store_->readings().energy(old_boot, old_rail, {10 * kSec, 3 * kHour + 10 * kSec});
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_EQ((*e)->tier, Tier::kSecond);
  double exact = synth.energy_uj(0, {10 * kSec, 3 * kHour + 10 * kSec});
  EXPECT_NEAR((*e)->energy_uj, exact, 1e-3 * exact);
  EXPECT_EQ(energy(0, {kMinuteNs, 9 * kMinuteNs}).tier, Tier::kRaw);  // the current boot is young
}

// D5: weeks of history through a compressed timeline (1 s sweeps, hours of
// raw, a day of 1 s buckets, 6 days of 1 min buckets, a 1.25 MB budget):
// after every hour written the database and its WAL stay within the budget,
// and energy over long windows from the tiers stays within 0.1% of the
// readings and within its stated bound.
TEST_F(RetentionTest, LongHistoryStaysWithinBudgetAndEnergyWithinATenthOfAPercent) {
  constexpr int64_t kBudget = int64_t{1280} * 1024;
  constexpr int64_t kDays = 12;
  Synth synth(kSec, 3);
  start(synth);
  RetentionPolicy p = policy(4 * kHour, kDay, 6 * kDay, kBudget);
  int64_t largest = 0;
  for (int64_t hour = 1; hour <= kDays * 24; ++hour) {
    write_until(hour * 3600);
    std::error_code no_wal;
    int64_t wal = static_cast<int64_t>(std::filesystem::file_size(path() + "-wal", no_wal));
    int64_t on_disk = static_cast<int64_t>(std::filesystem::file_size(path())) + (no_wal ? 0 : wal);
    largest = std::max(largest, on_disk);
    ASSERT_LE(on_disk, kBudget) << "hour " << hour;
    RetentionStep last = retain(p);
    ASSERT_FALSE(last.over_budget) << "hour " << hour;
    ASSERT_LE(last.budget_bytes_used, kBudget) << "hour " << hour;
    ASSERT_TRUE(store_->checkpoint().ok());
    if (hour % (int64_t{6} * 24) != 0) continue;
    int64_t now_ns = hour * kHour;
    int64_t oldest = std::max<int64_t>(2 * kSec, now_ns - 5 * kDay);
    for (size_t rail = 0; rail < 3; ++rail) {
      expect_close(rail, oldest, now_ns - 2 * kSec, 1000 * kMinuteNs, Tier::kMinute, 1e-3, 3);
    }
  }
  EXPECT_GT(largest, kBudget * 8 / 10) << "the budget never came into play";
  auto gone = store_->readings().energy(boot_, ids_[0], {kHour, 2 * kHour});  // older than the 1 min retention
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());
  auto f = store_->tiers().footprint();
  ASSERT_TRUE(f.ok());
  EXPECT_GT(f->tiers[2].rows, 0);
  EXPECT_LT(f->free_bytes, kBudget / 4);  // freed pages went back to the file system
}

}  // namespace
}  // namespace energy
