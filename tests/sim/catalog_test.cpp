#include "energysim/catalog.h"

#include <gtest/gtest.h>

#include <fstream>

#include "sim_test_util.h"

namespace energy::sim {
namespace {

bool has_note(const BoardSpec& spec, const std::string& text) {
  for (const std::string& note : spec.notes) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

Result<Catalog> load_text(const test::TempDir& dir, const std::string& yaml) {
  const std::string path = dir / "boards.yaml";
  std::ofstream(path) << yaml;
  return Catalog::load(path);
}

constexpr const char* kBoardHeader =
    "schema_version: 1\n"
    "boards:\n"
    "  - id: test-board\n"
    "    soc: tegra234\n"
    "    generations:\n"
    "      l4t36:\n"
    "        power_monitors:\n";

TEST(Catalog, ResolvesEveryBoardAndGenerationTheSimulatorSupports) {
  const std::pair<const char*, int> entries[] = {
      {"jetson-nano-4gb", 32},  {"jetson-tx2", 32},       {"jetson-agx-xavier", 32}, {"jetson-agx-xavier", 35},
      {"jetson-xavier-nx", 32}, {"jetson-xavier-nx", 35}, {"jetson-agx-orin", 35},   {"jetson-agx-orin", 36},
      {"jetson-orin-nx", 35},   {"jetson-orin-nx", 36},   {"jetson-orin-nano", 35},  {"jetson-orin-nano", 36},
      {"jetson-agx-thor", 38},
  };
  for (const auto& [id, l4t] : entries) {
    Result<BoardSpec> spec = test::reference_catalog().find(id, l4t);
    ASSERT_TRUE(spec) << id << " " << l4t << ": " << spec.error().describe();
    EXPECT_EQ(spec->l4t, l4t);
    EXPECT_FALSE(spec->monitors.empty());
    EXPECT_FALSE(spec->total_rails.empty());
    EXPECT_FALSE(spec->cpu.policies.empty());
    EXPECT_FALSE(spec->gpus.empty());
    EXPECT_FALSE(spec->thermal_zones.empty());
  }
}

TEST(Catalog, GenerationsWithoutPowerMonitorsAreReportedAsNotSimulated) {
  Result<BoardSpec> spec = test::reference_catalog().find("jetson-agx-orin", 39);
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(spec.error().message.find("power_monitors"), std::string::npos);
}

TEST(Catalog, UnknownBoardErrorListsTheKnownBoards) {
  Result<BoardSpec> spec = test::reference_catalog().find("jetson-nope", 36);
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error().code, ErrorCode::kNotFound);
  EXPECT_NE(spec.error().message.find("jetson-nope"), std::string::npos);
  EXPECT_NE(spec.error().message.find("jetson-agx-thor"), std::string::npos);
}

TEST(Catalog, MissingGenerationErrorListsTheBoardsGenerations) {
  Result<BoardSpec> spec = test::reference_catalog().find("jetson-nano-4gb", 36);
  ASSERT_FALSE(spec);
  EXPECT_NE(spec.error().message.find("has: 32"), std::string::npos) << spec.error().message;
}

TEST(Catalog, ParseGenerationAcceptsANumberOrAnL4tPrefix) {
  EXPECT_EQ(*parse_generation("36"), 36);
  EXPECT_EQ(*parse_generation("l4t36"), 36);
  EXPECT_EQ(*parse_generation("L4T32"), 32);
  for (const char* bad : {"", "l4t", "r36", "36.4", "-1", "l4t 36"}) {
    Result<int> parsed = parse_generation(bad);
    EXPECT_FALSE(parsed) << bad;
  }
}

TEST(Catalog, MissingFileIsNotFound) {
  test::TempDir dir;
  Result<Catalog> catalog = Catalog::load(dir / "absent.yaml");
  ASSERT_FALSE(catalog);
  EXPECT_EQ(catalog.error().code, ErrorCode::kNotFound);
}

TEST(Catalog, MalformedYamlIsAParseErrorNamingTheFile) {
  test::TempDir dir;
  Result<Catalog> catalog = load_text(dir, "boards: [\n");
  ASSERT_FALSE(catalog);
  EXPECT_EQ(catalog.error().code, ErrorCode::kParse);
  EXPECT_NE(catalog.error().message.find("boards.yaml"), std::string::npos);
}

TEST(Catalog, BadValueErrorNamesBoardGenerationAndKey) {
  test::TempDir dir;
  Result<Catalog> catalog =
      load_text(dir, std::string(kBoardHeader) + "          - {layout: ina3221_hwmon, bus: one, addr4: \"0040\"}\n");
  ASSERT_TRUE(catalog) << catalog.error().describe();
  Result<BoardSpec> spec = catalog->find("test-board", 36);
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error().code, ErrorCode::kParse);
  const std::string& message = spec.error().message;
  EXPECT_NE(message.find("test-board l4t36"), std::string::npos) << message;
  EXPECT_NE(message.find("power_monitors[0]"), std::string::npos) << message;
  EXPECT_NE(message.find("'bus'"), std::string::npos) << message;
}

TEST(Catalog, UnknownLayoutIsNamed) {
  test::TempDir dir;
  Result<Catalog> catalog =
      load_text(dir, std::string(kBoardHeader) + "          - {layout: ina999, bus: 1, addr4: \"0040\"}\n");
  ASSERT_TRUE(catalog);
  Result<BoardSpec> spec = catalog->find("test-board", 36);
  ASSERT_FALSE(spec);
  EXPECT_NE(spec.error().message.find("ina999"), std::string::npos) << spec.error().message;
}

TEST(Catalog, MonitorMustListEveryInputOfTheChip) {
  test::TempDir dir;
  Result<Catalog> catalog = load_text(dir, std::string(kBoardHeader) +
                                               "          - layout: ina3221_hwmon\n"
                                               "            bus: 1\n"
                                               "            addr4: \"0040\"\n"
                                               "            channels: [{index: 1, label: VDD_IN}]\n");
  ASSERT_TRUE(catalog);
  Result<BoardSpec> spec = catalog->find("test-board", 36);
  ASSERT_FALSE(spec);
  EXPECT_NE(spec.error().message.find("all 3 inputs"), std::string::npos) << spec.error().message;
}

TEST(Catalog, WrongSchemaVersionIsUnsupported) {
  test::TempDir dir;
  Result<Catalog> catalog = load_text(dir, "schema_version: 2\nboards: []\n");
  ASSERT_FALSE(catalog);
  EXPECT_EQ(catalog.error().code, ErrorCode::kUnsupported);
}

TEST(Catalog, CpuSectionMissingInAGenerationComesFromAnotherGenerationOfTheBoard) {
  const BoardSpec orin36 = test::board("jetson-agx-orin", 36);
  const BoardSpec orin35 = test::board("jetson-agx-orin", 35);
  ASSERT_EQ(orin36.cpu.policies.size(), 3u);
  EXPECT_EQ(orin36.cpu.available_khz, orin35.cpu.available_khz);
  EXPECT_EQ(orin36.cpu.floor_khz, 729600u);
  EXPECT_TRUE(has_note(orin36, "cpu.policies taken from l4t35"));
}

TEST(Catalog, ChannelValuesMissingInAGenerationComeFromTheSameLabelElsewhere) {
  const BoardSpec orin36 = test::board("jetson-agx-orin", 36);
  const ChannelSpec& gpu_soc = orin36.monitors.at(0).channels.at(0);
  EXPECT_EQ(gpu_soc.label, "VDD_GPU_SOC");
  EXPECT_EQ(gpu_soc.idle_mv, 19000);
  EXPECT_EQ(gpu_soc.idle_ma, 140);
  EXPECT_EQ(gpu_soc.shunt_uohm, 2000);
  EXPECT_TRUE(gpu_soc.summation_disable == false);
  EXPECT_TRUE(orin36.monitors.at(0).channels.at(2).summation_disable);
}

TEST(Catalog, DisabledChannelsHaveNoLabel) {
  const auto orin = test::board("jetson-agx-orin", 36);  // kept: a reference into the temporary dangled
  const PowerMonitorSpec& second = orin.monitors.at(1);
  EXPECT_EQ(second.device_name(), "1-0041");
  EXPECT_EQ(second.observed_number, 2);
  EXPECT_TRUE(second.channels.at(0).disabled);
  EXPECT_TRUE(second.channels.at(0).label.empty());
  EXPECT_FALSE(second.channels.at(1).disabled);
  EXPECT_TRUE(second.channels.at(2).disabled);
}

TEST(Catalog, ThermalNamesComeFromTheSameSocAndGenerationFirst) {
  const BoardSpec nx35 = test::board("jetson-orin-nx", 35);
  ASSERT_FALSE(nx35.thermal_zones.empty());
  EXPECT_EQ(nx35.thermal_zones.front().type, "CPU-therm");
  EXPECT_TRUE(has_note(nx35, "thermal zones taken from jetson-agx-orin l4t35"));
  EXPECT_EQ(test::board("jetson-orin-nx", 36).thermal_zones.front().type, "cpu-thermal");
}

TEST(Catalog, GpuPathsFollowTheGeneration) {
  const GpuSpec xavier35 = test::board("jetson-agx-xavier", 35).gpus.at(0);
  EXPECT_EQ(xavier35.devfreq_name, "17000000.gv11b");
  EXPECT_EQ(xavier35.device_dir, "/sys/devices/platform/gpu.0");
  EXPECT_EQ(xavier35.of_node_name, "gv11b");
  const GpuSpec orin36 = test::board("jetson-agx-orin", 36).gpus.at(0);
  EXPECT_EQ(orin36.devfreq_dir, "/sys/devices/platform/bus@0/17000000.gpu/devfreq/17000000.gpu");
  EXPECT_EQ(orin36.device_dir, "/sys/devices/platform/bus@0/17000000.gpu");
  EXPECT_EQ(orin36.available_hz.back(), 1300500000u);
}

TEST(Catalog, TotalRailIsTheInputRailOrTheReferenceSum) {
  EXPECT_EQ(test::board("jetson-nano-4gb", 32).total_rails, (std::vector<std::string>{"POM_5V_IN"}));
  EXPECT_EQ(test::board("jetson-agx-thor", 38).total_rails, (std::vector<std::string>{"VIN"}));
  EXPECT_EQ(test::board("jetson-agx-orin", 36).total_rails,
            (std::vector<std::string>{"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"}));
  EXPECT_EQ(test::board("jetson-agx-xavier", 35).total_rails.size(), 6u);
}

TEST(Catalog, ThorValuesTheReferenceLacksAreMarkedAsAssumptions) {
  const BoardSpec thor = test::board("jetson-agx-thor", 38);
  EXPECT_TRUE(has_note(thor, "(A1)"));
  EXPECT_TRUE(has_note(thor, "(A11)"));
  EXPECT_EQ(thor.cpu.policies.size(), 14u);
  ASSERT_EQ(thor.monitors.size(), 2u);
  EXPECT_EQ(thor.monitors.at(1).layout, MonitorLayout::kIna238Hwmon);
  EXPECT_EQ(thor.monitors.at(1).channels.at(0).label, "VIN");
  EXPECT_EQ(thor.identity.compatible.front(), "nvidia,p4071-0000+p3834-0008");
}

TEST(Catalog, ReleaseLineBelongsToTheGeneration) {
  EXPECT_EQ(test::board("jetson-agx-xavier", 32).identity.nv_tegra_release.rfind("# R32 (release), REVISION: 4.4", 0),
            0u);
  EXPECT_EQ(test::board("jetson-agx-xavier", 35).identity.nv_tegra_release.rfind("# R35 (release)", 0), 0u);
  EXPECT_EQ(test::board("jetson-nano-4gb", 32).identity.model, "NVIDIA Jetson Nano Developer Kit");
}

}  // namespace
}  // namespace energy::sim
