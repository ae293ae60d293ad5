#include "energysim/cli.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim_test_util.h"

namespace energy::sim {
namespace {

namespace fs = std::filesystem;

struct CliRun {
  int code = -1;
  std::string out;
  std::string err;
};

CliRun run(const std::vector<std::string>& args, const CliEnv& env = {}) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = run_cli(args, env, out, err);
  return CliRun{code, out.str(), err.str()};
}

CliRun create(const test::TempDir& dir, std::vector<std::string> extra) {
  std::vector<std::string> args = {"create", "--data", ENERGYD_SIM_TEST_DATA, "--root", dir / "root"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run(args);
}

bool mentions(const CliRun& r, const std::string& text) { return r.err.find(text) != std::string::npos; }

TEST(Cli, HelpPrintsUsageAndExitsZero) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--help"}, {"help"}, {"help", "create"}, {"create", "--help"}, {"list", "-h"}}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.code, kExitOk) << args.front();
    EXPECT_NE(r.out.find("Usage: energyd-sim"), std::string::npos);
  }
}

TEST(Cli, NoArgumentsIsAUsageError) {
  const CliRun r = run({});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("Usage:"), std::string::npos);
}

TEST(Cli, UnknownCommandIsNamed) {
  const CliRun r = run({"frobnicate"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_TRUE(mentions(r, "'frobnicate'"));
}

TEST(Cli, ListPrintsOneLinePerSimulatedBoardAndGeneration) {
  const CliRun r = run({"list", "--data", ENERGYD_SIM_TEST_DATA});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  std::istringstream lines(r.out);
  std::vector<std::string> entries;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string id, l4t, driver;
    words >> id >> l4t >> driver;
    std::string entry = id;
    entry += " ";
    entry += l4t;
    entry += " ";
    entry += driver;
    entries.push_back(entry);
  }
  ASSERT_EQ(entries.size(), 13u) << r.out;
  EXPECT_EQ(entries.front(), "jetson-nano-4gb 32 ina3221x");
  EXPECT_EQ(entries.back(), "jetson-agx-thor 38 ina3221+ina238");
  EXPECT_NE(r.out.find("VDDQ_VDD2_1V8AO"), std::string::npos);
}

TEST(Cli, CreateWritesTheTreeAndPrintsEachRailsFilesAndValues) {
  test::TempDir dir;
  const CliRun r = create(dir, {"--board", "jetson-orin-nx", "--l4t", "36", "--rail", "VDD_IN=5000:1000"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("VDD_IN  [1-0040:1]  5000 mV  1000 mA  5000 mW"), std::string::npos) << r.out;
  const std::string current = dir / "root/sys/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon0/curr1_input";
  EXPECT_NE(r.out.find(current), std::string::npos) << r.out;
  EXPECT_EQ(test::read_file(current), "1000\n");
}

TEST(Cli, CreateAcceptsEqualsFormAndAnL4tPrefix) {
  test::TempDir dir;
  const CliRun r = create(dir, {"--board=jetson-nano-4gb", "--l4t=l4t32"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(test::read_file(dir / "root/sys/bus/i2c/devices/6-0040/name"), "ina3221x\n");
}

TEST(Cli, CreateRefusesANonEmptyRootWithExitOneAndReplacesWithForce) {
  test::TempDir dir;
  ASSERT_EQ(create(dir, {"--board", "jetson-tx2", "--l4t", "32"}).code, kExitOk);
  const CliRun again = create(dir, {"--board", "jetson-agx-thor", "--l4t", "38"});
  EXPECT_EQ(again.code, kExitFailure);
  EXPECT_TRUE(mentions(again, "--force"));
  const CliRun forced = create(dir, {"--board", "jetson-agx-thor", "--l4t", "38", "--force"});
  EXPECT_EQ(forced.code, kExitOk) << forced.err;
  EXPECT_FALSE(fs::exists(dir / "root/sys/bus/i2c/drivers/ina3221x"));
}

TEST(Cli, EveryBadArgumentIsNamedWithExitTwo) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--board", "jetson-tx2", "--l4t", "32", "--bord", "x"}, "'--bord'"},
      {{"--l4t", "32"}, "'--board' is required"},
      {{"--board", "jetson-tx2"}, "'--l4t' is required"},
      {{"--board", "jetson-tx2", "--l4t", "thirty-two"}, "'thirty-two'"},
      {{"--board", "jetson-tx3", "--l4t", "32"}, "'jetson-tx3'"},
      {{"--board", "jetson-tx2", "--l4t", "36"}, "no L4T 36"},
      {{"--board", "jetson-tx2", "--l4t", "32", "--rail", "VDD_IN=5000"}, "'VDD_IN=5000'"},
      {{"--board", "jetson-tx2", "--l4t", "32", "--rail", "VDD_IN=a:b"}, "'a'"},
      {{"--board", "jetson-tx2", "--l4t", "32", "--rail", "VDD_NOPE=5000:10"}, "'VDD_NOPE'"},
      {{"--board", "jetson-agx-orin", "--l4t", "35", "--rail", "NC=0:0"}, "'NC' names several channels"},
      {{"--board", "jetson-tx2", "--l4t", "32", "--hwmon-offset", "-3"}, "--hwmon-offset"},
      {{"--board", "jetson-tx2", "--l4t", "32", "--force=yes"}, "'--force' takes no value"},
      {{"--board", "jetson-tx2", "--l4t", "32", "stray"}, "'stray'"},
      {{"--board", "jetson-tx2", "--board", "jetson-tx2", "--l4t", "32"}, "given twice"},
  };
  for (const auto& [extra, expected] : cases) {
    test::TempDir dir;
    const CliRun r = create(dir, extra);
    EXPECT_EQ(r.code, kExitUsage) << expected << "\n" << r.err;
    EXPECT_TRUE(mentions(r, expected)) << "expected '" << expected << "' in: " << r.err;
    EXPECT_FALSE(fs::exists(dir / "root")) << expected;
  }
}

TEST(Cli, MissingRootValueIsNamed) {
  const CliRun r = run({"create", "--board", "jetson-tx2", "--l4t", "32", "--root"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_TRUE(mentions(r, "'--root' needs a value"));
}

TEST(Cli, UnusableDataFileFromTheFlagIsAUsageError) {
  test::TempDir dir;
  const CliRun r = run({"list", "--data", dir / "absent.yaml"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_TRUE(mentions(r, "absent.yaml"));
}

TEST(Cli, DataFileComesFromTheEnvironmentWhenNoFlagIsGiven) {
  EXPECT_EQ(run({"list"}, CliEnv{std::string(ENERGYD_SIM_TEST_DATA)}).code, kExitOk);
  test::TempDir dir;
  const CliRun r = run({"list"}, CliEnv{dir / "absent.yaml"});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_TRUE(mentions(r, "ENERGYD_SIM_DATA"));
}

// `study` prints the grid minimum, the pinned top clocks and DVFS in model
// time: the same text on every run.
TEST(Cli, StudyPrintsTheGridMinimumNextToDvfs) {
  const std::vector<std::string> args = {
      "study", "--data", ENERGYD_SIM_TEST_DATA, "--board", "jetson-nano-4gb", "--l4t", "32", "--batch", "8"};
  const CliRun r = run(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  for (const char* text : {"preset gpu-bound, batch 8", "grid minimum  CPU", "pinned top    CPU 1479.0 GPU 921.6",
                           "DVFS          mean CPU", "grid minimum vs DVFS: energy -", "DVFS at the highest clocks"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << " in:\n" << r.out;
  EXPECT_EQ(run(args).out, r.out);
  const std::pair<std::vector<std::string>, std::string> bad[] = {
      {{"study", "--l4t", "32"}, "'--board' is required"},
      {{"study", "--board", "jetson-nano-4gb"}, "'--l4t' is required"},
      {{"study", "--board", "jetson-nano-4gb", "--l4t", "32", "--batch", "0"}, "--batch 0"},
      {{"study", "--board", "jetson-nano-4gb", "--l4t", "32", "--batch", "x"}, "--batch"},
      {{"study", "--board", "jetson-nano-4gb", "--l4t", "32", "--preset", "video"}, "'video'"},
  };
  for (const auto& [command, expected] : bad) {
    const CliRun e = run(command);
    EXPECT_EQ(e.code, kExitUsage) << expected;
    EXPECT_TRUE(mentions(e, expected)) << "expected '" << expected << "' in: " << e.err;
  }
  EXPECT_NE(run({"help", "study"}).out.find("Usage: energyd-sim study"), std::string::npos);
}

TEST(Cli, LiveCommandsDocumentThemselves) {
  for (const char* command : {"run", "ctl", "workload"}) {
    const CliRun r = run({"help", command});
    EXPECT_EQ(r.code, kExitOk) << command;
    EXPECT_NE(r.out.find(std::string("Usage: energyd-sim ") + command), std::string::npos) << command;
  }
  EXPECT_NE(run({"run", "--help"}).out.find("--cpu-load"), std::string::npos);
  EXPECT_NE(run({"ctl", "--help"}).out.find("renumber"), std::string::npos);
}

// Bad arguments are refused (exit 2, named) before anything is mounted or connected.
TEST(Cli, LiveCommandsNameTheirBadArguments) {
  const std::vector<std::string> base = {
      "run", "--data",  ENERGYD_SIM_TEST_DATA, "--board",   "jetson-orin-nano", "--l4t",
      "36",  "--mount", "/nonexistent/m",      "--control", "/nonexistent/c"};
  const std::pair<std::vector<std::string>, const char*> cases[] = {
      {{"run", "--board", "jetson-orin-nano", "--l4t", "36", "--mount", "/x"}, "'--control'"},
      {{"--cpu-load", "1200"}, "--cpu-load"},
      {{"--ripple", "50"}, "--ripple"},
      {{"--rail", "VDD_IN=5000"}, "NAME=MV:MA"},
      {{"--rail", "VDD_NOPE=5000:10"}, "VDD_NOPE"},
      {{"--hwmon-offset", "-1"}, "--hwmon-offset"},
      {{"ctl", "now"}, "'--control'"},
      {{"ctl", "--control", "/nonexistent/c", "energy", "rail"}, "KEY=VALUE"},
      {{"workload", "--control", "/nonexistent/c", "--units", "0"}, "--units"},
      {{"workload", "--control", "/nonexistent/c", "--units", "3", "--pattern", "wavy"}, "wavy"},
      {{"workload", "--control", "/nonexistent/c", "--items", "3", "--preset", "video"}, "video"},
      {{"workload", "--control", "/nonexistent/c", "--items", "3", "--batch", "0"}, "--batch"},
      {{"workload", "--control", "/nonexistent/c", "--items", "3", "--cpu-threads", "0"}, "--cpu-threads"},
      {{"workload", "--control", "/nonexistent/c", "--items", "3", "--cpu-megacycles", "-1"}, "--cpu-megacycles"},
      {{"workload", "--control", "/nonexistent/c", "--items", "3", "--batch-idle-us", "-5"}, "--batch-idle-us"},
      {{"workload", "--control", "/nonexistent/c", "--items", "3", "--gpu-megacycles", "0", "--memory-us", "0"},
       "no work"},
  };
  for (const auto& [args, named] : cases) {
    std::vector<std::string> full = args;
    if (args.front() != "run" && args.front() != "ctl" && args.front() != "workload") {
      full = base;
      full.insert(full.end(), args.begin(), args.end());
    }
    const CliRun r = run(full);
    EXPECT_EQ(r.code, kExitUsage) << full.back() << ": " << r.err;
    EXPECT_TRUE(mentions(r, named)) << r.err;
  }
}

}  // namespace
}  // namespace energy::sim
