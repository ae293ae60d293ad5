// The lease journal records each lease's owner (issue 19, item 12) and still
// reads journals written before owners were recorded.
#include "energy/lease_journal.h"

#include <gtest/gtest.h>

namespace energy {
namespace {

LeaseJournal one_lease(std::optional<int64_t> owner) {
  LeaseJournal j;
  j.boot_id = "b1";
  j.next_lease = 3;
  LeaseRecord l;
  l.id = 2;
  l.kind = LeaseKind::kConnection;
  l.state = LeaseState::kActive;
  l.owner_uid = owner;
  j.leases.push_back(l);
  return j;
}

TEST(LeaseJournalOwner, TheOwnerUidRoundTrips) {
  auto back = journal_from_text(journal_to_text(one_lease(1000)), "test");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->leases.at(0).owner_uid, std::optional<int64_t>(1000));
  EXPECT_NE(journal_to_text(one_lease(1000)).find("\"owner_uid\": 1000"), std::string::npos);
}

TEST(LeaseJournalOwner, AJournalWithoutOwnersIsStillRead) {
  const char* old = R"({"format":"energyd-clock-leases","version":1,"boot_id":"b1","next_lease":3,
    "leases":[{"id":2,"kind":"connection","state":"active","connection":5,"run_id":0,"expires_boot_ns":0,
               "created_boot_ns":1,"created_wall_ns":2,"domains":[]}]})";
  auto back = journal_from_text(old, "old journal");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->leases.size(), 1u);
  EXPECT_FALSE(back->leases[0].owner_uid.has_value());
  EXPECT_EQ(journal_to_text(*back).find("owner_uid"), std::string::npos) << "no owner is written as none";
}

TEST(LeaseJournalOwner, AWrongOwnerTypeIsAParseError) {
  std::string text = journal_to_text(one_lease(7));
  text.replace(text.find("\"owner_uid\": 7"), 14, "\"owner_uid\": \"x\"");
  auto bad = journal_from_text(text, "journal");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kParse);
}

}  // namespace
}  // namespace energy
