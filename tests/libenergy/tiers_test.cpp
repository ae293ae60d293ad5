// Buckets of the downsampled tiers: exact splitting of trapezoids at bucket
// edges, the stored encoding, aggregation and the partial-bucket bound.
#include "energy/tiers.h"

#include <gtest/gtest.h>

#include <random>

#include "../time_units.h"

namespace energy {
namespace {

// Bursty power: levels between 0.5 W and 9 W held for 50 ms to 3 s,
// sampled every 100 ms with up to 2 ms of jitter; about 1% failed reads.
std::vector<PowerPoint> bursty(int64_t from_ns, int64_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<PowerPoint> out;
  int64_t level = 2'000'000, hold_until = 0;
  for (int64_t i = 0; i < count; ++i) {
    int64_t t = from_ns + i * 100 * kMs + static_cast<int64_t>(rng() % 2000) * 1000;
    if (t >= hold_until) {
      level = 500'000 + static_cast<int64_t>(rng() % 8500) * 1000;
      hold_until = t + 50 * kMs + static_cast<int64_t>(rng() % 2950) * kMs;
    }
    bool failed = rng() % 100 == 0;
    out.push_back(PowerPoint{t, level + static_cast<int64_t>(rng() % 20000), !failed});
  }
  return out;
}

TEST(Tiers, BucketEnergiesAddUpToTheIntegralOfTheReadings) {
  auto pts = bursty(0, 3000, 1);
  auto buckets = bucketize(pts, 0, 300 * kSec, kSec);
  double sum = 0;
  for (const auto& b : buckets) sum += b.energy_uj;
  EnergyStats whole = integrate_power(pts, {0, 300 * kSec}, kSec);
  EXPECT_NEAR(sum, whole.energy_uj, 1e-6 * whole.energy_uj);
  EXPECT_EQ(buckets.front().start_ns, 0);
  EXPECT_EQ(buckets.back().start_ns, 299 * kSec);
}

TEST(Tiers, BucketKeepsCountsExtremesAndStepsOfItsInterval) {
  std::vector<PowerPoint> pts = {{500 * kMs, 1'000'000, true},
                                 {1000 * kMs, 3'000'000, true},
                                 {1400 * kMs, 0, false},
                                 {1600 * kMs, 5'000'000, true},
                                 {2500 * kMs, 2'000'000, true}};
  auto buckets = bucketize(pts, kSec, 2 * kSec, kSec);
  ASSERT_EQ(buckets.size(), 1u);
  const Bucket& b = buckets[0];
  EXPECT_EQ(b.samples, 2);  // 1000 ms (half-open: [1 s, 2 s)) and 1600 ms
  EXPECT_EQ(b.failed_samples, 1);
  EXPECT_EQ(b.integrated_ns, kSec);
  EXPECT_EQ(b.max_step_ns, 900 * kMs);  // 1600 -> 2500 touches the bucket
  EXPECT_EQ(b.min_power_uw, 3'000'000);
  EXPECT_EQ(b.max_power_uw, 5'000'000);
  // 3 W -> 5 W over 0.6 s, then 5 W -> 3.67 W (5 -> 2 W over 0.9 s, interpolated at 2 s) over 0.4 s.
  EXPECT_NEAR(b.energy_uj, 4.0 * 0.6e6 + (5.0 + 11.0 / 3.0) / 2.0 * 0.4e6, 1e-6);
}

TEST(Tiers, BeforeTheFirstReadingNothingIsIntegrated) {
  std::vector<PowerPoint> pts = {{1500 * kMs, 2'000'000, true}, {2500 * kMs, 2'000'000, true}};
  auto buckets = bucketize(pts, 0, 3 * kSec, kSec);
  ASSERT_EQ(buckets.size(), 2u);  // [0, 1 s) holds nothing and is not stored
  EXPECT_EQ(buckets[0].start_ns, kSec);
  EXPECT_EQ(buckets[0].integrated_ns, 500 * kMs);
  EXPECT_NEAR(buckets[0].energy_uj, 1e6, 1e-6);
}

TEST(Tiers, EncodingRoundTripsEveryFieldAndTheRunningEnergy) {
  auto pts = bursty(0, 6000, 2);
  auto buckets = bucketize(pts, 0, 600 * kSec, kSec);
  buckets.erase(buckets.begin() + 100, buckets.begin() + 110);  // a hole: skipped buckets
  chain_running_energy(buckets, 123456.75);
  std::string blob = encode_buckets(buckets, 0, kSec, 123456.75);
  auto back = decode_buckets(blob, 0, kSec, 123456.75);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  ASSERT_EQ(back->size(), buckets.size());
  for (size_t i = 0; i < buckets.size(); ++i) {
    const Bucket &a = buckets[i], &b = (*back)[i];
    EXPECT_EQ(a.start_ns, b.start_ns);
    EXPECT_EQ(a.min_power_uw, b.min_power_uw);
    EXPECT_EQ(a.max_power_uw, b.max_power_uw);
    EXPECT_EQ(a.samples, b.samples);
    EXPECT_EQ(a.failed_samples, b.failed_samples);
    EXPECT_EQ(a.integrated_ns, b.integrated_ns);
    EXPECT_EQ(a.max_step_ns, b.max_step_ns);
    EXPECT_NEAR(a.cum_end_uj, b.cum_end_uj, kTierEnergyQuantumUj / 2 + 1e-6);  // rounded once, never drifts
  }
  EXPECT_LT(blob.size(), buckets.size() * 9);
}

TEST(Tiers, TruncatedRowIsReportedAsCorrupt) {
  auto buckets = bucketize(bursty(0, 100, 3), 0, 10 * kSec, kSec);
  chain_running_energy(buckets, 0);
  std::string blob = encode_buckets(buckets, 0, kSec, 0);
  blob.back() = static_cast<char>(0x80);  // a varint that never ends
  auto back = decode_buckets(blob, 0, kSec, 0);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("corrupt tier row"), std::string::npos);
}

TEST(Tiers, AggregatedMinutesSumEnergyAndCountsAndKeepExtremes) {
  auto pts = bursty(0, 12000, 4);
  auto seconds = bucketize(pts, 0, 1200 * kSec, kSec);
  auto minutes = aggregate(seconds, 0, 1200 * kSec, 60 * kSec);
  ASSERT_EQ(minutes.size(), 20u);
  double e_s = 0, e_m = 0;
  int64_t n_s = 0, n_m = 0, max_s = 0, max_m = 0;
  for (const auto& b : seconds) e_s += b.energy_uj, n_s += b.samples, max_s = std::max(max_s, b.max_power_uw);
  for (const auto& b : minutes) e_m += b.energy_uj, n_m += b.samples, max_m = std::max(max_m, b.max_power_uw);
  EXPECT_NEAR(e_s, e_m, 1e-9 * e_s);
  EXPECT_EQ(n_s, n_m);
  EXPECT_EQ(max_s, max_m);
  EXPECT_EQ(minutes[3].width_ns, 60 * kSec);
}

TEST(Tiers, PartialBucketBoundAlwaysContainsTheRealIntegral) {
  auto pts = bursty(0, 20000, 5);
  auto buckets = bucketize(pts, 0, 2000 * kSec, kSec);
  std::mt19937 rng(9);
  for (int i = 0; i < 2000; ++i) {
    const Bucket& b = buckets[rng() % buckets.size()];
    int64_t t = b.start_ns + static_cast<int64_t>(rng() % static_cast<uint32_t>(b.width_ns));
    double real = integrate_power(pts, {b.start_ns, t}, kSec).energy_uj;
    PartialEnergy p = partial_energy(b, t);
    EXPECT_LE(std::abs(real - p.energy_uj), p.bound_uj) << "bucket " << b.start_ns << " t " << t;
  }
}

TEST(Tiers, SummaryOfBucketsReportsMissingStretchesAsGaps) {
  std::vector<PowerPoint> pts = {
      {0, 1'000'000, true}, {10 * kSec, 1'000'000, true}, {20 * kSec, 1'000'000, true}, {30 * kSec, 1'000'000, true}};
  auto buckets = bucketize(pts, 0, 30 * kSec, kSec);
  ASSERT_EQ(buckets.size(), 30u);
  buckets.erase(buckets.begin() + 10, buckets.begin() + 15);  // 5 s with no bucket
  EnergyStats s = summarize_buckets(buckets, {0, 30 * kSec}, 20 * kSec);
  EXPECT_TRUE(s.has_data);
  EXPECT_NEAR(s.energy_uj, 25e6, 1);
  EXPECT_EQ(s.largest_gap_ns, 10 * kSec);  // the 10 s step between readings
  EXPECT_EQ(s.gap_ns, 5 * kSec);
  EXPECT_EQ(s.samples, 2);  // the readings at 0 s and 20 s; the one at 10 s was in the removed buckets
  EXPECT_EQ(s.peak_power_uw, 1'000'000);
}

TEST(Tiers, SummaryBoundIsNoSmallerThanTheReadingsOwn) {
  auto pts = bursty(0, 6000, 11);
  auto seconds = bucketize(pts, 0, 600 * kSec, kSec);
  auto minutes = aggregate(seconds, 0, 600 * kSec, 60 * kSec);
  std::mt19937 rng(4);
  for (int i = 0; i < 200; ++i) {
    int64_t from = static_cast<int64_t>(rng() % 500'000) * kMs;
    EnergyWindow w{from, from + static_cast<int64_t>(1 + rng() % 90'000) * kMs};
    EnergyStats raw = integrate_power(pts, w, kSec);
    for (const auto* tier : {&seconds, &minutes}) {
      EnergyStats s = summarize_buckets(*tier, w, kSec);
      EXPECT_GE(s.fluctuation_bound_uj, raw.fluctuation_bound_uj) << w.begin_ns << " " << w.end_ns;
      EXPECT_GE(s.resolution_bound_uj, raw.resolution_bound_uj) << w.begin_ns << " " << w.end_ns;
      EXPECT_GT(s.resolution_bound_uj, 0);
    }
  }
}

TEST(Tiers, SummaryBoundOfASteadyRailIsSmall) {
  std::vector<PowerPoint> pts;  // 5 W, readings one 40 mW step apart
  for (int64_t k = 0; k <= 6000; ++k) pts.push_back({k * 100 * kMs, k % 3 == 0 ? 5'040'000 : 5'000'000, true});
  auto buckets = bucketize(pts, 0, 600 * kSec, kSec);
  EnergyStats s = summarize_buckets(buckets, {0, 600 * kSec}, kSec);
  EXPECT_NEAR(s.resolution_bound_uj, 20'000 * 600.0, 1e-3);  // half of the narrowest range, all along
  // 600 buckets of 1 s with 40 mW of spread, stretches of 0.1 s: 3 x sqrt(600 x 0.02^2 x 0.1 x 1) J.
  EXPECT_NEAR(s.fluctuation_bound_uj, kFluctuationSigmas * std::sqrt(600 * 0.1) * 20'000, 1);
  EXPECT_LT(s.raw_error_bound_uj(), 0.005 * s.energy_uj);
}

TEST(Tiers, FloorAndCeilWorkOnNegativeTimes) {
  EXPECT_EQ(floor_to(-1, kSec), -kSec);
  EXPECT_EQ(ceil_to(-1, kSec), 0);
  EXPECT_EQ(floor_to(2 * kSec, kSec), 2 * kSec);
  EXPECT_EQ(ceil_to(2 * kSec + 1, kSec), 3 * kSec);
}

}  // namespace
}  // namespace energy
