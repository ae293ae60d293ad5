// Golden discovery: for every board and L4T generation in the reference data,
// the simulator builds the sysfs tree and libenergy's discovery must find
// exactly the rails, drivers, module total, clock domains, thermal zones and
// identity the reference describes. Nothing here is typed by hand: the
// expectations come from the simulator's catalog of jetson-boards.yaml.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "../sim/sim_test_util.h"
#include "energy/board.h"
#include "energy/clocks.h"
#include "energy/context_probe.h"
#include "energy/ina3221.h"
#include "energy/rail_reader.h"
#include "energy/rail_total.h"
#include "energysim/board_state.h"
#include "energysim/board_tree.h"
#include "energysim/catalog.h"
#include "energysim/materialize.h"

namespace energy {
namespace {

struct Case {
  sim::BoardSpec spec;
  std::string dir;
};

const sim::Catalog& catalog() { return sim::test::reference_catalog(); }

std::string make_tree(const sim::BoardSpec& spec, const sim::TreeOptions& opts = {},
                      const sim::BoardState* state = nullptr) {
  char tmpl[] = "/tmp/energy-golden-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  auto plan = sim::plan_tree(spec, opts);
  auto tree = sim::build_board_tree(spec, *plan);
  EXPECT_TRUE(tree.ok()) << tree.error().describe();
  auto made = sim::materialize_tree(*tree, state != nullptr ? *state : sim::idle_state(spec), dir + "/root",
                                    {sim::ExistingRoot::kRefuse, spec.id, spec.l4t});
  EXPECT_TRUE(made.ok()) << made.error().describe();
  return dir;
}

bool is_rail(const sim::ChannelSpec& c) { return !c.disabled && !c.label.empty() && c.label != "NC"; }

std::set<std::string> expected_labels(const sim::BoardSpec& spec) {
  std::set<std::string> out;
  for (const auto& m : spec.monitors) {
    for (const auto& c : m.channels) {
      if (is_rail(c)) out.insert(m.layout == sim::MonitorLayout::kIna238Hwmon ? "VIN" : c.label);
    }
  }
  return out;
}

class GoldenDiscovery : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto [id, gen] = split(GetParam());
    auto spec = catalog().find(id, gen);
    ASSERT_TRUE(spec.ok()) << spec.error().describe();
    spec_ = *spec;
    dir_ = make_tree(spec_);
    root_ = std::make_unique<SysRoot>(dir_ + "/root");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  static std::pair<std::string, int> split(const std::string& p) {
    auto at = p.rfind('_');
    return {p.substr(0, at), std::stoi(p.substr(at + 1))};
  }
  sim::BoardSpec spec_;
  std::string dir_;
  std::unique_ptr<SysRoot> root_;
};

TEST_P(GoldenDiscovery, FindsExactlyTheConnectedEnabledRailsByLabel) {
  auto inv = discover_rails(*root_);
  std::set<std::string> found;
  for (const auto& r : inv.rails) found.insert(r.label);
  EXPECT_EQ(found, expected_labels(spec_));
  EXPECT_EQ(found.size(), inv.rails.size()) << "duplicate rails";
}

TEST_P(GoldenDiscovery, UsesTheDriverAndDeviceOfEachMonitor) {
  auto inv = discover_rails(*root_);
  for (const auto& r : inv.rails) {
    bool matched = false;
    for (const auto& m : spec_.monitors) {
      if (m.device_name() == r.device) matched = std::string(driver_name(r.driver)) == sim::driver_name(m.layout);
    }
    EXPECT_TRUE(matched) << r.label << " on " << r.device << " read as " << driver_name(r.driver);
  }
}

TEST_P(GoldenDiscovery, SkipsNotConnectedAndDisabledChannelsWithAReason) {
  auto inv = discover_rails(*root_);
  size_t expected = 0;
  for (const auto& m : spec_.monitors) {
    if (m.layout == sim::MonitorLayout::kIna238Hwmon) continue;
    for (const auto& c : m.channels) expected += is_rail(c) ? 0u : 1u;
  }
  EXPECT_EQ(inv.skipped.size(), expected);
  for (const auto& s : inv.skipped) EXPECT_FALSE(s.reason.empty());
}

TEST_P(GoldenDiscovery, ModuleTotalMatchesTheReference) {
  auto inv = discover_rails(*root_);
  std::vector<std::string> labels;
  for (const auto& r : inv.rails) labels.push_back(r.label);
  auto rule = select_total_rails(labels);
  std::set<std::string> total;
  for (size_t i : rule.rail_indices) total.insert(labels[i]);
  std::set<std::string> want(spec_.total_rails.begin(), spec_.total_rails.end());
  if (want.empty()) return;  // the reference names no total for this board
  EXPECT_EQ(total, want) << rule.explanation;
}

TEST_P(GoldenDiscovery, ReadsIdleValuesInTheDriversUnits) {
  auto inv = discover_rails(*root_);
  auto state = sim::idle_state(spec_);
  for (const auto& r : inv.rails) {
    RailReader reader(*root_, r);
    RailValue v = reader.read();
    ASSERT_EQ(v.err, 0) << r.label << ": " << v.err;
    EXPECT_GT(v.voltage_mv, 0) << r.label;
    if (r.driver == MonitorDriver::kIna3221Hwmon) {
      EXPECT_EQ(v.power_uw, int64_t{v.voltage_mv} * v.current_ma);
    }
    if (r.driver == MonitorDriver::kIna3221xIio) {
      EXPECT_EQ(v.power_uw, int64_t{v.voltage_mv} * v.current_ma / 1000 * 1000) << r.label;
    }
  }
}

TEST_P(GoldenDiscovery, FindsEveryCpuPolicyAndGpu) {
  auto clocks = discover_clocks(*root_);
  size_t cpus = 0, gpus = 0;
  for (const auto& d : clocks.domains) {
    cpus += d.kind == DomainKind::kCpu ? 1 : 0;
    gpus += d.kind == DomainKind::kGpu ? 1 : 0;
    if (d.kind != DomainKind::kEmc) {
      EXPECT_TRUE(d.writable) << d.name;
    }
    if (d.kind == DomainKind::kCpu) {
      EXPECT_FALSE(d.available_hz.empty()) << d.name;
    }
  }
  EXPECT_EQ(cpus, spec_.cpu.policies.size());
  EXPECT_EQ(gpus, spec_.gpus.size());
  EXPECT_EQ(clocks.thermal.size(), spec_.thermal_zones.size());
}

TEST_P(GoldenDiscovery, CpuPolicyStateIsReadInHertz) {
  auto clocks = discover_clocks(*root_);
  for (const auto& d : clocks.domains) {
    if (d.kind != DomainKind::kCpu) continue;
    auto st = read_domain(*root_, d);
    ASSERT_TRUE(st.cur_hz.has_value()) << d.name << ": " << st.error;
    EXPECT_EQ(*st.cur_hz % 1000, 0);
    EXPECT_TRUE(std::binary_search(d.available_hz.begin(), d.available_hz.end(), *st.max_hz)) << d.name;
    EXPECT_EQ(st.governor, spec_.cpu.default_governor);
  }
}

// The context poller's kept-open reads give what the `clocks` verb reads.
TEST_P(GoldenDiscovery, ContextProbeReadsWhatTheClocksVerbReads) {
  auto clocks = discover_clocks(*root_);
  ContextProbe probe(*root_, clocks);
  ASSERT_EQ(probe.domain_count(), clocks.domains.size());
  for (size_t i = 0; i < clocks.domains.size(); ++i) {
    auto st = read_domain(*root_, clocks.domains[i]);
    EXPECT_EQ(probe.domain_name(i), st.name);
    EXPECT_EQ(probe.read_frequency(i).number, st.cur_hz) << st.name;
    EXPECT_EQ(probe.read_frequency(i).number, st.cur_hz) << st.name << ": a second read of the open file";
    if (probe.has_governor(i)) {
      EXPECT_EQ(probe.read_governor(i).text.value_or(""), st.governor) << st.name;
    }
  }
  auto temps = read_thermal(*root_, clocks.thermal);
  ASSERT_EQ(probe.zone_count(), temps.size());
  for (size_t i = 0; i < temps.size(); ++i) {
    ContextValue v = probe.read_temperature(i);
    EXPECT_EQ(probe.zone_name(i).rfind(temps[i].type, 0), 0u);
    if (temps[i].gated) {
      EXPECT_FALSE(v.number.has_value()) << temps[i].type;
      EXPECT_EQ(v.text, std::string(kThermalGatedText)) << temps[i].type;
    } else {
      EXPECT_EQ(v.number, temps[i].temp_mc) << temps[i].type;
    }
  }
}

// The filter L4T 32's device-tree averaging implies (jetson-sysfs.md 1.6:
// Nano 0x7607 64 x (140 + 140) us, TX2 / AGX Xavier 0x7c07 512 x (140 + 140)
// us, Xavier NX assumed as AGX Xavier, others the staging default 0x7727
// 64 x (1.1 + 1.1) ms), three channels: (N - 1) x 3 x (CT_bus + CT_shunt).
int64_t expected_device_tree_filter_ns(const sim::BoardSpec& spec) {
  if (spec.id == "jetson-nano-4gb") return int64_t{63} * 3 * 280'000;
  if (spec.soc == "tegra186" || spec.soc == "tegra194") return int64_t{511} * 3 * 280'000;
  return int64_t{63} * 3 * 2'200'000;
}

// Every rail carries its chip's averaging: L4T 32 from the board's device
// tree, hwmon INA3221 at the probe default (samples 1) none, INA238 none.
TEST_P(GoldenDiscovery, RailsCarryTheirChipsAveragingFilter) {
  auto inv = discover_rails(*root_);
  apply_device_tree_averaging(identify_board(*root_), inv);
  ASSERT_FALSE(inv.chips.empty());
  for (const auto& r : inv.rails) {
    int64_t want = r.driver == MonitorDriver::kIna3221xIio ? expected_device_tree_filter_ns(spec_) : 0;
    EXPECT_EQ(r.filter_ns, want) << r.label << " on " << r.device;
  }
  for (const auto& c : inv.chips) {
    if (c.driver == MonitorDriver::kIna3221Hwmon) {
      EXPECT_EQ(c.samples, 1) << c.device;
      EXPECT_GT(c.update_interval_ms, 0) << c.device;
    }
    EXPECT_FALSE(c.averaging.empty()) << c.device;
  }
}

TEST_P(GoldenDiscovery, IdentifiesTheBoardThroughTheAbsoluteDeviceTreeLink) {
  auto id = identify_board(*root_);
  EXPECT_EQ(id.model, spec_.identity.model);
  EXPECT_EQ(id.l4t_release.substr(0, 2), std::to_string(spec_.l4t));
}

std::vector<std::string> all_boards() {
  std::vector<std::string> out;
  for (const auto& e : catalog().entries()) {
    if (e.spec.ok()) out.push_back(e.board_id + "_" + std::to_string(e.l4t));
  }
  return out;
}

std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

INSTANTIATE_TEST_SUITE_P(AllBoards, GoldenDiscovery, ::testing::ValuesIn(all_boards()), param_name);

TEST(GoldenDiscoveryCoverage, EveryRequiredBoardAndGenerationResolves) {
  for (const char* p :
       {"jetson-nano-4gb_32", "jetson-tx2_32", "jetson-agx-xavier_32", "jetson-agx-xavier_35", "jetson-xavier-nx_35",
        "jetson-agx-orin_35", "jetson-agx-orin_36", "jetson-orin-nx_36", "jetson-orin-nano_36", "jetson-agx-thor_38"}) {
    auto list = all_boards();
    EXPECT_NE(std::find(list.begin(), list.end(), p), list.end()) << p;
  }
}

TEST(GoldenDiscoveryEmpty, EmptyTreeIsANoSensorsStateNotAnError) {
  char tmpl[] = "/tmp/energy-empty-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  SysRoot root(dir);
  auto inv = discover_rails(root);
  EXPECT_TRUE(inv.rails.empty());
  ASSERT_FALSE(inv.notes.empty());
  EXPECT_NE(inv.notes.back().find("No power-monitor rails"), std::string::npos);
  auto clocks = discover_clocks(root);
  EXPECT_TRUE(clocks.domains.empty());
  EXPECT_FALSE(identify_board(root).known);
  std::filesystem::remove_all(dir);
}

TEST(GoldenDiscoveryRenumbered, HwmonNumbersDoNotMatter) {
  auto spec = catalog().find("jetson-agx-orin", 36);
  ASSERT_TRUE(spec.ok());
  std::string a = make_tree(*spec);
  std::string b = make_tree(*spec, sim::TreeOptions{7, 0});
  auto ra = discover_rails(SysRoot(a + "/root"));
  auto rb = discover_rails(SysRoot(b + "/root"));
  ASSERT_EQ(ra.rails.size(), rb.rails.size());
  for (size_t i = 0; i < ra.rails.size(); ++i) {
    EXPECT_EQ(ra.rails[i].label, rb.rails[i].label);
    EXPECT_NE(ra.rails[i].data_dir, rb.rails[i].data_dir);
  }
  std::filesystem::remove_all(a);
  std::filesystem::remove_all(b);
}

// ---- averaging on AGX Orin (L4T 36): 1-0040 has three channels, 1-0041 one

class GoldenAveraging : public ::testing::Test {
 protected:
  void SetUp() override {
    auto spec = catalog().find("jetson-agx-orin", 36);
    ASSERT_TRUE(spec.ok());
    spec_ = *spec;
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  SensorInventory discover_with_samples(int samples_0040) {
    sim::BoardState state = sim::idle_state(spec_);
    state.monitor_config["1-0040"].samples = samples_0040;
    dir_ = make_tree(spec_, {}, &state);
    root_ = std::make_unique<SysRoot>(dir_ + "/root");
    return discover_rails(*root_);
  }
  static const MonitorChip* chip(const SensorInventory& inv, const std::string& device) {
    for (const auto& c : inv.chips) {
      if (c.device == device) return &c;
    }
    return nullptr;
  }
  sim::BoardSpec spec_;
  std::string dir_;
  std::unique_ptr<SysRoot> root_;
};

TEST_F(GoldenAveraging, OneSampleMeansNoFilter) {
  auto inv = discover_with_samples(1);
  ASSERT_NE(chip(inv, "1-0040"), nullptr);
  EXPECT_EQ(chip(inv, "1-0040")->samples, 1);
  EXPECT_EQ(chip(inv, "1-0040")->update_interval_ms, 7);  // 3 x (1.1 + 1.1) ms
  for (const auto& r : inv.rails) EXPECT_EQ(r.filter_ns, 0) << r.label;
  EXPECT_EQ(inv.max_update_interval_ms, 7);
}

// The conversion time is the offered one closest to update_interval / (3 x 16
// x 2) = 1104 us: 1100; the filter is 15 exact 6.6 ms cycles, not 15/16 of
// the rounded 106 ms.
TEST_F(GoldenAveraging, SixteenSamplesFilterOverFifteenConversionCycles) {
  auto inv = discover_with_samples(16);
  const MonitorChip* c = chip(inv, "1-0040");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->samples, 16);
  EXPECT_EQ(c->update_interval_ms, 106);  // 16 x 3 x 2.2 ms = 105.6, rounded
  EXPECT_EQ(c->channels, 3);
  EXPECT_EQ(c->conversion_us, 1100);
  EXPECT_EQ(c->filter_ns, int64_t{15} * 6'600'000);
  for (const auto& r : inv.rails) {
    EXPECT_EQ(r.filter_ns, r.device == "1-0040" ? c->filter_ns : 0) << r.label;
  }
  EXPECT_EQ(inv.max_update_interval_ms, 106);
}

TEST_F(GoldenAveraging, AnUnreadableSamplesFileGivesNoFilterAndANote) {
  auto first = discover_with_samples(16);
  const MonitorChip* c = chip(first, "1-0040");
  ASSERT_NE(c, nullptr);
  std::filesystem::remove(root_->resolve(c->data_dir + "/samples").value());
  auto inv = discover_rails(*root_);
  for (const auto& r : inv.rails) EXPECT_EQ(r.filter_ns, 0) << r.label;
  bool noted = false;
  for (const auto& n : inv.notes)
    noted = noted || (n.find("1-0040") != std::string::npos && n.find("samples") != std::string::npos);
  EXPECT_TRUE(noted) << "no note names the device and the file";
}

TEST_F(GoldenAveraging, RefreshReadsWhatTheChipHasNow) {
  auto inv = discover_with_samples(1);
  const MonitorChip* c = chip(inv, "1-0040");
  ASSERT_NE(c, nullptr);
  std::ofstream(root_->resolve(c->data_dir + "/samples").value()) << "16\n";
  std::ofstream(root_->resolve(c->data_dir + "/update_interval").value()) << "106\n";
  refresh_hwmon_averaging(*root_, inv);
  EXPECT_EQ(chip(inv, "1-0040")->filter_ns, 99'000'000);
  for (const auto& r : inv.rails) EXPECT_EQ(r.filter_ns, r.device == "1-0040" ? 99'000'000 : 0) << r.label;
  EXPECT_EQ(inv.max_update_interval_ms, 106);
}

// ---- out-of-range readings: a read error naming the file and the value --

class GoldenRanges : public ::testing::Test {
 protected:
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  // The rail `label` of `board` at `l4t`, its file `which` (a board path of
  // the RailInfo) overwritten with `text`, read once.
  RailValue read_with(const std::string& board, int l4t, const std::string& label, std::string RailInfo::*which,
                      const std::string& text) {
    auto spec = catalog().find(board, l4t);
    EXPECT_TRUE(spec.ok());
    dir_ = make_tree(*spec);
    root_ = std::make_unique<SysRoot>(dir_ + "/root");
    for (const auto& r : discover_rails(*root_).rails) {
      if (r.label != label) continue;
      file_ = r.*which;
      std::ofstream(root_->resolve(file_).value(), std::ios::trunc) << text;
      reader_ = std::make_unique<RailReader>(*root_, r);
      return reader_->read();
    }
    ADD_FAILURE() << "no rail " << label;
    return RailValue{};
  }
  void expect_range_error(const RailValue& v, const std::string& value) {
    EXPECT_EQ(v.err, ERANGE) << "read " << v.power_uw << " uW, " << v.voltage_mv << " mV, " << v.current_ma << " mA";
    ASSERT_NE(reader_, nullptr);
    EXPECT_NE(reader_->last_error().find(file_ + ": " + value), std::string::npos) << reader_->last_error();
  }
  std::string dir_;
  std::string file_;
  std::unique_ptr<SysRoot> root_;
  std::unique_ptr<RailReader> reader_;
};

TEST_F(GoldenRanges, AHugeNegativeCurrentIsAReadErrorNotKiloamperes) {
  auto v = read_with("jetson-orin-nano", 36, "VDD_IN", &RailInfo::current_file, "-4000000000\n");
  expect_range_error(v, "-4000000000 mA");
}

TEST_F(GoldenRanges, Int64MaxIsAReadErrorNotMinusOneMilliampere) {
  auto v = read_with("jetson-orin-nano", 36, "VDD_IN", &RailInfo::current_file, "9223372036854775807\n");
  expect_range_error(v, "9223372036854775807 mA");
}

TEST_F(GoldenRanges, ABusVoltageAboveTheInaPinsIsAReadError) {
  auto v = read_with("jetson-orin-nano", 36, "VDD_IN", &RailInfo::voltage_file, "30000\n");
  expect_range_error(v, "30000 mV");
  auto neg = read_with("jetson-orin-nano", 36, "VDD_IN", &RailInfo::voltage_file, "-8\n");
  expect_range_error(neg, "-8 mV");
}

TEST_F(GoldenRanges, AnL4t32PowerFileBeyondTheChipIsAReadError) {
  auto v = read_with("jetson-nano-4gb", 32, "POM_5V_IN", &RailInfo::power_file, "5000000\n");
  expect_range_error(v, "5000000 mW");
}

TEST_F(GoldenRanges, AnIna238NegativePowerIsAReadError) {
  auto v = read_with("jetson-agx-thor", 38, "VIN", &RailInfo::power_file, "-1\n");
  expect_range_error(v, "-1 uW");
}

TEST_F(GoldenRanges, TrailingTextIsAReadErrorNotTheLeadingNumber) {
  auto v = read_with("jetson-orin-nano", 36, "VDD_IN", &RailInfo::current_file, "1000garbage\n");
  EXPECT_EQ(v.err, EINVAL);
  EXPECT_NE(reader_->last_error().find("1000garbage"), std::string::npos) << reader_->last_error();
}

TEST_F(GoldenRanges, ReadingsWithinTheChipsRangesAreNumbers) {
  auto v = read_with("jetson-orin-nano", 36, "VDD_IN", &RailInfo::current_file, "-163840\n");
  EXPECT_EQ(v.err, 0) << reader_->last_error();
  EXPECT_EQ(v.current_ma, -163840);
  EXPECT_EQ(v.power_uw, int64_t{v.voltage_mv} * -163840);
  EXPECT_TRUE(reader_->last_error().empty());
}

}  // namespace
}  // namespace energy
