// Sweep axes (libenergy/sweep: sweep_axis.h, sweep_param.h): the --cpu/--gpu/
// --emc grammar against a clock table, --param axes, {NAME} substitution and
// the environment.
#include "energy/sweep_axis.h"

#include <gtest/gtest.h>

#include "energy/sweep_param.h"

namespace energy {
namespace {

// A GPU-like table with a non-round value (624.75 MHz).
const std::vector<int64_t> kTable{76800000,  153600000, 230400000, 307200000, 384000000, 460800000,
                                  537600000, 624750000, 691200000, 768000000, 921600000};

std::vector<int64_t> axis_hz(const std::string& spec) {
  auto axis = parse_clock_axis("gpu", spec, kTable);
  EXPECT_TRUE(axis) << (axis ? "" : axis.error().message);
  return axis ? axis->hz : std::vector<int64_t>{};
}

std::string axis_error(const std::string& spec) {
  auto axis = parse_clock_axis("gpu", spec, kTable);
  EXPECT_FALSE(axis) << spec;
  return axis ? "" : axis.error().message;
}

TEST(SweepHz, UnitSuffixesAndPlainHz) {
  EXPECT_EQ(*parse_sweep_hz("600M"), 600000000);
  EXPECT_EQ(*parse_sweep_hz("1.2G"), 1200000000);
  EXPECT_EQ(*parse_sweep_hz("624.75M"), 624750000);
  EXPECT_EQ(*parse_sweep_hz("624.75MHz"), 624750000);
  EXPECT_EQ(*parse_sweep_hz("1510400k"), 1510400000);
  EXPECT_EQ(*parse_sweep_hz("1200000000"), 1200000000);
  EXPECT_FALSE(parse_sweep_hz("1.2"));
  EXPECT_FALSE(parse_sweep_hz("fast"));
  EXPECT_FALSE(parse_sweep_hz("0"));
  EXPECT_FALSE(parse_sweep_hz("max"));
}

TEST(ClockAxis, ExplicitListsAreSortedAndEachValueOnce) {
  EXPECT_EQ(axis_hz("921.6M,624.75M,76800000,624.75MHz"), (std::vector<int64_t>{76800000, 624750000, 921600000}));
  auto axis = parse_clock_axis("gpu", "624.75M", kTable);
  ASSERT_TRUE(axis);
  EXPECT_EQ(axis->index, std::vector<size_t>{7});
}

TEST(ClockAxis, MinMaxMidAll) {
  EXPECT_EQ(axis_hz("min,mid,max"), (std::vector<int64_t>{76800000, 460800000, 921600000}));
  EXPECT_EQ(axis_hz("all"), kTable);
  std::vector<int64_t> even(kTable.begin(), kTable.begin() + 4);
  auto mid = parse_clock_axis("cpu", "mid", even);
  ASSERT_TRUE(mid);
  EXPECT_EQ(mid->hz, std::vector<int64_t>{153600000});  // the lower middle
}

TEST(ClockAxis, EveryNthStepKeepsTheTop) {
  EXPECT_EQ(axis_hz("every:4"), (std::vector<int64_t>{76800000, 384000000, 691200000, 921600000}));
  EXPECT_EQ(axis_hz("every:1"), kTable);
  EXPECT_NE(axis_error("every:0").find("every:0"), std::string::npos);
  EXPECT_NE(axis_error("every:x").find("whole number"), std::string::npos);
}

TEST(ClockAxis, RangesWithAndWithoutACount) {
  EXPECT_EQ(axis_hz("537.6M..768M"), (std::vector<int64_t>{537600000, 624750000, 691200000, 768000000}));
  EXPECT_EQ(axis_hz("min..max/3"), (std::vector<int64_t>{76800000, 460800000, 921600000}));
  EXPECT_EQ(axis_hz("76.8M..384M/2"), (std::vector<int64_t>{76800000, 384000000}));
  EXPECT_NE(axis_error("768M..537.6M").find("downwards"), std::string::npos);
  EXPECT_NE(axis_error("min..max/1").find(">= 2"), std::string::npos);
}

TEST(ClockAxis, AnUnlistedValueNamesItAndTheNearestTableValues) {
  const std::string e = axis_error("600M");
  EXPECT_NE(e.find("--gpu"), std::string::npos) << e;
  EXPECT_NE(e.find("600 MHz"), std::string::npos) << e;
  EXPECT_NE(e.find("537.6 MHz"), std::string::npos) << e;
  EXPECT_NE(e.find("624.75 MHz"), std::string::npos) << e;
  EXPECT_NE(axis_error("2G").find("nearest below 921.6 MHz"), std::string::npos);
  EXPECT_NE(axis_error("1M").find("nearest above 76.8 MHz"), std::string::npos);
  EXPECT_NE(axis_error("600M..768M").find("600 MHz"), std::string::npos);
}

TEST(ClockAxis, EmptyItemsAndBadTablesAreErrors) {
  EXPECT_NE(axis_error("min,,max").find("empty item"), std::string::npos);
  EXPECT_NE(axis_error("").find("empty item"), std::string::npos);
  EXPECT_FALSE(parse_clock_axis("emc", "all", {}));
  EXPECT_FALSE(parse_clock_axis("emc", "all", {3, 2, 1}));
}

TEST(ParamAxis, NameAndValues) {
  auto p = parse_param_axis("batch=1,8,32");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->name, "batch");
  EXPECT_EQ(p->values, (std::vector<std::string>{"1", "8", "32"}));
  EXPECT_TRUE(parse_param_axis("_x2=a"));
}

TEST(ParamAxis, BadNamesAndValuesAreNamed) {
  EXPECT_NE(parse_param_axis("batch").error().message.find("NAME="), std::string::npos);
  EXPECT_NE(parse_param_axis("2x=1").error().message.find("'2x'"), std::string::npos);
  EXPECT_NE(parse_param_axis("a-b=1").error().message.find("'a-b'"), std::string::npos);
  EXPECT_NE(parse_param_axis("=1").error().message.find("name"), std::string::npos);
  EXPECT_NE(parse_param_axis("b=1,,2").error().message.find("empty value"), std::string::npos);
  EXPECT_NE(parse_param_axis("b=1,1").error().message.find("'1' given twice"), std::string::npos);
  EXPECT_FALSE(parse_param_axis(std::string(65, 'a') + "=1"));
}

TEST(ParamAxis, SubstitutesOnlyDeclaredNamesInOnePass) {
  const std::vector<ParamValue> v{{"batch", "8"}, {"model", "{batch}"}};
  const std::vector<std::string> cmd{"infer", "--batch={batch}", "{model}", "awk '{print $1}'", "${HOME}",
                                     "{",     "{batch"};
  EXPECT_EQ(substitute_params(cmd, v),
            (std::vector<std::string>{"infer", "--batch=8", "{batch}", "awk '{print $1}'", "${HOME}", "{", "{batch"}));
}

TEST(ParamAxis, EnvironmentNamesEachParameter) {
  EXPECT_EQ(param_environment({{"batch", "8"}, {"model", "resnet"}}),
            (std::vector<std::string>{"ENERGY_SWEEP_batch=8", "ENERGY_SWEEP_model=resnet"}));
}

}  // namespace
}  // namespace energy
