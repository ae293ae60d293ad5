// The sweep ring on a running energyd (sweep_ring.h; the socket's directory
// on a tmpfs, as /run/energyd is): `status` names it, the storage thread
// wakes less than once a second, a query still sees the newest sweep though
// the tail is written only at checkpoints, and a clean stop removes it.
// A ring left by a kill that cannot be taken is listed as a loss; without
// a tmpfs `status` says why there is none. (Kills and power cuts
// with the ring: KillNine.*, PowerCut.*, EnergyCounters.WithTheSweepRing*.)
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "board_fixture.h"

namespace energy::testing {
namespace {

// The storage thread's context switches (voluntary and not) so far.
int64_t store_switches(pid_t pid) {
  int64_t n = 0;
  for (const auto& t : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    std::ifstream comm(t.path() / "comm");
    std::string name;
    std::getline(comm, name);
    if (name != "store") continue;
    std::ifstream status(t.path() / "status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0 || line.rfind("nonvoluntary_ctxt_switches:", 0) == 0)
        n += std::stoll(line.substr(line.find(':') + 1));
    }
  }
  return n;
}

TEST(SweepRingDaemon, QueriesSeeTheNewestSweepWhileTheStoreThreadSleepsUntilTheCheckpoint) {
  BoardSpec spec = constant_orin_nano();
  spec.ring = true;
  SimulatedDaemon d(spec);
  ASSERT_TRUE(d.started()) << d.setup_error();
  auto status = d.ctl_json({"status"});
  EXPECT_EQ(status["storage"]["ring"]["path"], d.ring()) << status["storage"].dump();
  EXPECT_GT(status["storage"]["ring"]["capacity"].get<int64_t>(), 150);  // 1.5 x a checkpoint's 100 sweeps, and more
  auto run = d.ctl_json({"mark", "start", "fresh"});                     // its commit writes the tail up to here
  ASSERT_TRUE(run.is_object());
  int64_t before = store_switches(d.pid());
  auto t0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(3000));
  // Below the next checkpoint (10 s after the first): the tail still ends
  // at the mark, and the open run's figures end at the ring's newest sweep.
  auto listed = d.ctl_json({"runs", "--name", "fresh"});
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int64_t after = store_switches(d.pid());
  ASSERT_EQ(listed["runs"].size(), 1u) << listed.dump(2);
  double duration = listed["runs"][0]["summary"]["duration_s"].get<double>();
  EXPECT_GT(duration, waited - 0.5) << "the open run's figures lag the sampler by more than 0.5 s";
  EXPECT_NEAR(listed["runs"][0]["summary"]["avg_power_w"].get<double>(), 5.0, 0.01);
  // Without the ring the thread wakes every 1 s flush: 3 or more here.
  EXPECT_LE(after - before, 2) << "the store thread woke between checkpoints";
  EXPECT_EQ(d.stop(SIGTERM), 0) << d.log();
  EXPECT_FALSE(std::filesystem::exists(d.ring())) << "a clean stop stores the ring's sweeps and removes it";
}

// A ring a killed energyd left that cannot be taken (here cut shorter than
// its header) is a loss: logged, and listed in `status` with the store's.
TEST(SweepRingDaemon, ARingThatCannotBeTakenIsListedAsALoss) {
  BoardSpec spec = constant_orin_nano();
  spec.ring = true;
  SimulatedDaemon d(spec);
  ASSERT_TRUE(d.started()) << d.setup_error();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  d.stop(SIGKILL);
  ASSERT_TRUE(std::filesystem::exists(d.ring())) << "a killed energyd leaves its ring";
  std::filesystem::resize_file(d.ring(), 64);
  ASSERT_TRUE(d.restart(SIGKILL)) << d.log();
  auto losses = d.ctl_json({"status"})["storage"]["losses"];
  ASSERT_TRUE(losses.is_array()) << losses.dump();
  const nlohmann::json* found = nullptr;
  for (const auto& l : losses) {
    if (l["kind"] == "ring_dropped") found = &l;
  }
  ASSERT_NE(found, nullptr) << losses.dump(2);
  std::string message = (*found)["message"].get<std::string>();
  EXPECT_NE(message.find(d.ring() + " is not a ring file"), std::string::npos) << message;
  EXPECT_NE(message.find("whatever sweeps it held are lost"), std::string::npos) << message;
  EXPECT_NE(d.log().find("storage: the sweep ring"), std::string::npos) << "the loss is logged too";
}

TEST(SweepRingDaemon, WithoutAMemoryFileSystemStatusSaysWhyThereIsNoRing) {
  SimulatedDaemon d(constant_orin_nano());  // its socket in the test's directory
  ASSERT_TRUE(d.started()) << d.setup_error();
  auto ring = d.ctl_json({"status"})["storage"]["ring"];
  if (ring.contains("path")) GTEST_SKIP() << "the test directory is on a memory file system here";
  EXPECT_NE(ring["off"].get<std::string>().find("not on a memory file system"), std::string::npos) << ring.dump();
}

}  // namespace
}  // namespace energy::testing
