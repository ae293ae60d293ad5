// energyctl clocks lists every available frequency as `pin` takes it
// (pin_args.h exact_mhz + "MHz"): over the frequency tables of every board
// the simulator builds, each listed text parses back (clock_pin.h, the
// daemon's parser of pin frequencies) to exactly the Hz it came from.
#include <gtest/gtest.h>

#include <filesystem>

#include "../daemon/static_board.h"
#include "energy/clock_pin.h"
#include "energy/clocks.h"
#include "pin_args.h"

namespace energy::cli {
namespace {

class ClockList : public daemon::StaticBoardTest {
 protected:
  // Every listed frequency of `board` at `l4t`; how many were checked.
  size_t check_board(const std::string& board, int l4t) {
    make_board(board, l4t);
    if (::testing::Test::HasFatalFailure()) return 0;
    size_t checked = 0;
    for (const auto& d : discover_clocks(*root_).domains) {
      for (int64_t hz : d.available_hz) {
        std::string text = exact_mhz(hz) + "MHz";
        auto parsed = parse_freq_bound(text);
        EXPECT_TRUE(parsed.ok()) << board << " " << d.name << " " << text;
        if (!parsed.ok()) continue;
        EXPECT_EQ(parsed->hz, hz) << board << " L4T " << l4t << " " << d.name << " lists " << text;
        ++checked;
      }
    }
    std::filesystem::remove_all(dir_);
    dir_.clear();
    return checked;
  }
};

TEST_F(ClockList, EveryListedFrequencyOfEverySimulatedBoardParsesBackToItsHz) {
  auto path = sim::locate_data_file({});
  ASSERT_TRUE(path.ok());
  auto cat = sim::Catalog::load(*path);
  ASSERT_TRUE(cat.ok()) << cat.error().describe();
  size_t boards = 0, frequencies = 0;
  for (const auto& e : cat->entries()) {
    if (!e.spec.ok()) continue;
    frequencies += check_board(e.board_id, e.l4t);
    ++boards;
  }
  EXPECT_GE(boards, 5u);
  EXPECT_GT(frequencies, 100u);
}

TEST(ExactMhz, KeepsEveryDigitAndNoTrailingZero) {
  EXPECT_EQ(exact_mhz(624750000), "624.75");
  EXPECT_EQ(exact_mhz(1234567), "1.234567");
  EXPECT_EQ(exact_mhz(408000000), "408");
  EXPECT_EQ(exact_mhz(999999), "0.999999");
  EXPECT_EQ(mhz_text(nlohmann::json(204000001)), "204.000001");
}

}  // namespace
}  // namespace energy::cli
