// Sensors (sim/src/sensor.*): conversion windows, averaging, quantisation.
#include "sensor.h"

#include <gtest/gtest.h>

#include <cmath>

#include "energysim/chip_model.h"
#include "sim_test_util.h"

namespace energy::sim {
namespace {

constexpr std::int64_t kMs = 1000000;
constexpr std::int64_t kUs = 1000;
constexpr std::int64_t kStart = 0;

struct Chip {
  BoardSpec spec;
  std::size_t monitor = 0;
  std::vector<ConversionTiming> timings;
};

// Monitor `monitor` of the board with its conversion grid starting at kStart (phase 0).
Chip chip(const std::string& id, int l4t, std::size_t monitor = 0) {
  Chip c{test::board(id, l4t), monitor, {}};
  c.timings.push_back(initial_timing(c.spec, c.spec.monitors[monitor], MonitorConfig{}, kStart, 0.0));
  return c;
}

ModelControls with_override(const BoardSpec& spec, const std::string& id, RailState value) {
  ModelControls controls{idle_state(spec), 0, {}};
  controls.overrides[id] = value;
  return controls;
}

std::size_t first_rail_index(const Chip& c) {
  std::size_t r = 0;
  for (std::size_t m = 0; m < c.monitor; ++m) r += c.spec.monitors[m].channels.size();
  return r;
}

RailState read(const Chip& c, const PowerModel& model, int slot, std::int64_t t) {
  const PowerMonitorSpec& m = c.spec.monitors[c.monitor];
  return read_channel(model, first_rail_index(c) + static_cast<std::size_t>(slot), m,
                      m.channels[static_cast<std::size_t>(slot)], slot, c.timings, t);
}

TEST(SensorWindows, Ina3221ChannelsConvertInSequenceBusThenShunt) {
  ConversionTiming t;  // probe: 3 channels, 1 sample, 1.1 ms + 1.1 ms
  EXPECT_EQ(t.cycle_ns(), 6600 * kUs);
  const std::optional<Window> bus = last_window(t, 1, Conversion::kBus, 10 * kMs);
  const std::optional<Window> shunt = last_window(t, 1, Conversion::kShunt, 10 * kMs);
  ASSERT_TRUE(bus && shunt);
  // Cycle 1 starts at 6.6 ms; channel 2's bus window is 8.8 .. 9.9 ms, its shunt 9.9 .. 11 ms (not done at 10 ms).
  EXPECT_EQ(bus->start_ns, 8800 * kUs);
  EXPECT_EQ(bus->end_ns, 9900 * kUs);
  EXPECT_EQ(shunt->start_ns, 3300 * kUs);
  EXPECT_EQ(shunt->end_ns, 4400 * kUs);
}

TEST(SensorWindows, ARestartedChipHasNoWindowsBeforeItsRestart) {
  ConversionTiming t;
  t.origin_ns = t.valid_from_ns = 100 * kMs;
  EXPECT_FALSE(last_window(t, 0, Conversion::kBus, 100 * kMs + 500 * kUs));
  EXPECT_TRUE(last_window(t, 0, Conversion::kBus, 100 * kMs + 1100 * kUs));
}

TEST(Sensor, AConstantRailReadsExactlyItsQuantisedValue) {
  for (const auto& [id, l4t] : {std::pair{"jetson-orin-nano", 36}, std::pair{"jetson-agx-orin", 35}}) {
    const Chip c = chip(id, l4t);
    const ChannelSpec& channel = c.spec.monitors[0].channels[1];
    const std::string rail = rail_id(c.spec.monitors[0], channel);
    const PowerModel model(c.spec, with_override(c.spec, rail, RailState{5003, 1003}), kStart, ModelOptions{3, 0.03});
    const std::int32_t shunt_uv = ina3221_shunt_uv(1003, channel.shunt_uohm);
    for (std::int64_t t = 10 * kMs; t < 60 * kMs; t += 3 * kMs + 17) {
      const RailState r = read(c, model, 1, t);
      EXPECT_EQ(r.bus_mv, ina3221_bus_mv(5003)) << id;
      EXPECT_EQ(r.current_ma, ina3221_current_ma(shunt_uv, channel.shunt_uohm)) << id;
    }
  }
}

TEST(Sensor, L4t32AndIna238ReportAConstantRailUnchanged) {
  const Chip nano = chip("jetson-nano-4gb", 32);
  const PowerModel nano_model(nano.spec, with_override(nano.spec, "6-0040:1", RailState{4984, 641}), kStart,
                              ModelOptions{});
  const RailState n = read(nano, nano_model, 1, 500 * kMs);
  EXPECT_EQ(n.bus_mv, 4984);
  EXPECT_EQ(n.current_ma, 641);
  const BoardSpec thor = test::board("jetson-agx-thor", 38);
  const std::size_t ina238 = thor.monitors.size() - 1;
  const Chip t = chip("jetson-agx-thor", 38, ina238);
  const std::string vin = rail_id(thor.monitors[ina238], thor.monitors[ina238].channels[0]);
  const PowerModel thor_model(thor, with_override(thor, vin, RailState{19000, 1211}), kStart, ModelOptions{});
  const RailState v = read(t, thor_model, 0, 500 * kMs);
  EXPECT_EQ(v.bus_mv, 19000);
  EXPECT_EQ(v.current_ma, 1211);
}

TEST(Sensor, ASteppingRailReadsTheQuantisedAverageOfItsWindow) {
  const Chip c = chip("jetson-orin-nano", 36);
  const ChannelSpec& channel = c.spec.monitors[0].channels[0];  // VDD_IN, slot 0, 5 mOhm
  PowerModel model(c.spec, with_override(c.spec, "1-0040:1", RailState{5000, 1000}), kStart, ModelOptions{});
  // Slot 0's shunt window of cycle 10 is 67.1 .. 68.2 ms; step inside it at 67.5 ms.
  ASSERT_TRUE(model.update(67500 * kUs, with_override(c.spec, "1-0040:1", RailState{5000, 2000})));
  const std::optional<Window> w = last_window(c.timings[0], 0, Conversion::kShunt, 69 * kMs);
  ASSERT_TRUE(w);
  ASSERT_EQ(w->start_ns, 67100 * kUs);
  const double mean_ma = (1000.0 * 400 + 2000.0 * 700) / 1100;  // 1636.36 mA
  const std::int32_t shunt_uv = ina3221_shunt_uv_from_na(std::llround(mean_ma * 1e6), channel.shunt_uohm);
  const RailState r = read(c, model, 0, 69 * kMs);
  EXPECT_EQ(r.current_ma, ina3221_current_ma(shunt_uv, channel.shunt_uohm));
  EXPECT_EQ(r.current_ma, 1640);  // 8181.8 uV -> 205 x 40 uV -> 1640 mA
  // A window wholly after the step reads the new value.
  EXPECT_EQ(read(c, model, 0, 76 * kMs).current_ma, 2000);
}

TEST(Sensor, L4t32ReadingsRepeatWithinTheDeviceTreeRefreshPeriod) {
  const Chip nano = chip("jetson-nano-4gb", 32);
  EXPECT_EQ(nano.timings[0].cycle_ns(), 53760 * kUs);  // 64 x (140 + 140) us x 3
  const Chip tx2 = chip("jetson-tx2", 32);
  EXPECT_EQ(tx2.timings[0].cycle_ns(), 430080 * kUs);  // 512 x (140 + 140) us x 3
  PowerModel model(nano.spec, ModelControls{idle_state(nano.spec), 0, {}}, kStart, ModelOptions{5, 0.03});
  // Slot 1's shunt window: 26.88 .. 35.84 ms of every 53.76 ms cycle.
  auto expected_ma = [&](std::int64_t k) {
    const std::int64_t a = k * 53760 * kUs + 26880 * kUs;
    return static_cast<std::int32_t>(std::llround(model.charge_uc(1, a, a + 8960 * kUs) / 8.96));
  };
  for (std::int64_t t : {40 * kMs, 60 * kMs, 89 * kMs}) EXPECT_EQ(read(nano, model, 1, t).current_ma, expected_ma(0));
  for (std::int64_t t : {90 * kMs, 120 * kMs, 143 * kMs}) EXPECT_EQ(read(nano, model, 1, t).current_ma, expected_ma(1));
}

TEST(Sensor, AChangedSampleCountKeepsTheOldWindowUntilTheNewOneCompletes) {
  Chip c = chip("jetson-orin-nano", 36);
  PowerModel model(c.spec, with_override(c.spec, "1-0040:1", RailState{5000, 1000}), kStart, ModelOptions{});
  ASSERT_TRUE(model.update(100 * kMs, with_override(c.spec, "1-0040:1", RailState{5000, 3000})));
  c.timings.push_back(restarted_timing(c.spec.monitors[0], MonitorConfig{64, 1100}, 100 * kMs));
  // The new grid needs 64 x 2.2 ms = 140.8 ms for slot 0; until then the last old window (before 100 ms).
  EXPECT_EQ(read(c, model, 0, 150 * kMs).current_ma, 1000);
  EXPECT_EQ(read(c, model, 0, 241 * kMs).current_ma, 3000);
}

}  // namespace
}  // namespace energy::sim
