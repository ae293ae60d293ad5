// The quality gate options of mark start, run and sweep (gate_args.h).
#include "gate_args.h"

#include <gtest/gtest.h>

namespace energy::cli {
namespace {

TEST(GateArgs, CoverageIsAPercentageSentAsAFraction) {
  nlohmann::json args = nlohmann::json::object();
  ASSERT_TRUE(apply_gate_option("--min-coverage", "95", args).ok());
  EXPECT_DOUBLE_EQ(args["min_coverage"].get<double>(), 0.95);
  ASSERT_TRUE(apply_gate_option("--max-gap", "3", args).ok());
  EXPECT_DOUBLE_EQ(args["max_gap_periods"].get<double>(), 3.0);
  ASSERT_TRUE(apply_gate_option("--exclusive", "", args).ok());
  EXPECT_EQ(args["exclusive"], true);
}

TEST(GateArgs, ValuesOutOfRangeAreRefusedNamingTheOption) {
  nlohmann::json args = nlohmann::json::object();
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{{"--min-coverage", "101"},
                                                                                    {"--min-coverage", "0"},
                                                                                    {"--min-coverage", "x"},
                                                                                    {"--max-gap", "0.5"},
                                                                                    {"--max-gap", "1001"},
                                                                                    {"--max-gap", "-2"}}) {
    auto st = apply_gate_option(flag, value, args);
    ASSERT_FALSE(st.ok()) << flag << " " << value;
    EXPECT_NE(st.error().message.find(flag), std::string::npos) << st.error().message;
  }
  EXPECT_TRUE(args.empty());
}

TEST(GateArgs, ExclusiveIsNotASweepOption) {
  EXPECT_TRUE(is_gate_option("--exclusive", true));
  EXPECT_FALSE(is_gate_option("--exclusive", false));
  EXPECT_EQ(gate_options(false).size(), 2u);
}

}  // namespace
}  // namespace energy::cli
