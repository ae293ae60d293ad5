// A pulse where bus voltage and current step together, on a live simulated
// Orin Nano: the INA3221 averages them separately, so its power reads
// avg(V) x avg(I), which lags a joint step less than a running mean of power
// (integrate.h, "Product of averages"). Uncorrected, a 2 s pulse from
// 5 V x 1 A to 19 V x 8 A read 12.6 % low, outside its bound; the report's
// product-of-averages term corrects it and its precision contains the rest.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "board_fixture.h"

namespace energy::testing {
namespace {

using std::chrono::milliseconds;

// With energyd's default averaging (a 430 ms running mean on the Orin Nano).
BoardSpec live_orin_nano_held_input() {
  BoardSpec spec;
  spec.live = true;
  spec.sim_args = {"--cpu-load", "0", "--seed", "5"};
  spec.daemon_args = {"--flush-interval-ms", "200"};
  return spec;
}

void hold_input(SimControl& sim, int mv, int ma) {
  ASSERT_TRUE(sim.call("set_rail", {{"rail", "VDD_IN"}, {"mv", mv}, {"ma", ma}}).value("ok", false));
}

double true_energy_j(SimControl& sim, const nlohmann::json& report, const std::string& rail) {
  auto truth =
      sim.call("energy", {{"rail", rail}, {"from_ns", report["run"]["start_ns"]}, {"to_ns", report["run"]["stop_ns"]}});
  EXPECT_TRUE(truth.value("ok", false)) << truth.dump();
  return truth.value("energy_uj", 0.0) / 1e6;
}

TEST(Accuracy, AJointVoltageAndCurrentPulseIsCorrectedAndWithinItsPrecision) {
  SimulatedDaemon d(live_orin_nano_held_input());
  ASSERT_TRUE(d.started()) << d.setup_error();
  SimControl sim(d.sim_control());
  hold_input(sim, 5000, 1000);
  std::this_thread::sleep_for(milliseconds(2500));  // the 430 ms running means settle
  d.ctl_json({"mark", "start", "pulse"});
  std::this_thread::sleep_for(milliseconds(1000));
  hold_input(sim, 19000, 8000);
  std::this_thread::sleep_for(milliseconds(2000));
  hold_input(sim, 5000, 1000);
  std::this_thread::sleep_for(milliseconds(2500));
  nlohmann::json report = d.ctl_json({"mark", "stop", "pulse"});
  for (const char* rail : {"total", "VDD_IN"}) {
    const nlohmann::json& stats = std::string(rail) == "total" ? report["total"] : *report_rail(report, rail);
    double exact_j = true_energy_j(sim, report, rail);
    double error_j = stats["energy_j"].get<double>() - exact_j;
    EXPECT_LE(std::abs(error_j), stats["precision_j"].get<double>()) << rail << ": " << stats.dump();
    EXPECT_LT(std::abs(error_j), 0.01 * exact_j) << rail << ": " << stats.dump();
    // About 98 W x 0.43 s / 2 at each of the two edges: 42 J, 13 % of the run.
    EXPECT_GT(stats["product_correction_j"].get<double>(), 0.08 * exact_j) << rail << ": " << stats.dump();
    EXPECT_LE(stats["precision_j"].get<double>(), stats["accuracy_j"].get<double>());
    EXPECT_DOUBLE_EQ(stats["error_bound_j"].get<double>(), stats["accuracy_j"].get<double>());
  }
}

}  // namespace
}  // namespace energy::testing
