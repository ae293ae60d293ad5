// EnergyCounters on its own: trapezoids per rail, bridged failed reads, a
// restart continuing stored counters by rail label without counting the
// downtime, and the pre-schema-6 counters file read once for the move into
// the database (validated, every bad field named).
#include "energy_counters.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <stdlib.h>

#include "../time_units.h"

namespace energy::daemon {
namespace {

class CountersDir : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/energy_counters_test.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path() const { return dir_ + "/energy-counters.json"; }
  void write(const std::string& text) const { std::ofstream(path()) << text; }
  std::string dir_;
};

// Voltage and current give the power of rails without a power file:
// 5000 mV x 1000 mA = 5 W.
RailValue watts(int w) { return RailValue{0, 5000, 200 * w, 0}; }
RailValue failed() { return RailValue{0, 0, 0, 5}; }
Sample sweep(int64_t t_ns, std::vector<RailValue> v) { return Sample{t_ns, t_ns, std::move(v)}; }

std::vector<CounterRail> two_rails() { return {{"VDD_IN", 0}, {"VDD_CPU_GPU_CV", 0}}; }

TEST(Counters, IntegrateEachRailByTrapezoids) {
  EnergyCounters c(two_rails(), 7);
  c.count(sweep(1 * kSec, {watts(5), watts(1)}));
  c.count(sweep(2 * kSec, {watts(7), watts(1)}));
  c.count(sweep(3 * kSec, {watts(7), watts(3)}));
  auto s = c.snapshot();
  EXPECT_DOUBLE_EQ(s.energy_uj[0], 6e6 + 7e6);
  EXPECT_DOUBLE_EQ(s.energy_uj[1], 1e6 + 2e6);
  EXPECT_EQ(s.created_wall_ns, 7);
  EXPECT_EQ(s.counters_id.size(), 16u);
  EXPECT_TRUE(validate_counters(to_stored(s), "test")) << "fresh counters must be storable";
}

TEST(Counters, AFailedReadIsBridgedByItsValidNeighbours) {
  EnergyCounters c(two_rails(), 0);
  c.count(sweep(1 * kSec, {watts(2), watts(2)}));
  c.count(sweep(2 * kSec, {failed(), watts(2)}));
  c.count(sweep(3 * kSec, {watts(4), watts(2)}));
  EXPECT_DOUBLE_EQ(c.snapshot().energy_uj[0], 6e6);
}

TEST(Counters, FreshCountersHaveADifferentIdEachTime) {
  EXPECT_NE(EnergyCounters(two_rails(), 0).snapshot().counters_id,
            EnergyCounters(two_rails(), 0).snapshot().counters_id);
}

TEST(Counters, ARestartContinuesTheStoredJoulesByLabelAndDowntimeAddsNothing) {
  StoredCounters stored;
  {
    EnergyCounters before(two_rails(), 11);
    before.count(sweep(1 * kSec, {watts(5), watts(1)}));
    before.count(sweep(3 * kSec, {watts(5), watts(1)}));  // 10 J, 2 J
    stored = to_stored(before.snapshot());
  }
  EnergyCounters after(two_rails(), 99);
  after.restore(stored);
  after.count(sweep(100 * kSec, {watts(5), watts(1)}));  // 97 s down: no energy
  after.count(sweep(101 * kSec, {watts(5), watts(1)}));
  auto s = after.snapshot();
  EXPECT_DOUBLE_EQ(s.energy_uj[0], 15e6);
  EXPECT_DOUBLE_EQ(s.energy_uj[1], 3e6);
  EXPECT_EQ(s.counters_id, stored.counters_id);
  EXPECT_EQ(s.created_wall_ns, 11);
}

// The database could not be opened at first: what was counted meanwhile is
// added to the stored joules once it opens.
TEST(Counters, ARestoreAddsTheStoredJoulesToWhatWasCountedBefore) {
  EnergyCounters c(two_rails(), 0);
  c.count(sweep(1 * kSec, {watts(5), watts(1)}));
  c.count(sweep(2 * kSec, {watts(5), watts(1)}));
  c.restore(StoredCounters{"0123456789abcdef", 4, {{"VDD_IN", 100e6}, {"VDD_CPU_GPU_CV", 10e6}}});
  auto s = c.snapshot();
  EXPECT_DOUBLE_EQ(s.energy_uj[0], 105e6);
  EXPECT_DOUBLE_EQ(s.energy_uj[1], 11e6);
  EXPECT_EQ(s.counters_id, "0123456789abcdef");
}

TEST(Counters, ARailTheRecordDoesNotNameStartsAtZeroAndAGoneRailIsDropped) {
  EnergyCounters c(two_rails(), 0);
  c.restore(StoredCounters{"0123456789abcdef", 4, {{"VDD_IN", 5e6}, {"VDD_GONE", 9e6}}});
  auto s = c.snapshot();
  EXPECT_DOUBLE_EQ(s.energy_uj[0], 5e6);
  EXPECT_DOUBLE_EQ(s.energy_uj[1], 0);
  auto stored = to_stored(s);
  ASSERT_EQ(stored.energy_uj.size(), 2u);
  EXPECT_EQ(stored.energy_uj[1].first, "VDD_CPU_GPU_CV");
}

TEST_F(CountersDir, TheOldFileIsReadWithItsIdStartAndJoules) {
  write(R"({"format":"energyd-counters","version":1,"counters_id":"0123456789abcdef",)"
        R"("created_wall_ns":5,"energy_uj":{"VDD_IN":12.5,"VDD_SOC":0}})");
  auto r = read_counters_file(path());
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->counters_id, "0123456789abcdef");
  EXPECT_EQ((*r)->created_wall_ns, 5);
  ASSERT_EQ((*r)->energy_uj.size(), 2u);
  EXPECT_EQ((*r)->energy_uj[0].first, "VDD_IN");
  EXPECT_DOUBLE_EQ((*r)->energy_uj[0].second, 12.5);
}

