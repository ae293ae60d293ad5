// energyctl export prints the raw readings as stored, per rail, as CSV or JSON.
#include <gtest/gtest.h>

#include <sstream>
#include <thread>

#include "board_fixture.h"

namespace energy::testing {
namespace {

TEST(Export, CsvHasEveryRailAtEverySweepWithExactValues) {
  BoardSpec spec;
  spec.rails = {"VDD_IN=5000:1000", "VDD_CPU_GPU_CV=5000:200", "VDD_SOC=5000:400"};
  SimulatedDaemon d(spec);
  ASSERT_TRUE(d.started()) << d.setup_error();
  d.ctl_json({"mark", "start", "x"});  // a mark commits every sweep before it
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  d.ctl_json({"mark", "stop", "x"});
  auto r = d.ctl({"export", "--since", "-1h", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "boot_id,t_ns,wall_time,rail,voltage_mv,current_ma,power_uw,errno");
  int in_rows = 0, rows = 0;
  while (std::getline(in, line)) {
    ++rows;
    if (line.find(",VDD_IN,") != std::string::npos) {
      ++in_rows;
      EXPECT_NE(line.find(",5000,1000,5000000,"), std::string::npos) << line;
    }
  }
  EXPECT_GE(in_rows, 5);
  EXPECT_EQ(rows, 3 * in_rows);
}

TEST(Export, JsonFiltersByRail) {
  SimulatedDaemon d(BoardSpec{});
  ASSERT_TRUE(d.started()) << d.setup_error();
  d.ctl_json({"mark", "start", "x"});
  d.ctl_json({"mark", "stop", "x"});
  auto rows = d.ctl_json({"export", "--rail", "VDD_SOC", "--since", "-10m"});
  ASSERT_TRUE(rows.is_array());
  ASSERT_FALSE(rows.empty());
  for (const auto& row : rows) EXPECT_EQ(row["rail"], "VDD_SOC");
}

TEST(Export, BadTimeIsAUsageError) {
  SimulatedDaemon d(BoardSpec{});
  ASSERT_TRUE(d.started()) << d.setup_error();
  auto r = d.ctl({"export", "--since", "last tuesday"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("last tuesday"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace energy::testing
