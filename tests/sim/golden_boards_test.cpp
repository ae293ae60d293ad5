// Golden tests: every board x generation the simulator must support, built
// and materialised, checked against the reference (jetson-sysfs.md): names,
// labels, units, links, NUL-terminated device-tree strings, cpufreq layout,
// GPU devfreq names per generation.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>

#include "energysim/materialize.h"
#include "sim_test_util.h"

namespace energy::sim {
namespace {

namespace fs = std::filesystem;
using test::read_file;

struct Golden {
  const char* board;
  int l4t;
  const char* driver;                // `name` of the first i2c monitor
  const char* first_client;          // its <bus>-<addr4>
  std::vector<std::string> labels;   // every label / rail_name file, in monitor order
  std::vector<std::string> devfreq;  // GPU devfreq names
  const char* of_node;               // device/of_node/name; "" = none
  int policies;
  int cpus;
};

const std::vector<std::string> kNanoRails = {"POM_5V_GPU", "POM_5V_IN", "POM_5V_CPU"};
const std::vector<std::string> kTx2Rails = {"VDD_SYS_GPU", "VDD_SYS_SOC",    "VDD_4V0_WIFI", "VDD_IN",
                                            "VDD_SYS_CPU", "VDD_SYS_DDR",    "VDD_MUX",      "VDD_5V0_IO_SYS",
                                            "VDD_3V3_SYS", "VDD_3V3_IO_SLP", "VDD_1V8_IO",   "VDD_3V3_SYS_M2"};
const std::vector<std::string> kXavierRails = {"GPU", "CPU", "SOC", "CV", "VDDRQ", "SYS5V"};
const std::vector<std::string> kModuleRails = {"VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC"};
const std::vector<std::string> kOrin35Rails = {"VDD_GPU_SOC", "VDD_CPU_CV",      "VIN_SYS_5V0",
                                               "NC",          "VDDQ_VDD2_1V8AO", "NC"};
const std::vector<std::string> kOrin36Rails = {"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0", "VDDQ_VDD2_1V8AO"};
const std::vector<std::string> kThorRails = {"VDD_GPU", "VDD_CPU_SOC_MSS", "VIN_SYS_5V0"};  // INA238: no label

const Golden kGoldens[] = {
    {"jetson-nano-4gb", 32, "ina3221x", "6-0040", kNanoRails, {"57000000.gpu"}, "gpu", 1, 4},
    {"jetson-tx2", 32, "ina3221x", "0-0040", kTx2Rails, {"17000000.gp10b"}, "gp10b", 2, 6},
    {"jetson-agx-xavier", 32, "ina3221x", "1-0040", kXavierRails, {"17000000.gv11b"}, "gv11b", 4, 8},
    {"jetson-agx-xavier", 35, "ina3221", "1-0040", kXavierRails, {"17000000.gv11b"}, "gv11b", 4, 8},
    {"jetson-xavier-nx", 32, "ina3221x", "7-0040", kModuleRails, {"17000000.gv11b"}, "gv11b", 3, 6},
    {"jetson-xavier-nx", 35, "ina3221", "7-0040", kModuleRails, {"17000000.gv11b"}, "gv11b", 3, 6},
    {"jetson-agx-orin", 35, "ina3221", "1-0040", kOrin35Rails, {"17000000.ga10b"}, "ga10b", 3, 12},
    {"jetson-agx-orin", 36, "ina3221", "1-0040", kOrin36Rails, {"17000000.gpu"}, "gpu", 3, 12},
    {"jetson-orin-nx", 35, "ina3221", "1-0040", kModuleRails, {"17000000.ga10b"}, "ga10b", 2, 8},
    {"jetson-orin-nx", 36, "ina3221", "1-0040", kModuleRails, {"17000000.gpu"}, "gpu", 2, 8},
    {"jetson-orin-nano", 35, "ina3221", "1-0040", kModuleRails, {"17000000.ga10b"}, "ga10b", 2, 6},
    {"jetson-orin-nano", 36, "ina3221", "1-0040", kModuleRails, {"17000000.gpu"}, "gpu", 2, 6},
    {"jetson-agx-thor", 38, "ina3221", "1-0040", kThorRails, {"gpu-gpc-0", "gpu-nvd-0"}, "", 14, 14},
};

std::int64_t number(const std::string& text) { return std::stoll(text); }

std::vector<std::int64_t> numbers(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::int64_t> out;
  for (std::int64_t n = 0; in >> n;) out.push_back(n);
  return out;
}

// INA3221 arithmetic written out independently of the simulator's chip model.
std::int64_t on_step(double value, double step) { return std::llround(value / step) * static_cast<std::int64_t>(step); }

// One materialised tree per board x generation, shared by that entry's tests
// (which only read it) and removed at exit: creating ~500 files per tree is
// what takes the time.
struct Materialized {
  test::TempDir dir;
  test::BuiltBoard built;
  BoardState state;
};

const Materialized& materialized(const Golden& g) {
  static std::map<std::string, std::unique_ptr<Materialized>> cache;
  std::unique_ptr<Materialized>& entry = cache[std::string(g.board) + "/" + std::to_string(g.l4t)];
  if (entry) return *entry;
  test::BuiltBoard built = test::build(g.board, g.l4t);
  BoardState state = idle_state(built.spec);
  entry.reset(new Materialized{test::TempDir(), std::move(built), std::move(state)});
  Result<MaterializeReport> report =
      materialize_tree(entry->built.tree, entry->state, entry->dir.path(), {ExistingRoot::kRefuse, g.board, g.l4t});
  if (!report) ADD_FAILURE() << report.error().describe();
  return *entry;
}

class GoldenBoard : public ::testing::TestWithParam<Golden> {
 protected:
  void SetUp() override { m_ = &materialized(GetParam()); }
  std::string at(const std::string& tree_path) const { return m_->dir.path() + tree_path; }
  std::string file(const std::string& tree_path) const { return read_file(at(tree_path)); }
  const RailState& rail(const RailFiles& f) const { return m_->state.rails.at(f.rail_id); }
  std::vector<RailFiles> rails() const { return rail_files(m_->built.spec, m_->built.plan); }
  const ChannelSpec& channel(const RailFiles& f) const;

