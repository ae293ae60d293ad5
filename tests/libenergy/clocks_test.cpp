// Frequency and CPU-list values read from clock files (issue 19: values out
// of any plausible range are unknown, never overflowed numbers).
#include "energy/clocks.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "energy/sysroot.h"

namespace energy {
namespace {

TEST(FrequencyHz, ScalesPlausibleValues) {
  EXPECT_EQ(frequency_hz(1'510'400, 1000), 1'510'400'000);
  EXPECT_EQ(frequency_hz(624'750'000, 1), 624'750'000);
  EXPECT_EQ(frequency_hz(0, 1000), 0);
}

TEST(FrequencyHz, NegativeOrBeyondAHundredGigahertzIsUnknownNotAnOverflow) {
  EXPECT_FALSE(frequency_hz(-1, 1000));
  EXPECT_FALSE(frequency_hz(std::numeric_limits<int64_t>::max(), 1000));  // the fuzzer's finding: signed overflow
  EXPECT_FALSE(frequency_hz(kMaxPlausibleHz / 1000 + 1, 1000));
  EXPECT_EQ(frequency_hz(kMaxPlausibleHz / 1000, 1000), kMaxPlausibleHz);
}

TEST(CpuList, RangesEndingFarBeyondAnyCpuAreSkippedNotLooped) {
  EXPECT_EQ(parse_cpu_list("0-3,6"), (std::vector<int>{0, 1, 2, 3, 6}));
  // A range ending at INT64_MAX overflowed its loop counter (fuzz finding).
  EXPECT_EQ(parse_cpu_list("9223372036854775807-9223372036854775807,1"), (std::vector<int>{1}));
  EXPECT_EQ(parse_cpu_list("4095,4096"), (std::vector<int>{4095}));
}

// A board tree under a temp directory, removed at the end.
class EmcTree : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/energy-emc-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void put(const std::string& path, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(dir_ + path).parent_path());
    std::ofstream(dir_ + path) << text << "\n";
  }
  DomainState read_emc() {
    SysRoot root(dir_);
    auto inv = discover_clocks(root);
    for (const auto& d : inv.domains)
      if (d.kind == DomainKind::kEmc) return read_domain(root, d);
    ADD_FAILURE() << "no EMC domain discovered";
    return {};
  }
  std::string dir_;
};

// A listed 0 Hz is no frequency: it is dropped, the real ones are kept.
TEST_F(EmcTree, AZeroInAnAvailableFrequencyListIsDropped) {
  put("/sys/class/devfreq/17000000.gpu/available_frequencies", "0 306000000 0 612000000");
  put("/sys/class/devfreq/17000000.gpu/cur_freq", "306000000");
  put("/sys/class/devfreq/17000000.gpu/min_freq", "306000000");
  put("/sys/class/devfreq/17000000.gpu/max_freq", "612000000");
  put("/sys/class/devfreq/17000000.gpu/governor", "nvhost_podgov");
  put("/sys/class/devfreq/17000000.gpu/device/of_node/name", "gv11b");
  SysRoot root(dir_);
  auto inv = discover_clocks(root);
  bool found = false;
  for (const auto& d : inv.domains) {
    if (d.kind != DomainKind::kGpu) continue;
    found = true;
    EXPECT_EQ(d.available_hz, (std::vector<int64_t>{306000000, 612000000}));
  }
  EXPECT_TRUE(found) << "no GPU domain discovered";
}

// T210 (Nano, L4T 32): the rate in clk/override.emc, the limits in
// tegra_bwmgr (jetson-sysfs.md 3.5), not beside the rate.
TEST_F(EmcTree, NanoReadsTheLimitsFromTegraBwmgr) {
  put("/sys/kernel/debug/clk/override.emc/clk_rate", "1600000000");
  put("/sys/kernel/debug/clk/override.emc/clk_state", "0");
  put("/sys/kernel/debug/tegra_bwmgr/emc_min_rate", "204000000");
  put("/sys/kernel/debug/tegra_bwmgr/emc_max_rate", "1600000000");
  auto s = read_emc();
  EXPECT_EQ(s.cur_hz, std::optional<int64_t>(1600000000));
  EXPECT_EQ(s.min_hz, std::optional<int64_t>(204000000));
  EXPECT_EQ(s.max_hz, std::optional<int64_t>(1600000000));
  EXPECT_EQ(s.error, "");
}

// T186/T194/T234: everything beside the rate in bpmp's clk/emc; a
// tegra_bwmgr directory, were there one, is not consulted.
TEST_F(EmcTree, BpmpReadsTheLimitsBesideTheRate) {
  put("/sys/kernel/debug/bpmp/debug/clk/emc/rate", "2133000000");
  put("/sys/kernel/debug/bpmp/debug/clk/emc/min_rate", "204000000");
  put("/sys/kernel/debug/bpmp/debug/clk/emc/max_rate", "2133000000");
  put("/sys/kernel/debug/tegra_bwmgr/emc_min_rate", "1");
  put("/sys/kernel/debug/tegra_bwmgr/emc_max_rate", "2");
  auto s = read_emc();
  EXPECT_EQ(s.cur_hz, std::optional<int64_t>(2133000000));
  EXPECT_EQ(s.min_hz, std::optional<int64_t>(204000000));
  EXPECT_EQ(s.max_hz, std::optional<int64_t>(2133000000));
}

// T210 without tegra_bwmgr (debugfs only partly there): the limits are
// unknown, not zero, and the current rate is still read.
TEST_F(EmcTree, NanoWithoutTegraBwmgrHasUnknownLimits) {
  put("/sys/kernel/debug/clk/override.emc/clk_rate", "800000000");
  auto s = read_emc();
  EXPECT_EQ(s.cur_hz, std::optional<int64_t>(800000000));
  EXPECT_FALSE(s.min_hz.has_value());
  EXPECT_FALSE(s.max_hz.has_value());
}

}  // namespace
}  // namespace energy
