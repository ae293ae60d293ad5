// The governors' grids against a reader with a fixed period (issue 14,
// sim/ASSUMPTIONS.md A40): on the live board every governor sample comes up
// to kGovernorLateNs late, so its grid drifts against energyd's 100 ms and a
// study workload's energy, read through the averaging chip every 100 ms, no
// longer depends on where those reads fall against the grid. With exact
// 20 / 50 ms grids (both divide 100 ms) it did, by a bias that never shrank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <set>
#include <vector>

#include "../time_units.h"
#include "live_board.h"
#include "model_calibration.h"
#include "sensor.h"
#include "sim_test_util.h"
#include "study.h"

namespace energy::sim {
namespace {

constexpr std::int64_t kReaderNs = 100 * kMs;  // energyd's default sampling period

TEST(GovernorGrid, TheLiveBoardsGovernorSamplesDriftAgainstAHundredMillisecondReader) {
  EXPECT_EQ(LiveOptions{}.model.governor_late_ns, kGovernorLateNs);
  EXPECT_EQ(ModelOptions{}.governor_late_ns, 0);  // model-time studies keep the fitted exact grids
  const BoardSpec spec = test::board("jetson-orin-nano", 36);
  const std::int64_t start = 1000 * kMs;
  PowerModel model(spec, ModelControls{idle_state(spec), 500, {}}, start, LiveOptions{}.model);
  std::set<std::int64_t> phases_ms;  // of the governor samples, against the reader's grid
  std::int64_t previous = start;
  for (std::int64_t t = model.next_grid_ns(); t < start + 3000 * kMs; t = model.next_grid_ns()) {
    ASSERT_GT(t, previous);
    EXPECT_LE(t - previous, 50 * kMs + kGovernorLateNs);
    previous = t;
    if ((t - start) % (1000 * kMs) != 0) phases_ms.insert(((t - start) % kReaderNs) / kMs);
    model.advance_to(t);
  }
  // Exact grids give 6 phases (0, 20, 40, 50, 60, 80 ms); drifting ones most of the 100.
  EXPECT_GE(phases_ms.size(), 60u);
}

// The study workload's batches (cpu-heavy, batch 4) on a live board with a fake clock.
std::unique_ptr<LiveBoard> run_study(const BoardSpec& spec, std::int64_t& now, std::int64_t until) {
  LiveOptions options;
  options.cpu_load_permille = 0;
  auto board = std::move(LiveBoard::create(spec, options, [&now] { return now; })).value();
  const StudyCalibration cal = study_calibration_for(spec.id);
  const WorkloadMix mix = *preset_mix("cpu-heavy");
  const std::size_t cpus = spec.cpu.all_cpus().size();
  while (now < until) {
    for (const Phase& phase : batch_phases(mix, 4, cal)) {
      EXPECT_TRUE(board->set_gpu_load("", phase.gpu_permille));
      board->pin_cpu_load(cpu_power_permille(phase.busy_threads, phase.spinning_threads, cpus),
                          cpu_peak_permille(phase.busy_threads, phase.spinning_threads));
      const BoardState state = board->snapshot();
      const StudyClocks clocks{state.policies.begin()->second.cur_khz, state.gpus.begin()->second.cur_hz, 0, 1};
      now += std::llround(*phase_duration_ns(phase, clocks, cal));
    }
  }
  return board;
}

// energyd's figure from the rail's averaged registers (unquantised: the
// bias under test is not the rounding) read every 100 ms from `from`:
// trapezoids plus the averaging correction, against the true energy.
double relative_error(const PowerModel& model, const BoardSpec& spec, std::size_t rail, std::int64_t from,
                      std::int64_t to) {
  const PowerMonitorSpec& m = spec.monitors[0];
  const std::vector<ConversionTiming> timings{initial_timing(spec, m, MonitorConfig{512, 140}, 0, 0.0)};
  std::vector<double> power_uw;
  RegisterMemo bus, shunt;
  for (std::int64_t t = from; t <= to; t += kReaderNs) {
    const int slot = static_cast<int>(rail);
    power_uw.push_back(register_mean(model, rail, slot, Conversion::kBus, timings, t, bus) *
                       register_mean(model, rail, slot, Conversion::kShunt, timings, t, shunt));
  }
  double uj = 0;
  for (std::size_t i = 1; i < power_uw.size(); ++i) uj += (power_uw[i] + power_uw[i - 1]) / 2 * kReaderNs / 1e9;
  const std::int64_t end = from + static_cast<std::int64_t>(power_uw.size() - 1) * kReaderNs;
  uj += static_cast<double>((timings[0].samples - 1) * timings[0].cycle_ns()) / 1e9 * (power_uw.back() - power_uw[0]);
  const double truth = model.energy_uj(rail, from, end);
  return (uj - truth) / truth;
}

TEST(GovernorGrid, AStudyWorkloadReadEveryHundredMillisecondsIsUnbiasedWhereverTheReadsFall) {
  const BoardSpec spec = test::board("jetson-orin-nano", 36);
  std::int64_t now = 1000 * kMs;
  const std::int64_t from = now + 2000 * kMs, to = from + 20000 * kMs;
  std::unique_ptr<LiveBoard> board = run_study(spec, now, to + 500 * kMs);
  board->inspect([&](const PowerModel& model, std::int64_t) {
    for (std::size_t rail = 0; rail < spec.monitors[0].channels.size(); ++rail) {
      for (std::int64_t offset_ms : {0, 25, 50, 75}) {
        // Exact grids: up to 0.24 % (VDD_CPU_GPU_CV, offset 50 ms); drifting ones: at most 0.09 %.
        EXPECT_LT(std::abs(relative_error(model, spec, rail, from + offset_ms * kMs, to)), 0.0015)
            << spec.monitors[0].channels[rail].label << " offset " << offset_ms << " ms";
      }
    }
  });
}

}  // namespace
}  // namespace energy::sim