  const Materialized* m_ = nullptr;
};

const ChannelSpec& GoldenBoard::channel(const RailFiles& f) const {
  for (const PowerMonitorSpec& m : m_->built.spec.monitors) {
    for (const ChannelSpec& c : m.channels) {
      if (rail_id(m, c) == f.rail_id) return c;
    }
  }
  throw std::logic_error("no channel " + f.rail_id);
}

TEST_P(GoldenBoard, FirstMonitorNamesItsDriverAndIsLinkedFromTheDriverDirectory) {
  const Golden& g = GetParam();
  EXPECT_EQ(file("/sys/bus/i2c/devices/" + std::string(g.first_client) + "/name"), std::string(g.driver) + "\n");
  EXPECT_TRUE(fs::is_symlink(at("/sys/bus/i2c/drivers/" + std::string(g.driver) + "/" + g.first_client)));
  EXPECT_TRUE(fs::is_symlink(at("/sys/bus/i2c/devices/" + std::string(g.first_client))));
}

TEST_P(GoldenBoard, LabelFilesNameTheReferenceRailsInOrder) {
  std::vector<std::string> labels;
  for (const RailFiles& f : rails()) {
    if (!f.label_file.empty()) labels.push_back(file(f.label_file));
  }
  std::vector<std::string> expected;
  for (const std::string& label : GetParam().labels) expected.push_back(label + "\n");
  EXPECT_EQ(labels, expected);
}

TEST_P(GoldenBoard, RailFilesHoldValuesInTheUnitsOfTheirDriver) {
  for (const RailFiles& f : rails()) {
    if (f.disabled) continue;
    SCOPED_TRACE(f.rail_id);
    const RailState& r = rail(f);
    const std::int64_t shunt_uohm = channel(f).shunt_uohm;
    switch (f.layout) {
      case MonitorLayout::kIna3221xIio:  // mV, mA, mW = trunc(mV * mA / 1000)
        EXPECT_EQ(number(file(f.voltage_file)), r.bus_mv);
        EXPECT_EQ(number(file(f.current_file)), r.current_ma);
        EXPECT_EQ(number(file(f.power_file)), std::int64_t{r.bus_mv} * r.current_ma / 1000);
        break;
      case MonitorLayout::kIna3221Hwmon: {  // mV on 8 mV steps, mA from the shunt voltage on 40 uV steps
        const double true_uv = static_cast<double>(r.current_ma) * static_cast<double>(shunt_uohm) / 1000.0;
        const std::int64_t shunt_uv = on_step(true_uv, 40);
        EXPECT_EQ(number(file(f.voltage_file)), on_step(r.bus_mv, 8));
        EXPECT_EQ(number(file(f.current_file)),
                  std::llround(static_cast<double>(shunt_uv) * 1000.0 / static_cast<double>(shunt_uohm)));
        EXPECT_TRUE(f.power_file.empty());
        break;
      }
      case MonitorLayout::kIna238Hwmon:  // mV, mA, uW
        EXPECT_EQ(number(file(f.voltage_file)), r.bus_mv);
        EXPECT_EQ(number(file(f.current_file)), r.current_ma);
        EXPECT_EQ(number(file(f.power_file)), std::int64_t{r.bus_mv} * r.current_ma);
        break;
    }
  }
}

TEST_P(GoldenBoard, SymlinksAreRelativeAndResolveInsideTheRoot) {
  const fs::path root = fs::canonical(m_->dir.path());
  int links = 0;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_symlink() || entry.path() == root / "proc/device-tree") continue;
    ++links;
    const std::string target = fs::read_symlink(entry.path()).string();
    EXPECT_NE(target.front(), '/') << entry.path();
    std::error_code ec;
    const fs::path resolved = fs::canonical(entry.path(), ec);
    EXPECT_FALSE(ec) << entry.path() << " -> " << target << " dangles";
    EXPECT_EQ(resolved.string().rfind(root.string() + "/", 0), 0u) << entry.path() << " leaves the root";
  }
  EXPECT_GT(links, 10);
}

