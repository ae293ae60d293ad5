#include "energy/rails.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace energy
