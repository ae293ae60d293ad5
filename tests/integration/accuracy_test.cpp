// QUALITY.md M1 on a live simulated board (energyd-sim run, FUSE): a run's
// energy is within its own error bound of the simulator's exact ground
// truth, and the bound is small for a steady load and says so when a load
// changes faster than the 100 ms sampling can follow. The figures behind M1
// are bench/accuracy_bench's (docs/PERFORMANCE.md, "Accuracy").
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>
#include <thread>

#include "board_fixture.h"

namespace energy::testing {
namespace {

using std::chrono::milliseconds;

// The chips run with energyd's default averaging (`sensor_averaging: period`:
// 64 samples, a 422 ms running mean), as in the bench/accuracy_bench runs
// behind these thresholds.
BoardSpec live_orin_nano() {
  BoardSpec spec;
  spec.live = true;
  spec.sim_args = {"--cpu-load", "0", "--seed", "3"};  // the CPU rails do not follow this host's load
  spec.daemon_args = {"--flush-interval-ms", "200"};
  return spec;
}

// GPU bursts of 20-300 ms with 20-300 ms pauses, from a thread, until destroyed.
class Bursts {
 public:
  explicit Bursts(const std::string& control)
      : thread_([this, control] {
          SimControl sim(control);
          std::mt19937 rng(11);
          std::uniform_int_distribution<int> ms(20, 300);
          for (bool on = true; !stop_; on = !on) {
            sim.call("set_gpu_load", {{"permille", on ? 1000 : 0}});
            std::this_thread::sleep_for(milliseconds(ms(rng)));
          }
          sim.call("set_gpu_load", {{"permille", 0}});
        }) {}
  ~Bursts() {
    stop_ = true;
    thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// bound_j is precision_j: what the readings say about the energy. error_bound_j
// adds the monitors' calibration (about 2.7% here), which the simulator has no
// error in, so the figure to judge against its truth and for tightness is the
// precision; error_bound_j still has to contain the error.
struct Checked {
  double error_j = 0;
  double bound_j = 0;
  double energy_j = 0;
  double error_bound_j = 0;
};

// The report's figure for `rail` ("total" or a label) against the simulator's exact energy.
Checked against_truth(SimControl& sim, const nlohmann::json& report, const std::string& rail) {
  const nlohmann::json& stats = rail == "total" ? report["total"] : *report_rail(report, rail);
  auto truth =
      sim.call("energy", {{"rail", rail}, {"from_ns", report["run"]["start_ns"]}, {"to_ns", report["run"]["stop_ns"]}});
  EXPECT_TRUE(truth.value("ok", false)) << truth.dump();
  double exact_j = truth.value("energy_uj", 0.0) / 1e6;
  return {std::abs(stats["energy_j"].get<double>() - exact_j), stats["precision_j"].get<double>(), exact_j,
          stats["error_bound_j"].get<double>()};
}

nlohmann::json marked_run(const SimulatedDaemon& d, const std::string& name, milliseconds length) {
  d.ctl_json({"mark", "start", name});
  std::this_thread::sleep_for(length);
  return d.ctl_json({"mark", "stop", name});
}

TEST(Accuracy, RunsAreWithinTheirErrorBoundAndTheBoundFitsTheLoad) {
  SimulatedDaemon d(live_orin_nano());
  ASSERT_TRUE(d.started()) << d.setup_error();
  SimControl sim(d.sim_control());
  ASSERT_TRUE(sim.call("set_gpu_load", {{"permille", 700}}).value("ok", false));
  auto steady = marked_run(d, "steady", milliseconds(3000));
  nlohmann::json bursty;
  {
    Bursts load(d.sim_control());
    bursty = marked_run(d, "bursty", milliseconds(8000));
  }
  for (const char* rail : {"total", "VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC"}) {
    for (const auto* report : {&steady, &bursty}) {
      Checked c = against_truth(sim, *report, rail);
      EXPECT_LE(c.error_j, c.bound_j) << rail << " in " << report->dump();
      EXPECT_LE(c.bound_j, c.error_bound_j) << rail << " in " << report->dump();
    }
  }
  Checked s = against_truth(sim, steady, "total");
  EXPECT_GT(s.bound_j, 0.0);
  EXPECT_LT(s.bound_j, 0.03 * s.energy_j) << "a steady load's readings say its energy to a few percent";
  Checked b = against_truth(sim, bursty, "total");
  // The bursts (20-300 ms, timed by this thread's sleeps) come out longer on a
  // loaded machine, and then the bound is barely above 3%: compare it with the
  // steady run's instead of a fixed figure (2.3% and 3.0% here, 2026-11-25).
  EXPECT_GT(b.bound_j / b.energy_j, s.bound_j / s.energy_j)
      << "bursts shorter than the period cannot be resolved; the bound says so";
  EXPECT_LT(b.bound_j, 0.3 * b.energy_j);
}

}  // namespace
}  // namespace energy::testing
