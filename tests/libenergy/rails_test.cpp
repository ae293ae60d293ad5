#include "energy/rails.h"

#include <gtest/gtest.h>

#include "energy/ina3221.h"
#include "energy/rail_total.h"

namespace energy {
namespace {

TEST(TotalRails, InputRailAloneWhenPresent) {
  auto rule = select_total_rails({"VDD_CPU_GPU_CV", "VDD_IN", "VDD_SOC"});
  EXPECT_EQ(rule.rail_indices, std::vector<size_t>{1});
  auto thor = select_total_rails({"VDD_GPU", "VDD_CPU_SOC_MSS", "VIN_SYS_5V0", "VIN"});
  EXPECT_EQ(thor.rail_indices, std::vector<size_t>{3});
  auto nano = select_total_rails({"POM_5V_GPU", "POM_5V_IN", "POM_5V_CPU"});
  EXPECT_EQ(nano.rail_indices, std::vector<size_t>{1});
}

TEST(TotalRails, AgxOrinLeavesOutTheRailFedFromVinSys5v0) {
  auto rule = select_total_rails({"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0", "VDDQ_VDD2_1V8AO"});
  EXPECT_EQ(rule.rail_indices, (std::vector<size_t>{0, 1, 2}));
  EXPECT_NE(rule.explanation.find("VDDQ_VDD2_1V8AO"), std::string::npos);
}

TEST(TotalRails, AgxXavierSumsAllRails) {
  auto rule = select_total_rails({"GPU", "CPU", "SOC", "CV", "VDDRQ", "SYS5V"});
  EXPECT_EQ(rule.rail_indices.size(), 6u);
}

TEST(Ina3221Averaging, FilterIsNMinusOneCyclesOfTheUpdateInterval) {
  EXPECT_EQ(ina3221_filter_ns(1, 7), 0);
  EXPECT_EQ(ina3221_filter_ns(16, 106), 99'375'000);  // 15 x 106 / 16 ms
  EXPECT_EQ(ina3221_filter_ns(4, 28), 21'000'000);
  EXPECT_EQ(ina3221_filter_ns(16, 0), 0) << "unknown update_interval";
  EXPECT_EQ(ina3221_filter_ns(0, 7), 0) << "unknown samples";
}

TEST(Ina3221Averaging, FilterFromTheExactCycle) {
  EXPECT_EQ(ina3221_filter_ns(512, 3, 140), 511 * 840'000);
  EXPECT_EQ(ina3221_filter_ns(16, 3, 1100), 15 * 6'600'000) << "not the 106 ms update_interval's 99.375 ms";
  EXPECT_EQ(ina3221_filter_ns(1, 3, 140), 0);
  EXPECT_EQ(ina3221_filter_ns(16, 0, 140), 0) << "unknown channel count";
}

// The shortest conversion first, then the smallest count.
TEST(Ina3221Averaging, ChoosesTheShortestConversionAndSmallestCountSpanningFourPeriods) {
  auto is = [](Ina3221Setting s, int64_t n, int64_t ct, int64_t ms) {
    return s.samples == n && s.conversion_us == ct && s.update_interval_ms == ms;
  };
  EXPECT_TRUE(is(ina3221_setting_for_period(3, 100), 512, 140, 430));  // 430.08 >= 400; 256 gives 215
  EXPECT_TRUE(is(ina3221_setting_for_period(3, 10), 64, 140, 54));     // 53.76 >= 40; 16 gives 13
  EXPECT_TRUE(is(ina3221_setting_for_period(3, 5), 64, 140, 54));      // 20: 16 gives 13.4
  EXPECT_TRUE(is(ina3221_setting_for_period(3, 1), 16, 140, 13));      // 13.44 >= 4
  EXPECT_TRUE(is(ina3221_setting_for_period(1, 100), 1024, 204, 418))  // 140 us: 1024 gives 287
      << "one channel";
  EXPECT_TRUE(is(ina3221_setting_for_period(2, 100), 1024, 140, 573));  // 512 gives 287
  EXPECT_TRUE(is(ina3221_setting_for_period(3, 1000), 1024, 1100, 6758));
  EXPECT_TRUE(is(ina3221_setting_for_period(3, 100000), 1024, 8244, 50651)) << "none reaches 400 s: the longest";
}

// 3 channels at 1.1 + 1.1 ms: update_interval 7 with one sample.
TEST(Ina3221Averaging, ChoosesTheSmallestCountWhoseUpdateIntervalSpansFourPeriods) {
  EXPECT_EQ(ina3221_samples_for_period(1, 7, 100), 64);  // 448 >= 400; 16 gives 112
  EXPECT_EQ(ina3221_samples_for_period(1, 7, 10), 16);   // 112 >= 40; 4 gives 28
  EXPECT_EQ(ina3221_samples_for_period(1, 7, 1000), 1024) << "none reaches 4 s: the largest";
  EXPECT_EQ(ina3221_samples_for_period(1, 7, 1), 1);
  EXPECT_EQ(ina3221_samples_for_period(16, 106, 100), 64) << "the cycle does not depend on the current count";
  EXPECT_EQ(ina3221_samples_for_period(64, 422, 100), 64);
  EXPECT_EQ(ina3221_samples_for_period(1, 2, 100), 256) << "one channel: 512 >= 400; 128 gives 256";
  EXPECT_EQ(ina3221_samples_for_period(1, 0, 100), 1) << "unknown update_interval: left as it is";
}

// One L4T 32 chip with one rail; board identity as /proc/device-tree gives it.
SensorInventory one_iio_chip() {
  SensorInventory inv;
  inv.chips.push_back(MonitorChip{"6-0040", MonitorDriver::kIna3221xIio, "/d", 0, 0, 0, 0, 0, ""});
  inv.rails.push_back(RailInfo{"POM_5V_IN", MonitorDriver::kIna3221xIio, "6-0040", 1, "/d", "v", "i", "p"});
  return inv;
}

BoardIdentity board(std::string model, std::vector<std::string> compatible) {
  BoardIdentity b;
  b.known = true;
  b.model = std::move(model);
  b.compatible = std::move(compatible);
  return b;
}

TEST(DeviceTreeAveraging, NanoIs64SamplesOf140Plus140UsOnThreeChannels) {
  auto inv = one_iio_chip();
  apply_device_tree_averaging(board("NVIDIA Jetson Nano Developer Kit", {"nvidia,p3448-0000", "nvidia,tegra210"}), inv);
  EXPECT_EQ(inv.chips[0].samples, 64);
  EXPECT_EQ(inv.chips[0].update_interval_ms, 54);  // 53.76 ms
  EXPECT_EQ(inv.chips[0].filter_ns, 63 * 840'000);
  EXPECT_EQ(inv.rails[0].filter_ns, 63 * 840'000);
  EXPECT_NE(inv.chips[0].averaging.find("0x7607"), std::string::npos) << inv.chips[0].averaging;
  EXPECT_TRUE(inv.notes.empty()) << "the reference gives the Nano's device tree";
}

TEST(DeviceTreeAveraging, AgxXavierAndTx2Are512Samples) {
  for (const auto& b : {board("Jetson-AGX", {"nvidia,p2888-0001", "nvidia,tegra194"}),
                        board("quill", {"nvidia,p3310-1000", "nvidia,tegra186"})}) {
    auto inv = one_iio_chip();
    apply_device_tree_averaging(b, inv);
    EXPECT_EQ(inv.chips[0].update_interval_ms, 430) << b.model;
    EXPECT_EQ(inv.rails[0].filter_ns, 511 * 840'000) << b.model;
    EXPECT_TRUE(inv.notes.empty()) << b.model;
  }
}

TEST(DeviceTreeAveraging, XavierNxIsAssumedToBeAgxXaviersAndSaysSo) {
  auto inv = one_iio_chip();
  apply_device_tree_averaging(board("NVIDIA Jetson Xavier NX Developer Kit", {"nvidia,p3668-0000", "nvidia,tegra194"}),
                              inv);
  EXPECT_EQ(inv.rails[0].filter_ns, 511 * 840'000);
  ASSERT_EQ(inv.notes.size(), 1u);
  EXPECT_NE(inv.notes[0].find("assumed for Xavier NX"), std::string::npos) << inv.notes[0];
}

TEST(DeviceTreeAveraging, AnUnknownBoardGetsTheStagingDefaultAsAnAssumption) {
  auto inv = one_iio_chip();
  apply_device_tree_averaging(board("", {"nvidia,p2180-1000", "nvidia,tegra210"}), inv);  // TX1
  EXPECT_EQ(inv.chips[0].update_interval_ms, 422);                                        // 64 x 3 x 2.2 ms
  EXPECT_EQ(inv.rails[0].filter_ns, 63 * 6'600'000);
  ASSERT_EQ(inv.notes.size(), 1u);
  EXPECT_NE(inv.notes[0].find("0x7727"), std::string::npos) << inv.notes[0];
  EXPECT_NE(inv.notes[0].find("assumed"), std::string::npos) << inv.notes[0];
}

TEST(DeviceTreeAveraging, HwmonAndIna238ChipsAreLeftAlone) {
  SensorInventory inv;
  inv.chips.push_back(MonitorChip{"1-0040", MonitorDriver::kIna3221Hwmon, "/h", 16, 106, 3, 1100, 99'375'000, "hwmon"});
  inv.chips.push_back(MonitorChip{"2-0045", MonitorDriver::kIna238Hwmon, "/t", 0, 0, 0, 0, 0, "none"});
  apply_device_tree_averaging(board("", {"nvidia,tegra234"}), inv);
  EXPECT_EQ(inv.chips[0].filter_ns, 99'375'000);
  EXPECT_EQ(inv.chips[1].filter_ns, 0);
  EXPECT_TRUE(inv.notes.empty());
}

}  // namespace
}  // namespace energy
