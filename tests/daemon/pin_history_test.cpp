#include "pin_history.h"

#include <gtest/gtest.h>

namespace energy::daemon {
namespace {

using nlohmann::json;

// A clocks.pin reply as PinEngine::pin gives it, for one GPU domain.
json pin_reply(int64_t lease, int64_t created_boot_ns, int64_t run_id) {
  json l = {{"id", lease}, {"kind", run_id != 0 ? "run" : "duration"}, {"created_boot_ns", created_boot_ns}};
  if (run_id != 0) l["run"] = run_id;
  json d = {
      {"domain", "gpu"},
      {"requested", {{"min_hz", 408000000}, {"max_hz", 408000000}, {"governor", ""}}},
      {"achieved", {{"min_hz", 408000000}, {"max_hz", 408000000}, {"cur_hz", 408000000}, {"governor", "nvhost"}}}};
  return {{"lease", l}, {"domains", json::array({d})}};
}

TEST(PinHistory, ARunLeaseBelongsToItsRunWhateverTheTimes) {
  PinHistory h;
  h.pinned(pin_reply(1, 500, 7), 500);
  h.sync({}, 900);
  auto pins = h.for_run(7, 1000, 2000);  // released before this window, but tied to run 7
  ASSERT_EQ(pins.size(), 1u);
  EXPECT_EQ(pins[0]["run"], 7);
  EXPECT_EQ(pins[0]["released_boot_ns"], 900);
  EXPECT_TRUE(h.for_run(8, 1000, 2000).empty());
}

TEST(PinHistory, OtherLeasesCountOnlyWhileInForceDuringTheRun) {
  PinHistory h;
  h.pinned(pin_reply(1, 100, 0), 100);  // released at 200: before the run
  h.sync({}, 200);
  h.pinned(pin_reply(2, 300, 0), 300);    // live through the run
  h.pinned(pin_reply(3, 3000, 0), 3000);  // pinned after the run
  h.sync({2, 3}, 3100);
  auto pins = h.for_run(9, 1000, 2000);
  ASSERT_EQ(pins.size(), 1u) << pins.dump();
  EXPECT_EQ(pins[0]["lease"], 2);
  EXPECT_TRUE(pins[0]["released_boot_ns"].is_null());
}

TEST(PinHistory, DomainsCarryRequestedAndAchievedSideBySide) {
  PinHistory h;
  h.pinned(pin_reply(4, 100, 0), 100);
  auto d = h.for_run(1, 0, 200)[0]["domains"][0];
  EXPECT_EQ(d["domain"], "gpu");
  EXPECT_EQ(d["requested_min_hz"], 408000000);
  EXPECT_EQ(d["achieved_max_hz"], 408000000);
  EXPECT_EQ(d["achieved_cur_hz"], 408000000);
  EXPECT_EQ(d["achieved_governor"], "nvhost");
}

TEST(PinHistory, KeepsOnlyTheNewestRecords) {
  PinHistory h;
  for (int64_t i = 1; i <= static_cast<int64_t>(PinHistory::kMaxRecords) + 5; ++i) h.pinned(pin_reply(i, i, 0), i);
  auto pins = h.for_run(0, 0, INT64_MAX);
  ASSERT_EQ(pins.size(), PinHistory::kMaxRecords);
  EXPECT_EQ(pins[0]["lease"], 6);
}

}  // namespace
}  // namespace energy::daemon
