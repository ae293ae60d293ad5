// Board-specific behaviour of the tree builder: quirks the reference calls
// out (AGX Orin NC / disabled channels), numbering, quantisation at the chip,
// INA238 units, link spelling and read-time evaluation.
#include "energysim/board_tree.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "energysim/materialize.h"
#include "sim_test_util.h"

namespace energy::sim {
namespace {

using test::build;

constexpr const char* kOrin35Second = "/sys/bus/i2c/devices/1-0041/hwmon/hwmon2/";
constexpr const char* kOrin36Second = "/sys/bus/i2c/devices/1-0041/hwmon/hwmon2/";

std::string read(const test::BuiltBoard& b, const std::string& path, const BoardState& state) {
  Result<std::string> content = b.tree.read(path, state);
  return content ? *content : "<" + content.error().describe() + ">";
}

std::string read(const test::BuiltBoard& b, const std::string& path) { return read(b, path, idle_state(b.spec)); }

TEST(BoardTree, AgxOrinL4t35ShowsNcLabelsOnTheSecondMonitor) {
  const test::BuiltBoard orin = build("jetson-agx-orin", 35);
  const std::string dir = kOrin35Second;
  EXPECT_EQ(read(orin, dir + "in1_label"), "NC\n");
  EXPECT_EQ(read(orin, dir + "in2_label"), "VDDQ_VDD2_1V8AO\n");
  EXPECT_EQ(read(orin, dir + "in3_label"), "NC\n");
  EXPECT_EQ(read(orin, dir + "in1_enable"), "1\n");
  EXPECT_EQ(read(orin, dir + "in1_input"), "0\n") << "NC channels read about 0";
  EXPECT_EQ(read(orin, dir + "update_interval"), "7\n");
}

TEST(BoardTree, AgxOrinL4t36DisabledChannelsHaveNoLabelAndFailWithEnodata) {
  const test::BuiltBoard orin = build("jetson-agx-orin", 36);
  const std::string dir = kOrin36Second;
  EXPECT_EQ(orin.tree.resolve(dir + "in1_label"), nullptr);
  EXPECT_EQ(orin.tree.resolve(dir + "in3_label"), nullptr);
  EXPECT_EQ(read(orin, dir + "in2_label"), "VDDQ_VDD2_1V8AO\n");
  for (const char* file : {"in1_input", "curr1_input", "in4_input", "in3_input", "curr3_input", "in6_input"}) {
    const Node* node = orin.tree.resolve(dir + file);
    ASSERT_NE(node, nullptr) << file << " exists on the board";
    EXPECT_EQ(node->fixed_errno(), ENODATA) << file;
    Result<std::string> content = orin.tree.read(dir + file, idle_state(orin.spec));
    ASSERT_FALSE(content);
    EXPECT_EQ(content.error().sys_errno, ENODATA);
  }
  EXPECT_EQ(read(orin, dir + "in1_enable"), "0\n");
  EXPECT_EQ(read(orin, dir + "update_interval"), "2\n") << "one enabled channel: 2.2 ms";
  EXPECT_EQ(read(orin, "/sys/bus/i2c/devices/1-0040/hwmon/hwmon0/update_interval"), "7\n");
}

TEST(BoardTree, AgxOrinL4t36SumLeavesOutTheSummationDisabledChannel) {
  const test::BuiltBoard orin = build("jetson-agx-orin", 36);
  const std::string dir = "/sys/bus/i2c/devices/1-0040/hwmon/hwmon0/";
  BoardState state = idle_state(orin.spec);
  ASSERT_TRUE(set_rail(state, orin.spec, "VDD_GPU_SOC", {19000, 1000}));  // 2000 uV
  ASSERT_TRUE(set_rail(state, orin.spec, "VDD_CPU_CV", {19000, 500}));    // 1000 uV
  ASSERT_TRUE(set_rail(state, orin.spec, "VIN_SYS_5V0", {5000, 2000}));   // ti,summation-disable
  EXPECT_EQ(read(orin, dir + "in7_label", state), "sum of shunt voltages\n");
  EXPECT_EQ(read(orin, dir + "in7_input", state), "3000\n");
  EXPECT_EQ(read(orin, dir + "curr4_input", state), "1500\n");
}

TEST(BoardTree, ObservedHwmonNumbersAreKeptAndOthersTakeTheLowestFree) {
  const test::BuiltBoard orin = build("jetson-agx-orin", 35);
  EXPECT_EQ(orin.plan.monitors.at(0).number, 3);
  EXPECT_EQ(orin.plan.monitors.at(1).number, 2);
  EXPECT_EQ(orin.plan.fan_hwmon, (std::vector<int>{0, 1}));
  EXPECT_EQ(read(orin, "/sys/class/hwmon/hwmon0/name"), "pwmfan\n");
  EXPECT_EQ(read(orin, "/sys/class/hwmon/hwmon1/name"), "pwm_tach\n");
  EXPECT_EQ(build("jetson-xavier-nx", 35).plan.monitors.at(0).number, 6);
}

TEST(BoardTree, HwmonOffsetShiftsEveryNumber) {
  const test::BuiltBoard orin = build("jetson-agx-orin", 35, TreeOptions{10, 0});
  EXPECT_EQ(orin.plan.monitors.at(0).number, 13);
  EXPECT_EQ(orin.plan.monitors.at(1).number, 12);
  EXPECT_EQ(read(orin, "/sys/bus/i2c/devices/1-0040/hwmon/hwmon13/in1_label"), "VDD_GPU_SOC\n");
  EXPECT_EQ(read(orin, "/sys/class/hwmon/hwmon10/name"), "pwmfan\n");
  EXPECT_EQ(orin.tree.resolve("/sys/class/hwmon/hwmon3"), nullptr);
}

TEST(BoardTree, IioOffsetShiftsDeviceNumbers) {
  const test::BuiltBoard tx2 = build("jetson-tx2", 32, TreeOptions{0, 4});
  EXPECT_EQ(read(tx2, "/sys/bus/i2c/drivers/ina3221x/0-0041/iio:device5/rail_name_0"), "VDD_IN\n");
  EXPECT_NE(tx2.tree.resolve("/sys/bus/iio/devices/iio:device4"), nullptr);
}

TEST(BoardTree, NegativeOffsetIsRejected) {
  EXPECT_FALSE(plan_tree(test::board("jetson-agx-orin", 36), TreeOptions{-1, 0}));
}

TEST(BoardTree, IioPowerIsTheTruncatedProductOfVoltageAndCurrent) {
  const test::BuiltBoard nano = build("jetson-nano-4gb", 32);
  BoardState state = idle_state(nano.spec);
  ASSERT_TRUE(set_rail(state, nano.spec, "POM_5V_IN", {4984, 641}));  // 3194.744 mW
  const std::string dir = "/sys/bus/i2c/drivers/ina3221x/6-0040/iio:device0/";
  EXPECT_EQ(read(nano, dir + "rail_name_1", state), "POM_5V_IN\n");
  EXPECT_EQ(read(nano, dir + "in_voltage1_input", state), "4984\n");
  EXPECT_EQ(read(nano, dir + "in_current1_input", state), "641\n");
  EXPECT_EQ(read(nano, dir + "in_power1_input", state), "3194\n");
  EXPECT_EQ(read(nano, dir + "in_power1_trigger_input", state), "3194\n");
  EXPECT_EQ(read(nano, dir + "ui_input_1", state), "4984 641\n");
  EXPECT_EQ(read(nano, dir + "crit_current_limit_1", state), "32760 ma\n");
}

TEST(BoardTree, IioRailNameFilesAreRootOnly) {
  const test::BuiltBoard nano = build("jetson-nano-4gb", 32);
  const std::string dir = "/sys/bus/i2c/drivers/ina3221x/6-0040/iio:device0/";
  EXPECT_EQ(nano.tree.resolve(dir + "rail_name_0")->mode(), 0600u);
  EXPECT_EQ(nano.tree.resolve(dir + "in_power0_input")->mode(), 0444u);
}

TEST(BoardTree, HwmonCurrentComesFromTheShuntVoltageOnFortyMicrovoltSteps) {
  const test::BuiltBoard nx = build("jetson-orin-nx", 36);
  BoardState state = idle_state(nx.spec);
  ASSERT_TRUE(set_rail(state, nx.spec, "VDD_IN", {5003, 1003}));  // 5015 uV over 5 mOhm
  const std::string dir = "/sys/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon0/";
  EXPECT_EQ(read(nx, dir + "in1_input", state), "5000\n") << "8 mV step";
  EXPECT_EQ(read(nx, dir + "in4_input", state), "5000\n") << "40 uV step";
  EXPECT_EQ(read(nx, dir + "curr1_input", state), "1000\n");
  EXPECT_EQ(read(nx, dir + "shunt1_resistor", state), "5000\n");
}

TEST(BoardTree, HwmonReportsFiveVoltsAndOneAmpThroughFiveMilliohmsExactly) {
  const test::BuiltBoard nano = build("jetson-orin-nano", 36);
  BoardState state = idle_state(nano.spec);
  ASSERT_TRUE(set_rail(state, nano.spec, "VDD_IN", {5000, 1000}));
  const std::string dir = "/sys/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon0/";
  EXPECT_EQ(read(nano, dir + "in1_input", state), "5000\n");
  EXPECT_EQ(read(nano, dir + "curr1_input", state), "1000\n");
}

TEST(BoardTree, Ina238ReportsMicrowattsAndHasNoLabelFile) {
  const test::BuiltBoard thor = build("jetson-agx-thor", 38);
  BoardState state = idle_state(thor.spec);
  ASSERT_TRUE(set_rail(state, thor.spec, "VIN", {20000, 1150}));
  const std::string dir = "/sys/bus/i2c/drivers/ina238/1-0044/hwmon/hwmon1/";
  EXPECT_EQ(read(thor, "/sys/bus/i2c/devices/1-0044/name", state), "ina238\n");
  EXPECT_EQ(read(thor, dir + "name", state), "ina238\n");
  EXPECT_EQ(read(thor, dir + "in1_input", state), "20000\n");
  EXPECT_EQ(read(thor, dir + "curr1_input", state), "1150\n");
  EXPECT_EQ(read(thor, dir + "power1_input", state), "23000000\n");
  EXPECT_EQ(read(thor, dir + "in0_input", state), "12\n") << "shunt mV across the assumed 10 mOhm";
  EXPECT_EQ(thor.tree.resolve(dir + "in1_label"), nullptr);
}

TEST(BoardTree, ThorGpusHaveNoOfNodeAndNoLoadFile) {
  const test::BuiltBoard thor = build("jetson-agx-thor", 38);
  for (const char* name : {"gpu-gpc-0", "gpu-nvd-0"}) {
    const std::string dir = std::string("/sys/class/devfreq/") + name;
    EXPECT_NE(thor.tree.resolve(dir + "/cur_freq"), nullptr);
    EXPECT_EQ(thor.tree.resolve(dir + "/device"), nullptr);
  }
  EXPECT_NE(thor.tree.resolve("/sys/class/devfreq/gpu-gpc-0/nvhost_podgov/load_target"), nullptr);
  for (const GpuSpec& gpu : thor.spec.gpus) EXPECT_TRUE(gpu.device_dir.empty());
}

TEST(BoardTree, GpuLoadFilesSitWhereEachGenerationPutsThem) {
  EXPECT_EQ(read(build("jetson-nano-4gb", 32), "/sys/devices/gpu.0/load"), "0\n");
  EXPECT_EQ(read(build("jetson-agx-orin", 35), "/sys/devices/platform/gpu.0/load"), "0\n");
  EXPECT_EQ(read(build("jetson-agx-orin", 36), "/sys/devices/platform/bus@0/17000000.gpu/load"), "0\n");
  const test::BuiltBoard nano = build("jetson-nano-4gb", 32);
  EXPECT_NE(nano.tree.resolve("/sys/devices/gpu.0/devfreq/57000000.gpu/cur_freq"), nullptr) << "alias";
}

TEST(BoardTree, RailGatedGpuReadsZeroFrequencyAtIdle) {
  const test::BuiltBoard orin = build("jetson-agx-orin", 35);
  EXPECT_EQ(read(orin, "/sys/class/devfreq/17000000.ga10b/cur_freq"), "0\n");
  EXPECT_EQ(read(orin, "/sys/devices/platform/gpu.0/is_railgated"), "1\n");
}

TEST(BoardTree, SysfsLinksUseTheKernelsRelativeSpelling) {
  const test::BuiltBoard orin = build("jetson-agx-orin", 36);
  const std::string devices = "devices/platform/bus@0/c240000.i2c/i2c-1/1-0040";
  const std::string client = "/sys/" + devices;
  EXPECT_EQ(orin.tree.find(client + "/hwmon/hwmon0/device")->link_target(), "../../../1-0040");
  EXPECT_EQ(orin.tree.find("/sys/class/hwmon/hwmon0")->link_target(), "../../" + devices + "/hwmon/hwmon0");
  EXPECT_EQ(orin.tree.find("/sys/bus/i2c/devices/1-0040")->link_target(), "../../../" + devices);
  EXPECT_EQ(orin.tree.find("/sys/devices/system/cpu/cpu5/cpufreq")->link_target(), "../cpufreq/policy4");
  EXPECT_EQ(orin.tree.find("/proc/device-tree")->link_target(), "/sys/firmware/devicetree/base");
}

TEST(BoardTree, TxTwoDenverClusterIsPolicyOneWithCpusOneAndTwo) {
  const test::BuiltBoard tx2 = build("jetson-tx2", 32);
  EXPECT_EQ(read(tx2, "/sys/devices/system/cpu/cpu2/cpufreq/related_cpus"), "1 2\n");
  EXPECT_EQ(read(tx2, "/sys/devices/system/cpu/cpu3/cpufreq/related_cpus"), "0 3 4 5\n");
  EXPECT_EQ(read(tx2, "/sys/class/devfreq/17000000.gp10b/max_freq"), "1122000000\n");
}

TEST(BoardTree, FilesAreEvaluatedAtReadTimeFromTheGivenState) {
  const test::BuiltBoard orin = build("jetson-agx-orin", 36);
  BoardState state = idle_state(orin.spec);
  const std::string curr = "/sys/bus/i2c/devices/1-0040/hwmon/hwmon0/curr3_input";
  EXPECT_EQ(read(orin, curr, state), "720\n");
  ASSERT_TRUE(set_rail(state, orin.spec, "1-0040:3", {5000, 1100}));
  EXPECT_EQ(read(orin, curr, state), "1100\n");
  state.cpu_online[11] = false;
  EXPECT_EQ(read(orin, "/sys/devices/system/cpu/online", state), "0-10\n");
  EXPECT_EQ(read(orin, "/sys/devices/system/cpu/cpu11/online", state), "0\n");
  EXPECT_EQ(read(orin, "/sys/devices/system/cpu/cpufreq/policy8/affected_cpus", state), "8 9 10\n");
}

TEST(BoardTree, SetRailRejectsAmbiguousDisabledAndUnknownNames) {
  BoardState state = idle_state(test::board("jetson-agx-orin", 35));
  Status nc = set_rail(state, test::board("jetson-agx-orin", 35), "NC", {0, 0});
  EXPECT_EQ(nc.error().code, ErrorCode::kInvalid);
  BoardState state36 = idle_state(test::board("jetson-agx-orin", 36));
  EXPECT_EQ(set_rail(state36, test::board("jetson-agx-orin", 36), "1-0041:1", {0, 0}).error().code,
            ErrorCode::kInvalid);
  Status unknown = set_rail(state36, test::board("jetson-agx-orin", 36), "VDD_NOPE", {0, 0});
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
  EXPECT_NE(unknown.error().message.find("VDD_GPU_SOC"), std::string::npos) << "lists the rails";
}

// Faults are injected per rail: every value file of every channel must carry its rail.
TEST(BoardTree, EveryChannelValueFileIsTaggedWithItsRail) {
  for (const CatalogEntry& entry : test::reference_catalog().entries()) {
    if (!entry.spec) continue;
    const test::BuiltBoard b = test::build(entry.board_id, entry.l4t);
    for (const RailFiles& f : rail_files(b.spec, b.plan)) {
      for (const std::string& path : {f.voltage_file, f.current_file, f.power_file}) {
        if (path.empty()) continue;
        const Node* node = b.tree.resolve(path);
        ASSERT_NE(node, nullptr) << path;
        EXPECT_EQ(node->rail_id(), f.rail_id) << path;
        EXPECT_EQ(node->rail_role(), RailFileRole::kValue) << path;
      }
      if (!f.label_file.empty()) {
        EXPECT_EQ(b.tree.resolve(f.label_file)->rail_role(), RailFileRole::kInfo) << f.label_file;
      }
    }
  }
}

TEST(BoardTree, MonitorPathsAreWhatUnbindingTheDeviceRemoves) {
  const test::BuiltBoard b = test::build("jetson-orin-nano", 36, TreeOptions{2, 0});
  const std::vector<std::string> paths = monitor_paths(b.spec, b.plan, 0);
  ASSERT_EQ(paths.size(), 4u);
  for (const std::string& path : paths) EXPECT_NE(b.tree.find(path), nullptr) << path;
  EXPECT_EQ(paths[3], "/sys/class/hwmon/hwmon2");
  EXPECT_TRUE(monitor_paths(b.spec, b.plan, 9).empty());
}

}  // namespace
}  // namespace energy::sim