TEST_P(GoldenBoard, ProcDeviceTreeIsAnAbsoluteLinkToTheFirmwareTree) {
  EXPECT_EQ(fs::read_symlink(at("/proc/device-tree")).string(), "/sys/firmware/devicetree/base");
}

TEST_P(GoldenBoard, DeviceTreeStringsAreNulTerminated) {
  const std::string model = file("/sys/firmware/devicetree/base/model");
  ASSERT_GT(model.size(), 1u);
  EXPECT_EQ(model.back(), '\0');
  EXPECT_EQ(model.find('\0'), model.size() - 1);
  EXPECT_EQ(model.find('\n'), std::string::npos);
  const std::string compatible = file("/sys/firmware/devicetree/base/compatible");
  ASSERT_FALSE(compatible.empty());
  EXPECT_EQ(compatible.back(), '\0');
  EXPECT_EQ(compatible.find(std::string(2, '\0')), std::string::npos) << "no empty entries";
  EXPECT_NE(compatible.find("nvidia,tegra"), std::string::npos);
}

TEST_P(GoldenBoard, CpufreqPoliciesAndPerCpuLinksFollowTheClusters) {
  const Golden& g = GetParam();
  int policies = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(at("/sys/devices/system/cpu/cpufreq"))) {
    policies += e.path().filename().string().rfind("policy", 0) == 0 ? 1 : 0;
  }
  EXPECT_EQ(policies, g.policies);
  EXPECT_EQ(file("/sys/devices/system/cpu/present"), "0-" + std::to_string(g.cpus - 1) + "\n");
  for (int cpu = 0; cpu < g.cpus; ++cpu) {
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu);
    const std::string target = fs::read_symlink(at(dir + "/cpufreq")).string();
    ASSERT_EQ(target.rfind("../cpufreq/policy", 0), 0u) << target;
    const std::vector<std::int64_t> related = numbers(file(dir + "/cpufreq/related_cpus"));
    EXPECT_NE(std::find(related.begin(), related.end(), cpu), related.end()) << dir;
    EXPECT_EQ(file(dir + "/online"), "1\n");
  }
}

