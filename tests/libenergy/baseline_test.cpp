// Idle baselines (baseline.h): idle and net energy from a baseline's
// average power, the notes on doubtful baselines, and finding the baseline
// of a run in a store.
#include "energy/baseline.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "../time_units.h"
#include "energy/chunker.h"
#include "temp_store.h"

namespace energy {
namespace {

RailEnergyReport rail(const std::string& label, double energy_uj, int64_t ns, bool in_total) {
  RailEnergyReport r;
  r.label = label;
  r.in_total = in_total;
  r.stats.energy_uj = energy_uj;
  r.stats.window_ns = ns;
  r.stats.integrated_ns = static_cast<double>(ns);
  r.stats.has_data = true;
  return r;
}

// A report over `seconds` with VDD_IN at in_w and VDD_SOC at soc_w (total = VDD_IN).
RunReport report(int64_t id, double seconds, double in_w, double soc_w) {
  RunReport rep;
  rep.run.id = id;
  rep.run.name = "r" + std::to_string(id);
  auto ns = static_cast<int64_t>(seconds * 1e9);
  rep.window = EnergyWindow{10 * kSec, 10 * kSec + ns};
  rep.rails = {rail("VDD_IN", in_w * seconds * 1e6, ns, true), rail("VDD_SOC", soc_w * seconds * 1e6, ns, false)};
  rep.total = rep.rails[0].stats;
  return rep;
}

TEST(BaselineJson, IdleIsBaselinePowerTimesDurationAndNetIsTheRest) {
  RunReport run = report(7, 2.0, 8.0, 2.5);
  BaselineUse use = baseline_from_report(report(3, 10.0, 5.0, 2.0));
  EXPECT_DOUBLE_EQ(use.total_avg_w, 5.0);
  nlohmann::json out = report_to_json(run);
  add_baseline_json(run, use, out);
  EXPECT_EQ(out["baseline"]["run"], 3);
  EXPECT_DOUBLE_EQ(out["baseline"]["duration_s"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(out["baseline"]["total"]["avg_power_w"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(out["total"]["idle_j"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(out["total"]["net_j"].get<double>(), 16.0 - 10.0);
  EXPECT_DOUBLE_EQ(out["rails"][1]["idle_j"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(out["rails"][1]["net_j"].get<double>(), 1.0);
  EXPECT_FALSE(out.contains("notes")) << out.dump(2);
}

TEST(BaselineJson, ARailTheBaselineLacksGetsANoteNotAZeroIdle) {
  RunReport run = report(7, 1.0, 8.0, 2.0);
  RunReport bl = report(3, 1.0, 5.0, 2.0);
  bl.rails.pop_back();  // VDD_SOC had no reading in the baseline
  nlohmann::json out = report_to_json(run);
  add_baseline_json(run, baseline_from_report(bl), out);
  EXPECT_FALSE(out["rails"][1].contains("idle_j"));
  ASSERT_EQ(out["notes"].size(), 1u);
  EXPECT_NE(out["notes"][0].get<std::string>().find("VDD_SOC has no reading in baseline run 3"), std::string::npos);
}

TEST(BaselineJson, DoubtfulBaselinesAreNoted) {
  RunReport run = report(7, 1.0, 8.0, 2.0);
  BaselineUse use = baseline_from_report(report(3, 1.0, 5.0, 2.0));
  use.same_boot = false;
  use.age_ns = int64_t{2} * 86'400 * kSec;
  use.open_during = {4, 5};
  nlohmann::json out = report_to_json(run);
  add_baseline_json(run, use, out);
  std::string notes = out["notes"].dump();
  EXPECT_NE(notes.find("runs open while baseline run 3 (r3) was measured (4, 5)"), std::string::npos) << notes;
  EXPECT_NE(notes.find("earlier boot"), std::string::npos) << notes;
  EXPECT_NE(notes.find("2.0 days older"), std::string::npos) << notes;
  EXPECT_DOUBLE_EQ(out["baseline"]["age_s"].get<double>(), 2 * 86'400.0);
  EXPECT_FALSE(out["baseline"]["same_boot"].get<bool>());
  use.age_ns = 86'400 * kSec - 1;
  use.same_boot = true;
  use.open_during.clear();
  nlohmann::json fresh = report_to_json(run);
  add_baseline_json(run, use, fresh);
  EXPECT_FALSE(fresh.contains("notes")) << "a day old is not yet stale";
}

TEST(BaselineTags, KindAndBaselineTagsAreReadFromTheRunsTags) {
  RunRecord r;
  r.tags_json = R"({"energyd.kind":"baseline","energyd.baseline":"12"})";
  EXPECT_TRUE(is_baseline_run(r));
  EXPECT_EQ(run_tag(r, kRunBaselineTag), std::string("12"));
  r.tags_json = R"({"energyd.kind":"baseline-interrupted"})";
  EXPECT_FALSE(is_baseline_run(r));
  r.tags_json = "not json";
  EXPECT_FALSE(run_tag(r, kRunKindTag).has_value());
}

class BaselineStore : public TempStoreTest {
 protected:
  void SetUp() override {
    TempStoreTest::SetUp();
    if (HasFatalFailure()) return;
    boot_ = *store_->ensure_boot("boot-a", 0);
    RailInfo in;
    in.label = "VDD_IN";
    in.device = "1-0040";
    in.channel = 1;
    rail_ids_ = *store_->ensure_rails({in});
    // VDD_IN: 5 W idle until 1 s, then 8 W busy until 3 s.
    Chunker chunker({ChunkRail{0}}, 600, {});
    for (int64_t t = 0; t <= 3000; t += 100) {
      bool idle = t <= 1000;  // without a power file the power is V x I (5 V x 1 A or 1.6 A)
      chunker.add(Sample{t * kMs, t * kMs, {RailValue{idle ? 5'000'000 : 8'000'000, 5000, idle ? 1000 : 1600, 0}}});
    }
    ASSERT_TRUE(store_->begin().ok());
    ASSERT_TRUE(store_->readings().put_chunk(boot_, rail_ids_, chunker.open_chunk()).ok());
    ASSERT_TRUE(store_->commit().ok());
  }
  RunRecord add_run(const std::string& tags, int64_t start_ms, int64_t stop_ms) {
    RunRecord r;
    r.name = "r";
    r.tags_json = tags;
    r.boot = boot_;
    r.start_ns = start_ms * kMs;
    r.start_wall_ns = r.start_ns;
    r.id = *store_->runs().insert(r);
    EXPECT_TRUE(store_->runs().finish(r.id, stop_ms * kMs, stop_ms * kMs, RunState::kStopped).ok());
    r.stop_ns = stop_ms * kMs;
    r.stop_wall_ns = stop_ms * kMs;
    r.state = RunState::kStopped;
    return r;
  }
  nlohmann::json applied(const RunRecord& run) {
    auto rep = build_run_report(*store_, run, *run.stop_ns, 250 * kMs);
    EXPECT_TRUE(rep.ok());
    nlohmann::json out = report_to_json(*rep);
    EXPECT_TRUE(apply_baseline(*store_, *rep, 250 * kMs, out).ok());
    return out;
  }

  int64_t boot_ = 0;
  std::vector<int64_t> rail_ids_;
};

TEST_F(BaselineStore, TheNewestBaselineBeforeTheRunGivesItsIdleAndNetEnergy) {
  RunRecord bl = add_run(R"({"energyd.kind":"baseline"})", 0, 900);
  RunRecord run = add_run("{}", 1500, 2500);
  auto out = applied(run);
  ASSERT_TRUE(out.contains("baseline")) << out.dump(2);
  EXPECT_EQ(out["baseline"]["run"], bl.id);
  EXPECT_NEAR(out["baseline"]["age_s"].get<double>(), 0.6, 1e-9);
  EXPECT_NEAR(out["total"]["energy_j"].get<double>(), 8.0, 1e-9);
  EXPECT_NEAR(out["total"]["idle_j"].get<double>(), 5.0, 1e-9);
  EXPECT_NEAR(out["total"]["net_j"].get<double>(), 3.0, 1e-9);
  EXPECT_FALSE(applied(bl).contains("baseline")) << "a baseline is not measured against itself";
}

TEST_F(BaselineStore, ATaggedBaselineWinsAndABadTagIsANote) {
  RunRecord first = add_run(R"({"energyd.kind":"baseline"})", 0, 500);
  add_run(R"({"energyd.kind":"baseline"})", 500, 1000);
  RunRecord tied = add_run(R"({"energyd.baseline":")" + std::to_string(first.id) + R"("})", 1500, 2500);
  EXPECT_EQ(applied(tied)["baseline"]["run"], first.id);
  RunRecord plain = add_run("{}", 1000, 1200);
  RunRecord wrong = add_run(R"({"energyd.baseline":")" + std::to_string(plain.id) + R"("})", 1500, 2500);
  auto out = applied(wrong);
  EXPECT_FALSE(out.contains("baseline"));
  EXPECT_NE(out["notes"].dump().find("is not a baseline"), std::string::npos) << out.dump(2);
  RunRecord gone = add_run(R"({"energyd.baseline":"9999"})", 1500, 2500);
  EXPECT_NE(applied(gone)["notes"].dump().find("baseline run 9999 does not exist"), std::string::npos);
}

TEST_F(BaselineStore, NoBaselineMeansNoSection) {
  RunRecord run = add_run("{}", 1500, 2500);
  auto out = applied(run);
  EXPECT_FALSE(out.contains("baseline"));
  EXPECT_FALSE(out["total"].contains("net_j"));
  EXPECT_FALSE(out.contains("notes"));
}

}  // namespace
}  // namespace energy
