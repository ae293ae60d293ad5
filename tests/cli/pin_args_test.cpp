#include "pin_args.h"

#include <gtest/gtest.h>

namespace energy::cli {
namespace {

TEST(PinArgs, ClockOptionsFillTheClocksPinArguments) {
  auto args = empty_pin_args();
  EXPECT_FALSE(pins_anything(args));
  ASSERT_TRUE(apply_pin_option("--gpu", "408MHz", args));
  ASSERT_TRUE(apply_pin_option("--domain", "cpu4=max", args));
  ASSERT_TRUE(apply_pin_option("--governor", "performance", args));
  ASSERT_TRUE(apply_pin_option("--allow-offline-cpus", "", args));
  EXPECT_TRUE(pins_anything(args));
  EXPECT_EQ(args["domains"]["gpu"], "408MHz");
  EXPECT_EQ(args["domains"]["cpu4"], "max");
  EXPECT_EQ(args["governor"], "performance");
  EXPECT_EQ(args["allow_offline_cpus"], true);
}

TEST(PinArgs, BadClockOptionsSayWhatWasWrong) {
  auto args = empty_pin_args();
  ASSERT_TRUE(apply_pin_option("--gpu", "max", args));
  auto twice = apply_pin_option("--gpu", "min", args);
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().message, "domain 'gpu' given twice");
  auto no_eq = apply_pin_option("--domain", "cpu4", args);
  ASSERT_FALSE(no_eq);
  EXPECT_NE(no_eq.error().message.find("--domain needs NAME=FREQ"), std::string::npos);
  EXPECT_FALSE(apply_pin_option("--governor", "", args));
  EXPECT_FALSE(apply_pin_option("--name", "x", args));
}

TEST(PinArgs, OnlyClockOptionsAreRecognised) {
  EXPECT_TRUE(is_pin_option("--emc"));
  EXPECT_FALSE(is_pin_option("--allow-offline-cpus"));
  EXPECT_TRUE(is_pin_flag("--allow-offline-cpus"));
  EXPECT_FALSE(is_pin_option("--repeat"));
}

TEST(PinArgs, MegahertzTextDropsTrailingZeros) {
  EXPECT_EQ(mhz_text(624750000), "624.75");
  EXPECT_EQ(mhz_text(408000000), "408");
  EXPECT_EQ(mhz_text(nlohmann::json()), "-");
  EXPECT_EQ(range_text(306000000, 624750000), "306..624.75");
}

}  // namespace
}  // namespace energy::cli
