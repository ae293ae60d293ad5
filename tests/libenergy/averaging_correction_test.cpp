#include "energy/averaging_correction.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "../time_units.h"
#include "temp_store.h"

namespace energy {
namespace {

// A running-mean monitor (N = 64, one conversion every 6.6 ms) on a bursty
// load: bursts of 20-300 ms between 2 W and 8 W. The register holds y_k
// after conversion k until the next one; the truth is the integral of the
// converted input held the same way.
struct Ema {
  static constexpr int64_t kCycleNs = 6'600'000;
  static constexpr int kN = 64;
  std::vector<double> x, y;  // per conversion, uW

  explicit Ema(int64_t until_ns) {
    std::mt19937 rng(42);
    std::uniform_int_distribution<int64_t> len(20 * kMs, 300 * kMs);
    double level = 2e6;
    int64_t next_change = len(rng);
    double yk = level;
    for (int64_t t = 0; t < until_ns; t += kCycleNs) {
      while (t >= next_change) {
        level = level == 2e6 ? 8e6 : 2e6;
        next_change += len(rng);
      }
      x.push_back(level);
      yk += (level - yk) / kN;
      y.push_back(yk);
    }
  }
  size_t at(int64_t t) const { return static_cast<size_t>(t / kCycleNs); }
  double truth_uj(int64_t a, int64_t b) const {  // integral of the held input
    double uj = 0;
    for (int64_t t = a; t < b;) {
      int64_t next = std::min(b, (t / kCycleNs + 1) * kCycleNs);
      uj += x[at(t)] * static_cast<double>(next - t) / 1e9;
      t = next;
    }
    return uj;
  }
  std::vector<PowerPoint> readings(int64_t period, int64_t phase, int64_t until, EnergyWindow edges) const {
    std::vector<PowerPoint> pts;
    for (int64_t t = phase; t < until; t += period) {
      if (t > edges.begin_ns && pts.size() > 0 && pts.back().t_ns < edges.begin_ns) {
        pts.push_back({edges.begin_ns, static_cast<int64_t>(y[at(edges.begin_ns)]), true});
      }
      if (t > edges.end_ns && pts.back().t_ns < edges.end_ns) {
        pts.push_back({edges.end_ns, static_cast<int64_t>(y[at(edges.end_ns)]), true});
      }
      pts.push_back({t, static_cast<int64_t>(y[at(t)]), true});
    }
    return pts;
  }
};

StoredRail averaged_rail(int64_t filter_ns) {
  StoredRail r;
  r.filter_ns = r.filter_before_ns = filter_ns;
  return r;
}

TEST(FilterCorrection, RecoversTheInputsEnergyFromRunningMeanReadings) {
  Ema ema(12'000 * kMs);
  const EnergyWindow w{373 * kMs, 10'373 * kMs};  // marks between sweeps, 10 s apart
  auto pts = ema.readings(100 * kMs, 41 * kMs, 11'000 * kMs, w);
  const double truth = ema.truth_uj(w.begin_ns, w.end_ns);
  EnergyStats plain = integrate_power(pts, w, 1000 * kMs);
  const int64_t k = (Ema::kN - 1) * Ema::kCycleNs;
  FilterCorrection c = filter_correction(averaged_rail(k), 1, w, [&pts](int64_t t) { return power_at(pts, t); });
  double corrected = plain.energy_uj + c.energy_uj;
  double plain_error = std::abs(plain.energy_uj - truth) / truth;
  double corrected_error = std::abs(corrected - truth) / truth;
  EXPECT_EQ(c.unknown_k_ns, 0);
  EXPECT_LT(corrected_error, 0.005) << "M1: 0.5% for 10 s of a bursty load; plain " << plain_error;
  EXPECT_LT(corrected_error * 3, plain_error) << "the correction must do most of the work here";
}

TEST(FilterCorrection, IsZeroWithoutAveragingAndForAConstantLoad) {
  std::vector<PowerPoint> pts{{0, 5'000'000, true}, {100 * kMs, 5'000'000, true}, {200 * kMs, 5'000'000, true}};
  auto at = [&pts](int64_t t) { return power_at(pts, t); };
  EXPECT_EQ(filter_correction(averaged_rail(0), 1, {10 * kMs, 190 * kMs}, at).energy_uj, 0);
  EXPECT_EQ(filter_correction(averaged_rail(99 * kMs), 1, {10 * kMs, 190 * kMs}, at).energy_uj, 0);
}

TEST(FilterCorrection, AddsTheLagTimesTheChangeOfTheReadingsAcrossTheWindow) {
  std::vector<PowerPoint> pts{{0, 2'000'000, true}, {100 * kMs, 4'000'000, true}};
  auto c =
      filter_correction(averaged_rail(50 * kMs), 1, {0, 100 * kMs}, [&pts](int64_t t) { return power_at(pts, t); });
  EXPECT_DOUBLE_EQ(c.energy_uj, 0.05 * 2'000'000);  // 50 ms x 2 W = 0.1 J
}

TEST(FilterCorrection, SplitsAWindowWhereTheSettingChanged) {
  StoredRail r;
  r.filter_before_ns = 0;
  r.filter_ns = 100 * kMs;
  r.filter_from_boot = 3;
  r.filter_from_ns = 500 * kMs;
  std::vector<PowerPoint> pts{{0, 1'000'000, true}, {1000 * kMs, 3'000'000, true}};
  auto at = [&pts](int64_t t) { return power_at(pts, t); };
  // Before the change nothing; after it 100 ms x (3 W - 2 W at 500 ms).
  EXPECT_NEAR(filter_correction(r, 3, {0, 1000 * kMs}, at).energy_uj, 0.1 * 1'000'000, 1e-6);
  EXPECT_EQ(filter_correction(r, 3, {0, 400 * kMs}, at).energy_uj, 0) << "entirely before the change";
  EXPECT_NEAR(filter_correction(r, 4, {0, 1000 * kMs}, at).energy_uj, 0.1 * 2'000'000, 1e-6) << "a later boot";
  EXPECT_EQ(filter_correction(r, 2, {0, 1000 * kMs}, at).energy_uj, 0) << "an earlier boot";
}

TEST(FilterCorrection, AnEdgeWithoutAReadingIsCountedAsUnknown) {
  std::vector<PowerPoint> pts{{100 * kMs, 1'000'000, true}, {200 * kMs, 3'000'000, true}};
  auto c =
      filter_correction(averaged_rail(40 * kMs), 1, {0, 150 * kMs}, [&pts](int64_t t) { return power_at(pts, t); });
  EXPECT_EQ(c.energy_uj, 0);
  EXPECT_EQ(c.unknown_k_ns, 40 * kMs);
}

class FilterStoreTest : public TempStoreTest {};

TEST_F(FilterStoreTest, ARailRemembersTheSettingItReplacedAndWhere) {
  RailInfo in;
  in.label = "VDD_IN";
  in.device = "1-0040";
  in.channel = 1;
  ASSERT_TRUE(store_->ensure_rails({in}, {1, 5 * kMs}).ok());
  in.filter_ns = 99 * kMs;
  ASSERT_TRUE(store_->ensure_rails({in}, {2, 7 * kMs}).ok());
  ASSERT_TRUE(store_->ensure_rails({in}, {3, 9 * kMs}).ok()) << "the same setting again changes nothing";
  auto rails = store_->rails();
  ASSERT_TRUE(rails.ok());
  ASSERT_EQ(rails->size(), 1u);
  const StoredRail& r = rails->front();
  EXPECT_EQ(r.filter_ns, 99 * kMs);
  EXPECT_EQ(r.filter_before_ns, 0);
  EXPECT_EQ(r.filter_from_boot, 2);
  EXPECT_EQ(r.filter_from_ns, 7 * kMs);
  EXPECT_EQ(r.filter_at(1, 100 * kMs), 0);
  EXPECT_EQ(r.filter_at(2, 6 * kMs), 0);
  EXPECT_EQ(r.filter_at(2, 7 * kMs), 99 * kMs);
  EXPECT_EQ(r.filter_at(3, 0), 99 * kMs);
}

}  // namespace
}  // namespace energy
