// CPU attribution (attribution.h): /proc parsing, process trees, and the
// split of the CPU rails' energy between overlapping runs by CPU time.
#include "energy/attribution.h"

#include <gtest/gtest.h>

#include "../time_units.h"

namespace energy {
namespace {

TEST(Attribution, CpuRailsAreTheOnesThatMeasureTheCpuAlone) {
  EXPECT_EQ(cpu_rail_labels({"POM_5V_IN", "POM_5V_GPU", "POM_5V_CPU"}), std::vector<std::string>{"POM_5V_CPU"});
  EXPECT_EQ(cpu_rail_labels({"VDD_IN", "VDD_SYS_CPU", "VDD_SYS_GPU"}), std::vector<std::string>{"VDD_SYS_CPU"});
  EXPECT_EQ(cpu_rail_labels({"GPU", "CPU", "SOC"}), std::vector<std::string>{"CPU"});
  EXPECT_TRUE(cpu_rail_labels({"VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC"}).empty());
  EXPECT_EQ(shared_cpu_rail_labels({"VDD_IN", "VDD_CPU_GPU_CV"}), std::vector<std::string>{"VDD_CPU_GPU_CV"});
  EXPECT_EQ(shared_cpu_rail_labels({"VDD_CPU_CV", "VDD_GPU_SOC"}), std::vector<std::string>{"VDD_CPU_CV"});
}

TEST(Attribution, ProcStatIsReadAfterTheLastParenthesisOfTheCommand) {
  auto p = parse_proc_stat("4242 (my (odd) cmd) R 17 4242 4242 0 -1 4194304 100 0 0 0 250 50 7 3 20 0 1 0 1 2 3\n");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->pid, 4242);
  EXPECT_EQ(p->ppid, 17);
  EXPECT_EQ(p->ticks, 250 + 50 + 7 + 3);
  EXPECT_FALSE(parse_proc_stat("").has_value());
  EXPECT_FALSE(parse_proc_stat("12 (x) R 1 2").has_value());
  EXPECT_FALSE(parse_proc_stat("x (y) R 1 1 1 0 -1 0 0 0 0 0 1 1 1 1 20").has_value());
}

TEST(Attribution, BusyTicksLeaveIdleAndIowaitOut) {
  EXPECT_EQ(parse_busy_ticks("cpu  100 5 40 9000 30 2 3 1 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n"), 100 + 5 + 40 + 2 + 3 + 1);
  EXPECT_FALSE(parse_busy_ticks("intr 1 2 3").has_value());
  EXPECT_FALSE(parse_busy_ticks("cpu 1 2").has_value());
}

TEST(Attribution, ATreeIsItsRootAndEveryDescendant) {
  std::vector<ProcStat> procs = {{1, 0, 1000}, {10, 1, 5}, {11, 10, 7}, {12, 11, 9}, {20, 1, 100}, {13, 10, 1}};
  EXPECT_EQ(tree_ticks(procs, 10), 5 + 7 + 9 + 1);
  EXPECT_EQ(tree_ticks(procs, 20), 100);
  EXPECT_EQ(tree_ticks(procs, 99), 0);
  std::vector<ProcStat> loop = {{5, 6, 1}, {6, 5, 2}};  // a cycle cannot hang it
  EXPECT_EQ(tree_ticks(loop, 5), 3);
}

// Three overlapping runs over 0..3 s at 1 W on the CPU rail; each second the
// board is 1 s busy. Run 1 uses 0.5 s of CPU a second, run 2 0.25 s (it
// runs 1..3 s), run 3 claims 1 s a second over 1..2 s, more than the board
// reports busy: shares are then of what the runs claim.
TEST(Attribution, SharesOfOverlappingRunsNeverAddUpToMoreThanTheRailMeasured) {
  auto snap = [](int64_t t_s, int64_t busy_ms, const std::map<int64_t, int64_t>& runs_ms) {
    CpuSnapshot s{t_s * kSec, busy_ms * kMs, {}};
    for (const auto& [id, ms] : runs_ms) s.runs[id] = ms * kMs;
    return s;
  };
  std::vector<CpuSnapshot> snaps = {snap(0, 0, {{1, 0}}), snap(1, 1000, {{1, 500}, {2, 0}, {3, 0}}),
                                    snap(2, 2000, {{1, 1000}, {2, 250}, {3, 1000}}),
                                    snap(3, 3000, {{1, 1500}, {2, 500}})};
  auto energy = [](EnergyWindow w) -> Result<double> { return static_cast<double>(w.end_ns - w.begin_ns) / 1e9; };
  double sum = 0;
  for (int64_t id : {1, 2, 3}) {
    EnergyWindow w = id == 1   ? EnergyWindow{0, 3 * kSec}
                     : id == 2 ? EnergyWindow{kSec, 3 * kSec}
                               : EnergyWindow{kSec, 2 * kSec};
    auto a = attribute_cpu(snaps, id, w, energy);
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE(a->available);
    EXPECT_LE(a->attributed_j, a->cpu_rails_j);
    sum += a->attributed_j;
  }
  EXPECT_LE(sum, 3.0 + 1e-12);
  auto one = attribute_cpu(snaps, 1, {0, 3 * kSec}, energy);
  // 0..1: 0.5 of 1 s busy; 1..2: 0.5 of max(1, 0.5 + 0.25 + 1); 2..3: 0.5 of max(1, 0.75).
  EXPECT_NEAR(one->attributed_j, 0.5 + 0.5 / 1.75 + 0.5, 1e-12);
  EXPECT_NEAR(one->cpu_time_s, 1.5, 1e-12);
  EXPECT_EQ(one->segments, 3);
}

TEST(Attribution, ARunWithoutTwoReadingsIsNotAvailable) {
  std::vector<CpuSnapshot> snaps = {CpuSnapshot{kSec, 0, {{4, 0}}}};
  auto a = attribute_cpu(snaps, 4, {0, 2 * kSec}, [](EnergyWindow) -> Result<double> { return 1.0; });
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a->available);
  EXPECT_FALSE(a->reason.empty());
}

TEST(Attribution, JsonRoundTripsAndTheSharedPartIsTheRest) {
  CpuAttribution a;
  a.available = true;
  a.pid = 77;
  a.cpu_rails = {"POM_5V_CPU"};
  a.cpu_rails_j = 4;
  a.attributed_j = 1.5;
  a.cpu_time_s = 2;
  a.board_cpu_time_s = 3;
  a.segments = 2;
  auto j = attribution_to_json(a, 10.0);
  EXPECT_DOUBLE_EQ(j["shared_j"].get<double>(), 8.5);
  auto back = attribution_from_json(j);
  ASSERT_TRUE(back.has_value());
  EXPECT_DOUBLE_EQ(back->attributed_j, 1.5);
  EXPECT_EQ(back->cpu_rails, a.cpu_rails);
  EXPECT_FALSE(attribution_from_json(nlohmann::json::array()).has_value());
}

}  // namespace
}  // namespace energy