TEST_P(GoldenBoard, CpuFrequencyFilesAreKilohertzInKernelFormat) {
  const std::string dir = "/sys/devices/system/cpu/cpu0/cpufreq/";
  const std::string table = file(dir + "scaling_available_frequencies");
  ASSERT_GE(table.size(), 3u);
  EXPECT_EQ(table.substr(table.size() - 2), " \n") << "cpufreq lists end with a space";
  const std::vector<std::int64_t> khz = numbers(table);
  EXPECT_TRUE(std::is_sorted(khz.begin(), khz.end()));
  EXPECT_GE(khz.front(), 100000);
  EXPECT_LE(khz.back(), 3000000);
  EXPECT_EQ(number(file(dir + "cpuinfo_max_freq")), khz.back());
  EXPECT_EQ(file(dir + "scaling_governor"), "schedutil\n");
}

TEST_P(GoldenBoard, GpuDevfreqNamesFollowTheGeneration) {
  const Golden& g = GetParam();
  std::set<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(at("/sys/class/devfreq"))) {
    if (e.path().filename() != "bwmgr") names.insert(e.path().filename().string());  // Thor's EMC (emc_test.cpp)
  }
  EXPECT_EQ(names, std::set<std::string>(g.devfreq.begin(), g.devfreq.end()));
  for (const std::string& name : g.devfreq) {
    const std::string dir = "/sys/class/devfreq/" + name;
    const std::string of_node = dir + "/device/of_node/name";
    if (std::string(g.of_node).empty()) {
      EXPECT_FALSE(test::exists_no_follow(at(of_node)));
    } else {
      EXPECT_EQ(file(of_node), std::string(g.of_node) + '\0');
    }
    const std::string table = file(dir + "/available_frequencies");
    EXPECT_NE(table.substr(table.size() - 2), " \n") << "devfreq lists drop the trailing space";
    EXPECT_GT(numbers(table).front(), 1000000) << "Hz, not kHz";
    EXPECT_EQ(file(dir + "/governor"), "nvhost_podgov\n");
  }
}

TEST_P(GoldenBoard, ThermalZonesHaveATypeAndAMilliDegreeTemperature) {
  int zones = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(at("/sys/class/thermal"))) {
    ++zones;
    const std::string dir = "/sys/class/thermal/" + e.path().filename().string();
    EXPECT_GT(file(dir + "/type").size(), 1u);
    const std::int64_t mc = number(file(dir + "/temp"));
    EXPECT_TRUE(mc == 0 || mc == -256000 || (mc >= 10000 && mc <= 100000)) << dir << " " << mc;
  }
  EXPECT_GE(zones, 5);
}

TEST_P(GoldenBoard, ReleaseFileNamesTheGeneration) {
  const std::string release = file("/etc/nv_tegra_release");
  EXPECT_EQ(release.rfind("# R" + std::to_string(GetParam().l4t) + " (release), REVISION: ", 0), 0u) << release;
  EXPECT_EQ(release.find('<'), std::string::npos) << "no placeholders left: " << release;
}

TEST_P(GoldenBoard, MarkerNamesBoardAndGeneration) {
  const std::string marker = file("/.energyd-sim");
  EXPECT_EQ(marker.rfind("energyd-sim 1\nboard " + std::string(GetParam().board) + "\nl4t " +
                             std::to_string(GetParam().l4t) + "\n",
                         0),
            0u)
      << marker;
}

TEST_P(GoldenBoard, FanHwmonThatIsNotAPowerMonitorExistsFromL4t35) {
  std::set<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(at("/sys/class"))) {
    if (e.path().filename() != "hwmon") continue;
    for (const fs::directory_entry& hwmon : fs::directory_iterator(e.path())) {
      names.insert(read_file(hwmon.path().string() + "/name"));
    }
  }
  if (GetParam().l4t >= 35) {
    EXPECT_EQ(names.count("pwmfan\n"), 1u);
  } else {
    EXPECT_TRUE(names.empty());
    EXPECT_EQ(file("/sys/devices/pwm-fan/target_pwm"), "0\n");
  }
}

std::string golden_name(const ::testing::TestParamInfo<Golden>& info) {
  std::string name = std::string(info.param.board) + "_l4t" + std::to_string(info.param.l4t);
  for (char& c : name) c = c == '-' ? '_' : c;
  return name;
}

INSTANTIATE_TEST_SUITE_P(EveryBoard, GoldenBoard, ::testing::ValuesIn(kGoldens), golden_name);

}  // namespace
}  // namespace energy::sim
