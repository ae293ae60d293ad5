// Sensors (sim/src/sensor.*): conversion windows, the running mean, quantisation.
#include "sensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "../time_units.h"
#include "energysim/chip_model.h"
#include "sim_test_util.h"

namespace energy::sim {
namespace {

constexpr std::int64_t kSensorStart = 0;

struct Chip {
  BoardSpec spec;
  std::size_t monitor = 0;
  std::vector<ConversionTiming> timings;

  const PowerMonitorSpec& monitor_spec() const { return spec.monitors[monitor]; }
  // Every monitor before this one, all of its channels enabled.
  std::size_t rail(int slot) const {
    std::size_t r = 0;
    for (std::size_t m = 0; m < monitor; ++m) r += spec.monitors[m].channels.size();
    return r + static_cast<std::size_t>(slot);
  }
  std::string rail_id(int slot) const {
    return sim::rail_id(monitor_spec(), monitor_spec().channels[static_cast<std::size_t>(slot)]);
  }
};

// Monitor `monitor` of the board with its conversion grid starting at kSensorStart (phase 0).
Chip chip(const std::string& id, int l4t, std::size_t monitor = 0, MonitorConfig config = {}) {
  Chip c{test::board(id, l4t), monitor, {}};
  c.timings.push_back(initial_timing(c.spec, c.spec.monitors[monitor], config, kSensorStart, 0.0));
  return c;
}

ModelControls with_override(const BoardSpec& spec, const std::string& id, RailState value) {
  ModelControls controls{idle_state(spec), 0, {}};
  controls.overrides[id] = value;
  return controls;
}

RailState read(const Chip& c, const PowerModel& model, int slot, std::int64_t t) {
  const PowerMonitorSpec& m = c.monitor_spec();
  return read_channel(model, c.rail(slot), m, m.channels[static_cast<std::size_t>(slot)], slot, c.timings, t);
}

double current_mean(const Chip& c, const PowerModel& model, int slot, std::int64_t t) {
  RegisterMemo fresh;
  return register_mean(model, c.rail(slot), slot, Conversion::kShunt, c.timings, t, fresh);
}

// One quantisation step of the channel's current as the driver reports it.
double current_lsb_ma(const Chip& c, int slot) {
  if (c.monitor_spec().layout != MonitorLayout::kIna3221Hwmon) return 1.0;
  return 40.0 * 1000.0 / static_cast<double>(c.monitor_spec().channels[static_cast<std::size_t>(slot)].shunt_uohm);
}

// A step of `slot`'s current from p0 to p1 at the start of its shunt
// conversion `k0`: m cycles later the register has folded m conversions of p1.
void expect_step_response(const Chip& c, int slot, std::int64_t k0, std::int32_t p0, std::int32_t p1) {
  const ConversionTiming& t = c.timings.back();
  PowerModel model(c.spec, with_override(c.spec, c.rail_id(slot), RailState{5000, p0}), kSensorStart, ModelOptions{});
  const std::int64_t t0 = conversion_window(t, slot, Conversion::kShunt, k0).start_ns;
  ASSERT_TRUE(model.update(t0, with_override(c.spec, c.rail_id(slot), RailState{5000, p1})));
  const double keep = 1.0 - 1.0 / t.samples;
  for (int m : {0, 1, 2, 5, 16, 64, 200, 1000}) {
    const double expected = p1 + (p0 - p1) * std::pow(keep, m);
    const std::int64_t at = t0 + m * t.cycle_ns();
    EXPECT_NEAR(current_mean(c, model, slot, at), expected, 1e-6 * p1) << c.spec.id << " m=" << m;
    EXPECT_NEAR(read(c, model, slot, at).current_ma, expected, current_lsb_ma(c, slot)) << c.spec.id << " m=" << m;
  }
}

TEST(SensorConversions, Ina3221CyclesThroughItsChannelsOneConversionAtATimeShuntThenBus) {
  ConversionTiming t;  // probe: 3 channels, N = 1, 1.1 ms + 1.1 ms
  EXPECT_EQ(t.cycle_ns(), 6600 * kUs);
  const std::optional<std::int64_t> shunt = last_conversion(t, 1, Conversion::kShunt, 10 * kMs);
  const std::optional<std::int64_t> bus = last_conversion(t, 1, Conversion::kBus, 10 * kMs);
  ASSERT_TRUE(bus && shunt);
  // Cycle 1 starts at 6.6 ms; channel 2's shunt is 8.8 .. 9.9 ms, its bus 9.9 .. 11 ms (not done at 10 ms).
  EXPECT_EQ(*shunt, 1);
  EXPECT_EQ(conversion_window(t, 1, Conversion::kShunt, *shunt).start_ns, 8800 * kUs);
  EXPECT_EQ(*bus, 0);
  EXPECT_EQ(conversion_window(t, 1, Conversion::kBus, *bus).start_ns, 3300 * kUs);
  EXPECT_EQ(conversion_window(t, 1, Conversion::kBus, *bus).end_ns, 4400 * kUs);
}

TEST(SensorConversions, AnIna3221ConvertsOneSampleAtATimeWhateverItsAveragingCount) {
  for (const auto& [id, l4t, cycle] :
       {std::tuple{"jetson-nano-4gb", 32, 840 * kUs}, std::tuple{"jetson-tx2", 32, 840 * kUs},
        std::tuple{"jetson-orin-nano", 36, 6600 * kUs}}) {
    const Chip c = chip(id, l4t, 0, MonitorConfig{16, 1100});
    EXPECT_EQ(c.timings[0].cycle_ns(), cycle) << id;
  }
  EXPECT_EQ(chip("jetson-nano-4gb", 32).timings[0].samples, 64);
  EXPECT_EQ(chip("jetson-tx2", 32).timings[0].samples, 512);
  EXPECT_EQ(chip("jetson-orin-nano", 36, 0, MonitorConfig{16, 1100}).timings[0].samples, 16);
}

TEST(SensorConversions, ARestartedChipHasNoConversionsBeforeItsRestart) {
  ConversionTiming t;
  t.origin_ns = t.valid_from_ns = 100 * kMs;
  EXPECT_FALSE(last_conversion(t, 0, Conversion::kShunt, 100 * kMs + 500 * kUs));
  EXPECT_EQ(last_conversion(t, 0, Conversion::kShunt, 100 * kMs + 1100 * kUs), 0);
}

TEST(Sensor, AConstantRailReadsExactlyItsQuantisedValue) {
  for (const auto& [id, l4t] : {std::pair{"jetson-orin-nano", 36}, std::pair{"jetson-agx-orin", 35}}) {
    for (int samples : {1, 16, 1024}) {
      const Chip c = chip(id, l4t, 0, MonitorConfig{samples, 1100});
      const ChannelSpec& channel = c.monitor_spec().channels[1];
      const PowerModel model(c.spec, with_override(c.spec, c.rail_id(1), RailState{5003, 1003}), kSensorStart,
                             ModelOptions{3, 0.03});
      const std::int32_t shunt_uv = ina3221_shunt_uv(1003, channel.shunt_uohm);
      for (std::int64_t t = 10 * kMs; t < 60 * kMs; t += 3 * kMs + 17) {
        const RailState r = read(c, model, 1, t);
        EXPECT_EQ(r.bus_mv, ina3221_bus_mv(5003)) << id << " N=" << samples;
        EXPECT_EQ(r.current_ma, ina3221_current_ma(shunt_uv, channel.shunt_uohm)) << id << " N=" << samples;
      }
    }
  }
}

TEST(Sensor, L4t32AndIna238ReportAConstantRailUnchanged) {
  const Chip nano = chip("jetson-nano-4gb", 32);
  const PowerModel nano_model(nano.spec, with_override(nano.spec, "6-0040:1", RailState{4984, 641}), kSensorStart,
                              ModelOptions{});
  const RailState n = read(nano, nano_model, 1, 500 * kMs);
  EXPECT_EQ(n.bus_mv, 4984);
  EXPECT_EQ(n.current_ma, 641);
  const BoardSpec thor = test::board("jetson-agx-thor", 38);
  const std::size_t ina238 = thor.monitors.size() - 1;
  const Chip t = chip("jetson-agx-thor", 38, ina238);
  const PowerModel thor_model(thor, with_override(thor, t.rail_id(0), RailState{19000, 1211}), kSensorStart,
                              ModelOptions{});
  const RailState v = read(t, thor_model, 0, 500 * kMs);
  EXPECT_EQ(v.bus_mv, 19000);
  EXPECT_EQ(v.current_ma, 1211);
}

TEST(Sensor, WithoutAveragingARegisterHoldsItsLastConversionsMean) {
  const Chip c = chip("jetson-orin-nano", 36);                // N = 1
  const ChannelSpec& channel = c.monitor_spec().channels[0];  // VDD_IN, slot 0, 5 mOhm
  PowerModel model(c.spec, with_override(c.spec, "1-0040:1", RailState{5000, 1000}), kSensorStart, ModelOptions{});
  // Slot 0's shunt conversion of cycle 10 is 66.0 .. 67.1 ms; step inside it at 66.4 ms.
  ASSERT_TRUE(model.update(66400 * kUs, with_override(c.spec, "1-0040:1", RailState{5000, 2000})));
  ASSERT_EQ(last_conversion(c.timings[0], 0, Conversion::kShunt, 69 * kMs), 10);
  ASSERT_EQ(conversion_window(c.timings[0], 0, Conversion::kShunt, 10).start_ns, 66000 * kUs);
  const double mean_ma = (1000.0 * 400 + 2000.0 * 700) / 1100;  // 1636.36 mA
  const std::int32_t shunt_uv = ina3221_shunt_uv_from_na(std::llround(mean_ma * 1e6), channel.shunt_uohm);
  const RailState r = read(c, model, 0, 69 * kMs);
  EXPECT_EQ(r.current_ma, ina3221_current_ma(shunt_uv, channel.shunt_uohm));
  EXPECT_EQ(r.current_ma, 1640);  // 8181.8 uV -> 205 x 40 uV -> 1640 mA
  // The next conversion (72.6 .. 73.7 ms) lies wholly after the step.
  EXPECT_EQ(read(c, model, 0, 73 * kMs).current_ma, 1640);
  EXPECT_EQ(read(c, model, 0, 74 * kMs).current_ma, 2000);
}

TEST(Sensor, AStepSettlesAsARunningMeanWithTheAveragingCount) {
  expect_step_response(chip("jetson-orin-nano", 36, 0, MonitorConfig{16, 1100}), 0, 40, 1000, 2000);
  expect_step_response(chip("jetson-agx-orin", 36, 0, MonitorConfig{16, 1100}), 1, 40, 2000, 500);
  expect_step_response(chip("jetson-nano-4gb", 32), 1, 1000, 1000, 2000);
  expect_step_response(chip("jetson-tx2", 32), 2, 100, 300, 1500);
}

TEST(Sensor, TheRunningMeanKeepsTheSumOfItsInputs) {
  // y_k = y_{k-1} + (x_k - y_{k-1}) / N sums to: sum x_k = sum y_k + (N - 1)(y_K - y_0).
  const Chip c = chip("jetson-orin-nano", 36, 0, MonitorConfig{16, 1100});
  PowerModel model(c.spec, ModelControls{idle_state(c.spec), 0, {}}, kSensorStart, ModelOptions{7, 0.03});
  ModelControls busy{idle_state(c.spec), 800, {}};
  ASSERT_TRUE(model.update(500 * kMs, busy));
  const ConversionTiming& t = c.timings[0];
  const int n = t.samples;
  RegisterMemo memo;
  auto y = [&](std::int64_t k) {
    return register_mean(model, c.rail(0), 0, Conversion::kShunt, c.timings, t.origin_ns + (k + 1) * t.cycle_ns(),
                         memo);
  };
  const std::int64_t first = 10;
  const std::int64_t last = 300;                              // across the load step at 500 ms (cycle 75)
  model.advance_to(t.origin_ns + (last + 2) * t.cycle_ns());  // the governors follow the step
  const double y0 = y(first);
  double sum_x = 0;
  double sum_y = 0;
  for (std::int64_t k = first + 1; k <= last; ++k) {
    sum_x += conversion_mean(model, c.rail(0), t, 0, Conversion::kShunt, k);
    sum_y += y(k);
  }
  EXPECT_NEAR(sum_x, sum_y + (n - 1) * (y(last) - y0), 1e-9 * sum_x);
  EXPECT_GT(y(last), 1.5 * y0);  // the step shows
}

TEST(Sensor, ACachedEvaluationAgreesWithAFreshOne) {
  // TX2: the device tree's N = 512 (the config is for hwmon only).
  for (const auto& [id, l4t, samples] : {std::tuple{"jetson-tx2", 32, 1}, std::tuple{"jetson-agx-orin", 36, 16},
                                         std::tuple{"jetson-orin-nano", 36, 256}}) {
    const Chip c = chip(id, l4t, 0, MonitorConfig{samples, 1100});
    PowerModel model(c.spec, ModelControls{idle_state(c.spec), 100, {}}, kSensorStart, ModelOptions{3, 0.03});
    ASSERT_TRUE(model.update(1200 * kMs, ModelControls{idle_state(c.spec), 900, {}}));
    const ChannelSpec& channel = c.monitor_spec().channels[0];
    ChannelMemo memo;
    for (std::int64_t t = 10 * kMs; t < 4000 * kMs; t += 97 * kMs + 13 * kUs) {
      const RailState cached = read_channel(model, c.rail(0), c.monitor_spec(), channel, 0, c.timings, t, memo);
      const RailState fresh = read(c, model, 0, t);
      EXPECT_NEAR(cached.current_ma, fresh.current_ma, current_lsb_ma(c, 0)) << id << " t=" << t;
      EXPECT_NEAR(cached.bus_mv, fresh.bus_mv, 8) << id << " t=" << t;
      EXPECT_NEAR(memo.shunt.value, current_mean(c, model, 0, t), 1e-7 * memo.shunt.value) << id << " t=" << t;
    }
  }
}

TEST(Sensor, AReadBeforeTheMemoEvaluatesAfreshAndKeepsTheMemo) {
  const Chip c = chip("jetson-nano-4gb", 32);
  PowerModel model(c.spec, ModelControls{idle_state(c.spec), 300, {}}, kSensorStart, ModelOptions{3, 0.03});
  RegisterMemo memo;
  const double late = register_mean(model, c.rail(0), 0, Conversion::kShunt, c.timings, 900 * kMs, memo);
  const RegisterMemo kept = memo;
  EXPECT_DOUBLE_EQ(register_mean(model, c.rail(0), 0, Conversion::kShunt, c.timings, 300 * kMs, memo),
                   current_mean(c, model, 0, 300 * kMs));
  EXPECT_EQ(memo.index, kept.index);
  EXPECT_DOUBLE_EQ(register_mean(model, c.rail(0), 0, Conversion::kShunt, c.timings, 900 * kMs, memo), late);
}

TEST(Sensor, AChangedSampleCountContinuesFromTheRegistersValue) {
  Chip c = chip("jetson-orin-nano", 36, 0, MonitorConfig{16, 1100});
  PowerModel model(c.spec, with_override(c.spec, "1-0040:1", RailState{5000, 1000}), kSensorStart, ModelOptions{});
  ASSERT_TRUE(model.update(66 * kMs, with_override(c.spec, "1-0040:1", RailState{5000, 3000})));
  // Mid-settling (5 conversions of 3000 mA folded), samples becomes 64 at 100 ms.
  const double at_write = current_mean(c, model, 0, 100 * kMs);
  EXPECT_NEAR(at_write, 3000 - 2000 * std::pow(15.0 / 16, 5), 1e-6);
  c.timings.push_back(restarted_timing(c.monitor_spec(), MonitorConfig{64, 1100}, 100 * kMs));
  // No new conversion yet: the register as it was.
  EXPECT_DOUBLE_EQ(current_mean(c, model, 0, 101 * kMs), at_write);
  for (int m : {1, 10, 100}) {
    const double expected = 3000 + (at_write - 3000) * std::pow(63.0 / 64, m);
    EXPECT_NEAR(current_mean(c, model, 0, 100 * kMs + int64_t{m} * 6600 * kUs), expected, 1e-6) << m;
  }
}

TEST(Sensor, TimingsAreDroppedOnceTheirSuccessorHasSettled) {
  const Chip c = chip("jetson-orin-nano", 36, 0, MonitorConfig{16, 1100});
  constexpr std::int64_t kCycle = 6600 * kUs;
  auto history = [&](std::int64_t second_restart_ns) {
    std::vector<ConversionTiming> timings = c.timings;
    timings.push_back(restarted_timing(c.monitor_spec(), MonitorConfig{4, 1100}, 100 * kMs));
    drop_unreachable_timings(timings);
    timings.push_back(restarted_timing(c.monitor_spec(), MonitorConfig{16, 1100}, second_restart_ns));
    drop_unreachable_timings(timings);
    return timings;
  };
  // N = 4 needs 20 x 4 conversions after its first, plus a cycle of margin: 82 cycles.
  EXPECT_EQ(history(100 * kMs + 81 * kCycle).size(), 3u);
  const std::vector<ConversionTiming> settled = history(100 * kMs + 82 * kCycle);
  ASSERT_EQ(settled.size(), 2u);
  EXPECT_EQ(settled[0].valid_from_ns, 100 * kMs);
}

}  // namespace
}  // namespace energy::sim