TEST_F(CountersDir, AMissingOldFileIsNothing) {
  auto r = read_counters_file(path());
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_FALSE(r->has_value());
}

TEST_F(CountersDir, ADamagedOldFileIsAnErrorNamingTheFileAndTheField) {
  struct Case {
    std::string body, expect;
  } cases[] = {
      {R"("counters_id":"0123456789abcdef","created_wall_ns":5,"energy_uj":{"VDD_IN":"lots"})",
       "energy_uj \"VDD_IN\" must be a number"},
      {R"("counters_id":"0123456789abcdef","created_wall_ns":5,"energy_uj":{"VDD_IN":-1})",
       "energy_uj \"VDD_IN\" must be a number >= 0"},
      {R"("counters_id":"0123","created_wall_ns":5,"energy_uj":{})", "counters_id must be 16 lowercase hex digits"},
      {R"("counters_id":"0123456789ABCDEF","created_wall_ns":5,"energy_uj":{})", "counters_id must be 16 lowercase"},
      {R"("counters_id":"0123456789abcdef","created_wall_ns":-5,"energy_uj":{})", "created_wall_ns must be >= 0"},
      {R"("counters_id":"0123456789abcdef","created_wall_ns":1.5,"energy_uj":{})",
       "created_wall_ns must be an integer"},
      {R"("counters_id":"0123456789abcdef","created_wall_ns":5,"energy_uj":[1])", "energy_uj must be an object"},
  };
  for (const auto& c : cases) {
    write(R"({"format":"energyd-counters","version":1,)" + c.body + "}");
    auto r = read_counters_file(path());
    ASSERT_FALSE(r) << c.body;
    EXPECT_NE(r.error().message.find(c.expect), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(path()), std::string::npos) << r.error().message;
  }
  write("{not json");
  EXPECT_FALSE(read_counters_file(path()));
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
