// Owners of runs and clock leases (owner.h) and the bound on a run's tags
// (runs.h): issue 19, items 12 and 14.
#include "owner.h"

#include <gtest/gtest.h>

#include "run_manager.h"

namespace energy::daemon {
namespace {

RunRecord run_tagged(const std::string& tags_json) {
  RunRecord r;
  r.id = 4;
  r.name = "train";
  r.tags_json = tags_json;
  return r;
}

TEST(Owner, ARunsOwnerIsItsReservedUidTag) {
  EXPECT_EQ(run_owner(run_tagged(R"({"energyd.uid":"1000","batch":"8"})")), std::optional<uid_t>(1000));
  EXPECT_EQ(run_owner(run_tagged(R"({"batch":"8"})")), std::nullopt) << "a run from before owners were recorded";
  EXPECT_EQ(run_owner(run_tagged(R"({"energyd.uid":"10x"})")), std::nullopt);
  EXPECT_EQ(run_owner(run_tagged("not json")), std::nullopt);
}

TEST(Owner, OnlyTheOwnerRootOrTheDaemonUidMayAct) {
  Caller owner = make_caller(1000, 998);
  Caller other = make_caller(1001, 998);
  EXPECT_FALSE(owner.admin);
  EXPECT_TRUE(make_caller(0, 998).admin);
  EXPECT_TRUE(make_caller(998, 998).admin);
  EXPECT_TRUE(check_owner("run 4 (train)", "stop it", 1000u, owner).ok());
  EXPECT_TRUE(check_owner("run 4 (train)", "stop it", 1000u, make_caller(0, 998)).ok());
  EXPECT_TRUE(check_owner("run 4 (train)", "stop it", 1000u, make_caller(998, 998)).ok());
  auto denied = check_owner("run 4 (train)", "stop it", 1000u, other);
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.error().code, ErrorCode::kDenied);
  EXPECT_EQ(denied.error().message,
            "permission denied: run 4 (train) belongs to uid 1000; only that uid or root may stop it");
}

TEST(Owner, WithoutARecordedOwnerOnlyRootMayAct) {
  auto denied = check_owner("clock lease 2", "unpin it", std::nullopt, make_caller(1000, 998));
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.error().code, ErrorCode::kDenied);
  EXPECT_NE(denied.error().message.find("clock lease 2 has no recorded owner"), std::string::npos);
  EXPECT_TRUE(check_owner("clock lease 2", "unpin it", std::nullopt, make_caller(0, 998)).ok());
}

TEST(RunTags, MergingAtTheStopIsBounded) {
  nlohmann::json start = nlohmann::json::object(), stop = nlohmann::json::object();
  for (int i = 0; i < 34; ++i) start["s" + std::to_string(i)] = "v";
  for (int i = 0; i < 30; ++i) stop["t" + std::to_string(i)] = "v";
  auto merged = merge_run_tags(start.dump(), stop);
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(nlohmann::json::parse(*merged).size(), kMaxRunTags);
  stop["s0"] = "replaced";  // a shared key does not count twice
  ASSERT_TRUE(merge_run_tags(start.dump(), stop).ok());
  stop["one-more"] = "v";
  auto refused = merge_run_tags(start.dump(), stop);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kInvalid);
  EXPECT_NE(refused.error().message.find("65 tags; a run holds at most 64"), std::string::npos);
}

}  // namespace
}  // namespace energy::daemon
