// The synthetic workload (sim/src/workload.*): unit durations, step plans,
// and the energy-versus-frequency curve it produces on the power model.
#include "workload.h"

#include <gtest/gtest.h>

#include <iostream>

#include "model.h"
#include "sim_test_util.h"

namespace energy::sim {
namespace {

constexpr std::int64_t kWorkloadStart = 1000000000;

TEST(Workload, UnitTimeIsCyclesOverFrequencyPlusTheMemoryPart) {
  WorkloadParams p;
  p.mix.gpu_megacycles = 4.0;
  p.mix.memory_us = 4000;
  EXPECT_EQ(*unit_duration_ns(p, 1000000000), 4000000 + 4000000);
  EXPECT_EQ(*unit_duration_ns(p, 500000000), 8000000 + 4000000);
  EXPECT_FALSE(unit_duration_ns(p, 0));
}

TEST(Workload, PatternsPlanBusyUnitsAndIdleGaps) {
  WorkloadParams p;
  p.units = 10;
  EXPECT_EQ(workload_steps(p).size(), 1u);
  p.pattern = WorkloadPattern::kStep;
  const std::vector<WorkloadStep> step = workload_steps(p);
  ASSERT_EQ(step.size(), 3u);
  EXPECT_EQ(step[0].idle_ns, kStepIdleNs);
  EXPECT_EQ(step[1].units, 10);
  p.pattern = WorkloadPattern::kBursty;
  std::int64_t units = 0;
  int gaps = 0;
  for (const WorkloadStep& s : workload_steps(p)) {
    units += s.units;
    gaps += s.units == 0 ? 1 : 0;
    EXPECT_LE(s.units, kBurstUnits);
  }
  EXPECT_EQ(units, 10);
  EXPECT_EQ(gaps, 2);
  EXPECT_FALSE(parse_pattern("wavy"));
}

TEST(Workload, BusyStepsRunAsFullBatchesThenTheRest) {
  EXPECT_EQ(batch_sizes(10, 4), (std::vector<std::int64_t>{4, 4, 2}));
  EXPECT_EQ(batch_sizes(8, 8), (std::vector<std::int64_t>{8}));
  EXPECT_EQ(batch_sizes(3, 1), (std::vector<std::int64_t>{1, 1, 1}));
  EXPECT_TRUE(batch_sizes(0, 4).empty());
}

// Energy of the board's total rails for one unit at GPU frequency `hz`
// (max_freq = hz, load 1000 for the unit's whole duration), from the model's
// exact ground truth.
double energy_per_unit_uj(const BoardSpec& spec, std::uint64_t hz, const WorkloadParams& params) {
  ModelControls c{idle_state(spec), 0, {}};
  GpuState& gpu = c.board.gpus.at(spec.gpus.front().devfreq_name);
  gpu.max_hz = hz;
  gpu.load_permille = kBusyPermille;
  const PowerModel model(spec, c, kWorkloadStart, ModelOptions{1, 0.0});
  EXPECT_EQ(governed_state(spec, c).gpus.at(spec.gpus.front().devfreq_name).cur_hz, hz);
  const std::int64_t duration = *unit_duration_ns(params, hz);
  double uj = 0;
  for (int r : model.topology().total_rails)
    uj += model.energy_uj(static_cast<std::size_t>(r), kWorkloadStart, kWorkloadStart + duration);
  return uj;
}

TEST(Workload, EnergyPerUnitIsLowestAtAModerateGpuFrequency) {
  for (const auto& [id, l4t] : {std::pair{"jetson-orin-nano", 36}, std::pair{"jetson-agx-orin", 36}}) {
    const BoardSpec spec = test::board(id, l4t);
    const std::vector<std::uint64_t>& table = spec.gpus.front().available_hz;
    const WorkloadParams params;
    std::size_t best = 0;
    std::vector<double> energies;
    for (std::size_t i = 0; i < table.size(); ++i) {
      energies.push_back(energy_per_unit_uj(spec, table[i], params));
      if (energies[i] < energies[best]) best = i;
      std::cout << "[ workload ] " << id << " " << table[i] / 1000000 << " MHz: " << energies[i] << " uJ/unit, "
                << *unit_duration_ns(params, table[i]) / 1000 << " us/unit\n";
    }
    EXPECT_GT(best, 0u) << id << ": the minimum is at the lowest frequency";
    EXPECT_LT(best, table.size() - 1) << id << ": the minimum is at the highest frequency";
    // Runtime plateaus: the top step saves less time than the bottom one.
    const std::int64_t low_gain = *unit_duration_ns(params, table[0]) - *unit_duration_ns(params, table[1]);
    const std::int64_t high_gain =
        *unit_duration_ns(params, table[table.size() - 2]) - *unit_duration_ns(params, table.back());
    EXPECT_GT(low_gain, high_gain);
  }
}

}  // namespace
}  // namespace energy::sim
