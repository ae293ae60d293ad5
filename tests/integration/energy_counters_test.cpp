// energy.counters on a real energyd (docs/PROTOCOL.md): the joule counters
// grow with the energy, and a stopped and restarted energyd continues them
// under the same id without counting the time it was down.
#include <gtest/gtest.h>
#include <signal.h>

#include <thread>

#include "board_fixture.h"
#include "energy/client.h"

namespace energy::testing {
namespace {

constexpr double kVddInWatts = 5.0;  // constant_orin_nano()

nlohmann::json counters(const SimulatedDaemon& d) {
  auto c = Client::connect(d.socket());
  if (!c) return nlohmann::json();
  auto r = c->call("energy.counters");
  return r ? *r : nlohmann::json();
}

double vdd_in_j(const nlohmann::json& c) {
  for (const auto& r : c.value("rails", nlohmann::json::array())) {
    if (r.value("label", "") == "VDD_IN") return r.value("energy_j", -1.0);
  }
  return -1;
}

TEST(EnergyCounters, ContinueAcrossARestartAndTheDowntimeAddsNothing) {
  SimulatedDaemon d(constant_orin_nano());
  ASSERT_TRUE(d.started()) << d.setup_error();
  auto first = counters(d);
  std::this_thread::sleep_for(std::chrono::seconds(2));
  auto at_stop = counters(d);
  ASSERT_GE(vdd_in_j(first), 0) << first.dump();
  // 2 s at 5 W, within a sampling period or two at each end.
  EXPECT_NEAR(vdd_in_j(at_stop) - vdd_in_j(first), 2 * kVddInWatts, 0.3 * kVddInWatts);
  EXPECT_NEAR(at_stop["total"]["energy_j"].get<double>(), vdd_in_j(at_stop), 1e-9) << "VDD_IN alone is the total";

  ASSERT_EQ(d.stop(SIGTERM), 0) << d.log();
  std::this_thread::sleep_for(std::chrono::seconds(4));  // 20 J if the downtime counted
  ASSERT_TRUE(d.restart(SIGTERM)) << d.log();
  auto after = counters(d);
  EXPECT_EQ(after["counters_id"], at_stop["counters_id"]);
  EXPECT_EQ(after["created_wall_ns"], at_stop["created_wall_ns"]);
  EXPECT_GE(vdd_in_j(after), vdd_in_j(at_stop));
  // Only what energyd measured since its first sweep (it serves after a
  // few sweeps): well under the 4 s it was down.
  EXPECT_LT(vdd_in_j(after) - vdd_in_j(at_stop), 2 * kVddInWatts) << after.dump() << at_stop.dump();
}

}  // namespace
}  // namespace energy::testing
