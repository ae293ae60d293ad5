// mark.start's end_with_connection bookkeeping: a closed connection gives
// back exactly its runs still open, once.
#include "connection_runs.h"

#include <gtest/gtest.h>

namespace energy::daemon {
namespace {

TEST(ConnectionRuns, AClosedConnectionGivesBackItsOpenRunsOnce) {
  ConnectionRuns runs;
  runs.add(1, 10);
  runs.add(1, 11);
  runs.add(2, 20);
  runs.forget(11);  // stopped by its client
  EXPECT_EQ(runs.take(1), std::vector<int64_t>{10});
  EXPECT_TRUE(runs.take(1).empty()) << "taken once";
  EXPECT_EQ(runs.take(2), std::vector<int64_t>{20});
  EXPECT_TRUE(runs.take(3).empty()) << "a connection that opened no such run";
}

}  // namespace
}  // namespace energy::daemon
