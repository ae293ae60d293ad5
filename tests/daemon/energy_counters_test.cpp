#include "energy_counters.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <stdlib.h>

namespace energy::daemon {
namespace {

constexpr int64_t kSec = 1'000'000'000;

class CollectSink final : public SampleSink {
 public:
  void push_sample(const Sample& s) override { seen.push_back(s); }
  std::vector<Sample> seen;
};

class CountersDir : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/energy_counters_test.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path() const { return dir_ + "/energy-counters.json"; }
  std::string dir_;
};

// Voltage and current give the power of rails without a power file:
// 5000 mV x 1000 mA = 5 W.
RailValue watts(int w) { return RailValue{0, 5000, 200 * w, 0}; }
RailValue failed() { return RailValue{0, 0, 0, 5}; }
Sample sweep(int64_t t_ns, std::vector<RailValue> v) { return Sample{t_ns, t_ns, std::move(v)}; }

std::vector<CounterRail> two_rails() { return {{"VDD_IN", 0}, {"VDD_CPU_GPU_CV", 0}}; }

TEST_F(CountersDir, IntegratesEachRailByTrapezoidsAndPassesSweepsOn) {
  CollectSink next;
  EnergyCounters c(two_rails(), next, path(), 7);
  c.push_sample(sweep(1 * kSec, {watts(5), watts(1)}));
  c.push_sample(sweep(2 * kSec, {watts(7), watts(1)}));
  c.push_sample(sweep(3 * kSec, {watts(7), watts(3)}));
  auto s = c.snapshot();
  EXPECT_DOUBLE_EQ(s.energy_uj[0], 6e6 + 7e6);
  EXPECT_DOUBLE_EQ(s.energy_uj[1], 1e6 + 2e6);
  EXPECT_EQ(next.seen.size(), 3u);
  EXPECT_EQ(s.created_wall_ns, 7);
  EXPECT_EQ(s.counters_id.size(), 16u);
}

TEST_F(CountersDir, AFailedReadIsBridgedByItsValidNeighbours) {
  CollectSink next;
  EnergyCounters c(two_rails(), next, path(), 0);
  c.push_sample(sweep(1 * kSec, {watts(2), watts(2)}));
  c.push_sample(sweep(2 * kSec, {failed(), watts(2)}));
  c.push_sample(sweep(3 * kSec, {watts(4), watts(2)}));
  EXPECT_DOUBLE_EQ(c.snapshot().energy_uj[0], 6e6);
}

TEST_F(CountersDir, ARestartContinuesTheSavedJoulesAndDowntimeAddsNothing) {
  CollectSink next;
  std::string id;
  {
    EnergyCounters before(two_rails(), next, path(), 11);
    before.push_sample(sweep(1 * kSec, {watts(5), watts(1)}));
    before.push_sample(sweep(3 * kSec, {watts(5), watts(1)}));  // 10 J, 2 J
    ASSERT_TRUE(before.save(EnergyCounters::Sync::kYes));
    id = before.snapshot().counters_id;
  }
  EnergyCounters after(two_rails(), next, path(), 99);
  ASSERT_TRUE(after.load());
  after.push_sample(sweep(100 * kSec, {watts(5), watts(1)}));  // 97 s down: no energy
  after.push_sample(sweep(101 * kSec, {watts(5), watts(1)}));
  auto s = after.snapshot();
  EXPECT_DOUBLE_EQ(s.energy_uj[0], 15e6);
  EXPECT_DOUBLE_EQ(s.energy_uj[1], 3e6);
  EXPECT_EQ(s.counters_id, id);
  EXPECT_EQ(s.created_wall_ns, 11);
}

TEST_F(CountersDir, ARailMissingFromTheFileStartsAtZero) {
  CollectSink next;
  {
    EnergyCounters before({{"VDD_IN", 0}}, next, path(), 0);
    before.push_sample(sweep(1 * kSec, {watts(5)}));
    before.push_sample(sweep(2 * kSec, {watts(5)}));
    ASSERT_TRUE(before.save(EnergyCounters::Sync::kNo));
  }
  EnergyCounters after(two_rails(), next, path(), 0);
  ASSERT_TRUE(after.load());
  auto s = after.snapshot();
  EXPECT_DOUBLE_EQ(s.energy_uj[0], 5e6);
  EXPECT_DOUBLE_EQ(s.energy_uj[1], 0);
}

TEST_F(CountersDir, ADamagedFileIsAnErrorNamingTheFieldAndTheCountersStayAtZero) {
  std::ofstream(path()) << R"({"format":"energyd-counters","version":1,"counters_id":"0123456789abcdef",)"
                        << R"("created_wall_ns":5,"energy_uj":{"VDD_IN":"lots"}})";
  CollectSink next;
  EnergyCounters c(two_rails(), next, path(), 3);
  auto st = c.load();
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("energy_uj \"VDD_IN\" must be a number"), std::string::npos) << st.error().message;
  EXPECT_DOUBLE_EQ(c.snapshot().energy_uj[0], 0);
  EXPECT_EQ(c.snapshot().created_wall_ns, 3);
}

TEST_F(CountersDir, AMissingFileStartsFreshCounters) {
  CollectSink next;
  EnergyCounters c(two_rails(), next, path(), 3);
  EXPECT_TRUE(c.load());
  EXPECT_DOUBLE_EQ(c.snapshot().energy_uj[1], 0);
}

TEST(CountersVerb, TotalIsTheSumOfTheTotalRuleRails) {
  CountersSnapshot s{"0123456789abcdef", 5, {"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"}, {1e6, 2e6, 4e6}};
  auto j = counters_verb_json(s);
  EXPECT_EQ(j["rails"].size(), 3u);
  EXPECT_DOUBLE_EQ(j["rails"][1]["energy_j"].get<double>(), 2.0);
  double sum = 0;
  for (const auto& r : j["total"]["rails"]) {
    for (size_t i = 0; i < s.labels.size(); ++i) {
      if (r == s.labels[i]) sum += s.energy_uj[i] / 1e6;
    }
  }
  EXPECT_GT(j["total"]["rails"].size(), 0u);
  EXPECT_DOUBLE_EQ(j["total"]["energy_j"].get<double>(), sum);
  EXPECT_EQ(j["counters_id"], "0123456789abcdef");
}

}  // namespace
}  // namespace energy::daemon
