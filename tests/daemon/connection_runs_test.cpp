// mark.start's end_with_connection bookkeeping: a closed connection gives
// back exactly its runs still open, once; a run that opens after its
// connection closed is to be stopped at once.
#include "connection_runs.h"

#include <gtest/gtest.h>

namespace energy::daemon {
namespace {

TEST(ConnectionRuns, AClosedConnectionGivesBackItsOpenRunsOnce) {
  ConnectionRuns runs;
  for (int64_t id : {10, 11}) {
    runs.starting(1);
    EXPECT_FALSE(runs.started(1, id));
  }
  runs.starting(2);
  EXPECT_FALSE(runs.started(2, 20));
  runs.forget(11);  // stopped by its client
  EXPECT_EQ(runs.take(1), std::vector<int64_t>{10});
  EXPECT_TRUE(runs.take(1).empty()) << "taken once";
  EXPECT_EQ(runs.take(2), std::vector<int64_t>{20});
  EXPECT_TRUE(runs.take(3).empty()) << "a connection that opened no such run";
}

TEST(ConnectionRuns, ARunOpeningAfterItsConnectionClosedIsToBeStopped) {
  ConnectionRuns runs;
  runs.starting(1);
  EXPECT_TRUE(runs.take(1).empty());
  EXPECT_TRUE(runs.started(1, 10)) << "the connection closed while the (pinned) start was under way";
  EXPECT_TRUE(runs.take(1).empty());
  runs.starting(2);
  EXPECT_TRUE(runs.take(2).empty());
  EXPECT_FALSE(runs.started(2, std::nullopt)) << "a failed start opened nothing to stop";
  EXPECT_FALSE(runs.started(3, 30)) << "a start not announced is not tracked";
  EXPECT_TRUE(runs.take(3).empty());
}

}  // namespace
}  // namespace energy::daemon
