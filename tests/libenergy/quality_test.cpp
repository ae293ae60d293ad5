// Run quality (quality.h): the verdict from a report's own figures and the
// run's recorded period and gate; gaps and overlaps as the report found them.
#include "energy/quality.h"

#include <gtest/gtest.h>

#include "../time_units.h"
#include "energy/report.h"

namespace energy {
namespace {

// A stopped 10 s run whose total (VDD_IN) is covered `coverage` of the time,
// with its longest gap `gap_ns` and `failed` failed reads.
RunReport report(double coverage, int64_t gap_ns, int64_t failed = 0) {
  RunReport rep;
  rep.run.id = 4;
  rep.run.name = "r";
  rep.run.state = RunState::kStopped;
  rep.window = EnergyWindow{10 * kSec, 20 * kSec};
  RailEnergyReport in;
  in.label = "VDD_IN";
  in.in_total = true;
  in.stats.window_ns = 10 * kSec;
  in.stats.covered_ns = static_cast<int64_t>(coverage * 10 * kSec);
  in.stats.largest_gap_ns = gap_ns;
  in.stats.failed_samples = failed;
  in.stats.has_data = true;
  rep.rails = {in};
  rep.total = in.stats;
  return rep;
}

QualityInputs inputs(int64_t period_ns = 100 * kMs) {
  QualityInputs in;
  in.period_ns = period_ns;
  return in;
}

const QualityCheck& check(const Quality& q, const std::string& name) {
  for (const auto& c : q.checks) {
    if (c.name == name) return c;
  }
  static QualityCheck none{"none", Verdict::kFail, ""};
  ADD_FAILURE() << "no check " << name;
  return none;
}

TEST(Quality, AFullyCoveredRunWithoutGapsPasses) {
  Quality q = judge_run(report(1.0, 101 * kMs), inputs());
  EXPECT_EQ(q.verdict, Verdict::kPass);
  EXPECT_TRUE(q.final);
  EXPECT_EQ(quality_summary(q), "");
}

TEST(Quality, CoverageUnderTheGateFailsTheRun) {
  Quality q = judge_run(report(0.60, 150 * kMs), inputs());
  EXPECT_EQ(q.verdict, Verdict::kFail);
  EXPECT_EQ(check(q, "coverage").outcome, Verdict::kFail);
  EXPECT_EQ(check(q, "coverage").detail, "60.0% < 98.0%");
  EXPECT_EQ(judge_run(report(0.98, 150 * kMs), inputs()).verdict, Verdict::kPass);
}

TEST(Quality, AGapLongerThanTwoPeriodsFailsTheRunAtTheRunsOwnPeriod) {
  EXPECT_EQ(judge_run(report(0.99, 530 * kMs), inputs()).verdict, Verdict::kFail);
  EXPECT_EQ(judge_run(report(0.99, 200 * kMs), inputs()).verdict, Verdict::kPass);
  // The same data measured at a 50 ms period: 150 ms is three periods.
  Quality q = judge_run(report(0.99, 150 * kMs), inputs(50 * kMs));
  EXPECT_EQ(check(q, "longest_gap").outcome, Verdict::kFail);
  EXPECT_EQ(check(q, "longest_gap").detail, "150 ms > 100 ms (2 periods of 50 ms)");
}

TEST(Quality, TheRunsGateReplacesTheDefaults) {
  QualityInputs in = inputs();
  in.gate.min_coverage = 0.5;
  in.gate.max_gap_periods = 10;
  EXPECT_EQ(judge_run(report(0.60, 900 * kMs), in).verdict, Verdict::kPass);
}

TEST(Quality, FailedReadsOnTheTotalFailAndOnOtherRailsWarn) {
  EXPECT_EQ(check(judge_run(report(1.0, 100 * kMs, 1), inputs()), "read_errors").outcome, Verdict::kFail);
  RunReport rep = report(1.0, 100 * kMs);
  RailEnergyReport soc = rep.rails[0];
  soc.label = "VDD_SOC";
  soc.in_total = false;
  soc.stats.failed_samples = 3;
  rep.rails.push_back(soc);
  Quality q = judge_run(rep, inputs());
  EXPECT_EQ(q.verdict, Verdict::kWarn);
  EXPECT_NE(check(q, "read_errors").detail.find("VDD_SOC"), std::string::npos);
}

TEST(Quality, AnOverlapWarnsAndFailsAnExclusiveRun) {
  QualityInputs in = inputs();
  in.overlaps = {RunOverlap{9, "other", 2 * kSec, false}};
  Quality q = judge_run(report(1.0, 100 * kMs), in);
  EXPECT_EQ(q.verdict, Verdict::kWarn);
  EXPECT_NE(check(q, "overlap").detail.find("whole board"), std::string::npos);
  in.gate.exclusive = true;
  EXPECT_EQ(judge_run(report(1.0, 100 * kMs), in).verdict, Verdict::kFail);
  nlohmann::json j = quality_to_json(q);
  EXPECT_EQ(j["overlaps"][0]["id"], 9);
  EXPECT_DOUBLE_EQ(j["overlaps"][0]["overlap_s"].get<double>(), 2.0);
}

TEST(Quality, APeriodLongerThanTheMonitorsAveragingWindowWarns) {
  QualityInputs in = inputs(100 * kMs);
  in.averaging_window_ns = 54 * kMs;
  Quality q = judge_run(report(1.0, 100 * kMs), in);
  EXPECT_EQ(q.verdict, Verdict::kWarn);
  EXPECT_EQ(check(q, "period").detail,
            "sampled every 100 ms while the monitors average over 54 ms: part of every "
            "period went unseen");
  in = inputs(50 * kMs);
  in.averaging_window_ns = 54 * kMs;
  EXPECT_EQ(judge_run(report(1.0, 50 * kMs), in).verdict, Verdict::kPass);
}

TEST(Quality, APinnedClockChangedBehindEnergydsBackFails) {
  QualityInputs in = inputs();
  in.external_clock_changes = 2;
  Quality q = judge_run(report(1.0, 100 * kMs), in);
  EXPECT_EQ(check(q, "clocks").outcome, Verdict::kFail);
}

TEST(Quality, AnInterruptedRunFailsAndAnOpenOneIsProvisional) {
  RunReport rep = report(1.0, 100 * kMs);
  rep.run.state = RunState::kInterrupted;
  EXPECT_EQ(judge_run(rep, inputs()).verdict, Verdict::kFail);
  rep.run.state = RunState::kOpen;
  Quality q = judge_run(rep, inputs());
  EXPECT_EQ(q.verdict, Verdict::kPass);
  EXPECT_FALSE(q.final);
}

TEST(Quality, GapsCarryTheirCausesIntoTheJson) {
  RunReport rep = report(0.9, 1 * kSec);
  rep.gaps = {RunGap{11 * kSec, 12 * kSec, GapCause::kEnergydStopped, {}, 0},
              RunGap{13 * kSec, 13 * kSec + 400 * kMs, GapCause::kReadErrors, {"VDD_IN"}, 3}};
  nlohmann::json j = quality_to_json(judge_run(rep, inputs()));
  ASSERT_EQ(j["gaps"].size(), 2u);
  EXPECT_EQ(j["gaps"][0]["cause"], "energyd_stopped");
  EXPECT_EQ(j["gaps"][0]["length_ns"], 1 * kSec);
  EXPECT_EQ(j["gaps"][1]["cause"], "read_errors");
  EXPECT_EQ(j["gaps"][1]["rails"][0], "VDD_IN");
  EXPECT_EQ(j["gaps"][1]["failed_reads"], 3);
}

TEST(QualityTags, TheGateAndPeriodComeFromTheRunsTags) {
  RunRecord run;
  run.tags_json = R"({"energyd.period_ms":"50","energyd.gate.min_coverage":"0.9",)"
                  R"("energyd.gate.max_gap_periods":"3","energyd.exclusive":"true"})";
  auto gate = gate_from_tags(run);
  ASSERT_TRUE(gate.ok());
  EXPECT_DOUBLE_EQ(gate->min_coverage, 0.9);
  EXPECT_DOUBLE_EQ(gate->max_gap_periods, 3);
  EXPECT_TRUE(gate->exclusive);
  EXPECT_EQ(recorded_period_ns(run), 50 * kMs);
  run.tags_json = "{}";
  EXPECT_DOUBLE_EQ(gate_from_tags(run)->min_coverage, 0.98);
  EXPECT_FALSE(recorded_period_ns(run).has_value());
}

TEST(QualityTags, AGateTagOutOfRangeIsAnErrorNamingIt) {
  RunRecord run;
  run.tags_json = R"({"energyd.gate.min_coverage":"1.5"})";
  auto gate = gate_from_tags(run);
  ASSERT_FALSE(gate.ok());
  EXPECT_NE(gate.error().message.find("energyd.gate.min_coverage"), std::string::npos);
  run.tags_json = R"({"energyd.period_ms":"fast"})";
  EXPECT_FALSE(recorded_period_ns(run).has_value());
}

}  // namespace
}  // namespace energy
