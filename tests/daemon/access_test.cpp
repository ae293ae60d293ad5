#include "access.h"

#include <gtest/gtest.h>

#include "server.h"

namespace energy::daemon {
namespace {

constexpr gid_t kRead = 4242;
constexpr gid_t kClock = 4343;

AccessPolicy policy() { return AccessPolicy{kRead, kClock, /*daemon_uid=*/999, "energyd", "energyd-clock"}; }

PeerCredentials peer(uid_t uid, gid_t gid, std::vector<gid_t> groups = {}) {
  return PeerCredentials{1234, uid, gid, std::move(groups)};
}

TEST(VerbPrivilege, PinAndUnpinFamiliesNeedTheClockPrivilege) {
  EXPECT_EQ(verb_privilege("clocks.pin"), Privilege::kClock);
  EXPECT_EQ(verb_privilege("clocks.pin.run"), Privilege::kClock);
  EXPECT_EQ(verb_privilege("clocks.unpin"), Privilege::kClock);
  EXPECT_EQ(verb_privilege("clocks"), Privilege::kRead);
  EXPECT_EQ(verb_privilege("clocks.leases"), Privilege::kRead);
  EXPECT_EQ(verb_privilege("mark.start"), Privilege::kRead);
  EXPECT_EQ(verb_privilege("runs.list"), Privilege::kRead);
  EXPECT_EQ(verb_privilege("status"), Privilege::kRead);
}

TEST(AccessPolicy, RootAndTheDaemonsOwnUidMayDoEverything) {
  EXPECT_TRUE(policy().permits(peer(0, 0), Privilege::kClock));
  EXPECT_TRUE(policy().permits(peer(999, 999), Privilege::kClock));
}

TEST(AccessPolicy, ClockGroupByPrimaryOrSupplementaryGidMayDoEverything) {
  EXPECT_TRUE(policy().permits(peer(1000, kClock), Privilege::kClock));
  EXPECT_TRUE(policy().permits(peer(1000, 1000, {5, kClock}), Privilege::kClock));
  EXPECT_TRUE(policy().permits(peer(1000, 1000, {kClock}), Privilege::kRead));
}

TEST(AccessPolicy, ReadGroupMayReadButNotPin) {
  EXPECT_TRUE(policy().permits(peer(1000, 1000, {kRead}), Privilege::kRead));
  EXPECT_FALSE(policy().permits(peer(1000, 1000, {kRead}), Privilege::kClock));
  EXPECT_FALSE(policy().permits(peer(1000, kRead), Privilege::kClock));
}

TEST(AccessPolicy, OtherUsersMayDoNothing) {
  EXPECT_FALSE(policy().permits(peer(1000, 1000, {5, 6}), Privilege::kRead));
  EXPECT_FALSE(policy().permits(peer(1000, 1000), Privilege::kClock));
}

TEST(AccessPolicy, UnsetGroupsLeaveOnlyRoot) {
  AccessPolicy p;
  p.daemon_uid = 0;
  EXPECT_FALSE(p.permits(peer(1000, 0, {0}), Privilege::kRead));  // gid 0 is not "no group"
  EXPECT_TRUE(p.permits(peer(0, 0), Privilege::kRead));
}

TEST(StatusGroups, ParsesTheGroupsLine) {
  auto g = parse_status_groups("Name:\tbash\nUid:\t1000\t1000\t1000\t1000\nGroups:\t4 24 27 4242 \nNSpid:\t1\n");
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(*g, (std::vector<gid_t>{4, 24, 27, 4242}));
  auto empty = parse_status_groups("Groups:\t\n");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(StatusGroups, MissingOrBadLineIsAnErrorNamingIt) {
  EXPECT_FALSE(parse_status_groups("Name:\tx\n").ok());
  auto bad = parse_status_groups("Groups:\t4 x7\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("x7"), std::string::npos);
}

TEST(ResolveGroup, NumericEmptyAndUnknownNames) {
  auto n = resolve_group("read_group", "4242");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->value(), 4242u);
  auto none = resolve_group("read_group", "");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  auto unknown = resolve_group("clock_group", "no-such-group-energyd-test");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
  EXPECT_NE(unknown.error().message.find("clock_group"), std::string::npos);
  EXPECT_NE(unknown.error().message.find("no-such-group-energyd-test"), std::string::npos);
  auto huge = resolve_group("read_group", "99999999999");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().code, ErrorCode::kInvalid);
}

}  // namespace
}  // namespace energy::daemon
