// QUALITY D1: energyd killed with SIGKILL at random moments while sampling,
// with a run open and clients marking and querying. After every kill:
// PRAGMA integrity_check is "ok", no acknowledged mark is lost, and the
// readings lost are at most one flush interval plus the downtime (the
// newest reading counted is the database's or the sweep tail's, which the
// next start replays); with the sweep ring (the socket's directory on a
// tmpfs, as /run/energyd is), at most the sweep being taken: the newest
// reading counted may be the ring's, which the next start stores. At the end
// the run opened before the first kill is still open and continues, with the
// downtime recorded as gaps, and the last killed energyd's newest reading is
// in the database. ENERGYD_KILL_ITERATIONS sets the number of kills, half
// with the ring and half without (default 100, as CI runs it; QUALITY.md
// asks for 1,000 in a longer run).
#include <gtest/gtest.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include <stdlib.h>

#include "db_facts.h"
#include "harness.h"

namespace energy::testing {
namespace {

using std::chrono::milliseconds;

constexpr int kFlushMs = 200;
constexpr int kPeriodMs = 100;

int iterations() {
  const char* env = std::getenv("ENERGYD_KILL_ITERATIONS");
  if (env == nullptr) return 100;
  char* end = nullptr;
  long n = std::strtol(env, &end, 10);
  EXPECT_TRUE(end != env && *end == '\0' && n >= 1 && n <= 100000)
      << "ENERGYD_KILL_ITERATIONS must be a whole number 1..100000, got '" << env << "'";
  return end != env && *end == '\0' && n >= 1 && n <= 100000 ? static_cast<int>(n) : 100;
}

class KillNine : public ::testing::Test {
 public:
  ~KillNine() override {
    if (!run_dir_.empty()) std::filesystem::remove_all(run_dir_);
  }
  nlohmann::json ctl_json(const std::vector<std::string>& args, int* exit_code = nullptr) {
    return energyctl_json(sock(), args, exit_code, milliseconds(5000));
  }

 protected:
  void SetUp() override {
    auto made = run_command(
        {ENERGYD_SIM_BIN, "create", "--board", "jetson-orin-nx", "--l4t", "36", "--root", tmp_.path() + "/board"});
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }
  std::unique_ptr<ChildProcess> start() {
    auto d = std::make_unique<ChildProcess>(
        std::vector<std::string>{ENERGYD_BIN, "--root", tmp_.path() + "/board", "--state-dir", tmp_.path() + "/state",
                                 "--socket", sock(), "--flush-interval-ms", std::to_string(kFlushMs)},
        tmp_.path() + "/log");
    EXPECT_TRUE(wait_for_socket(sock(), std::chrono::seconds(10))) << read_file(tmp_.path() + "/log");
    return d;
  }
  // The socket's directory is energyd's runtime directory: on a tmpfs it
  // holds the sweep ring.
  void use_ring() {
    char tmpl[] = "/dev/shm/energyd-kill-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    run_dir_ = tmpl;
  }
  std::string sock() const { return (run_dir_.empty() ? tmp_.path() : run_dir_) + "/s.sock"; }
  std::string ring() const { return run_dir_.empty() ? "" : run_dir_ + "/sweep-ring"; }
  std::string db() const { return tmp_.path() + "/state/energyd.db"; }
  void kill_repeatedly(int n);
  TempDir tmp_;
  std::string run_dir_;
};

// Marks and queries from a client while the daemon may die at any moment;
// records the run ids whose start or stop was acknowledged. Half the runs
// are stopped at once; of the others the oldest is stopped once more than
// kMaxOpen are open, so the client stays under energyd's open-run limit
// (max_open_runs_per_user, 64) and its marks keep committing: refused
// starts cost energyd nothing and would turn this loop into a busy spawn
// of energyctl processes.
struct MarkingClient {
  static constexpr size_t kMaxOpen = 16;
  std::set<int64_t> started, stopped;
  void work(KillNine& t, std::atomic<bool>& done, uint32_t seed) {
    std::mt19937 rng(seed);
    while (!done) {
      int code = 0;
      auto started_run = t.ctl_json({"mark", "start", "k" + std::to_string(rng() % 1000)}, &code);
      if (code == 0 && started_run.is_object()) started.insert(started_run["id"].get<int64_t>());
      (void)t.ctl_json({"status"});
      if (code == 0 && started_run.is_object() && rng() % 2 == 0) stop(t, started_run["id"].get<int64_t>());
      std::vector<int64_t> open;
      std::set_difference(started.begin(), started.end(), stopped.begin(), stopped.end(), std::back_inserter(open));
      if (open.size() > kMaxOpen) stop(t, open.front());
    }
  }
  void stop(KillNine& t, int64_t id) {
    int code = 0;
    auto rep = t.ctl_json({"mark", "stop", std::to_string(id)}, &code);
    if (code == 0 && rep.is_object()) stopped.insert(id);
  }
};

void KillNine::kill_repeatedly(int n) {
  std::mt19937 rng(12345);
  // With the ring every sweep taken survives; the one being read may not.
  // The slack is the scheduler's: a tick late on a loaded machine (the
  // sanitizer build runs this beside other tests).
  const int64_t window_ms = ring().empty() ? kFlushMs : kPeriodMs;
  const int64_t slack_ms = ring().empty() ? 150 : 250;
  int64_t long_run = 0;
  {
    auto d = start();
    auto r = ctl_json({"mark", "start", "long"});
    ASSERT_TRUE(r.is_object());
    long_run = r["id"].get<int64_t>();
    d->stop(SIGKILL);
  }
  MarkingClient client;
  int64_t newest_before_restart = 0;  // the last kill's newest reading, database, tail or ring
  for (int i = 0; i < n; ++i) {
    auto d = start();
    const int64_t ready_t = boottime_ns();  // serving: its first sweep is taken
    std::atomic<bool> done{false};
    std::thread worker([&] { client.work(*this, done, static_cast<uint32_t>(i)); });
    std::this_thread::sleep_for(milliseconds(100 + rng() % 600));
    int64_t kill_t = boottime_ns();
    d->stop(SIGKILL);
    done = true;
    worker.join();
    DbFacts f = inspect_database(db(), DbOpen::kReadOnly, ring());
    ASSERT_EQ(f.integrity, "ok") << "after kill " << i;
    // The sweep tail holds the open chunk: a kill never tears a frame (each
    // is one write(2)), so it must decode whole.
    ASSERT_EQ(f.tail_problem, "") << "sweep tail after kill " << i;
    for (int64_t id : client.started)
      ASSERT_TRUE(f.runs.count(id) == 1) << "acknowledged run " << id << " lost at kill " << i;
    for (int64_t id : client.stopped)
      ASSERT_TRUE(f.stopped.count(id) == 1) << "acknowledged stop " << id << " lost at kill " << i;
    // What this run of energyd read and lost: from the newest stored reading,
    // or from when it began serving if it stored none yet (the time before
    // is downtime, not a loss), to the kill.
    const int64_t lost_from = std::max(f.last_t_ns, ready_t);
    ASSERT_GE(lost_from, kill_t - (window_ms + slack_ms) * 1'000'000LL)
        << "more than " << window_ms << " ms lost at kill " << i << ": serving for " << (kill_t - ready_t) / 1'000'000
        << " ms, newest stored reading " << (kill_t - f.last_t_ns) / 1'000'000 << " ms before the kill";
    newest_before_restart = f.last_t_ns;
    if (i % 10 == 0) std::this_thread::sleep_for(milliseconds(400));  // a restart delay, as systemd's RestartSec
  }
  auto d = start();
  // The start replayed the killed daemon's sweep tail into the database
  // (with the ring, its sweeps after the tail's are stored with the first
  // chunk: checked after the stop below).
  if (ring().empty()) {
    EXPECT_GE(inspect_database(db(), DbOpen::kReadOnly).chunks_last_t_ns, newest_before_restart);
  }
  auto st = ctl_json({"status"});
  bool still_open = false;
  for (const auto& r : st["open_runs"]) still_open = still_open || r["id"].get<int64_t>() == long_run;
  EXPECT_TRUE(still_open);
  auto rep = ctl_json({"mark", "stop", std::to_string(long_run)});
  ASSERT_TRUE(rep.is_object());
  EXPECT_GT(rep["total"]["energy_j"].get<double>(), 0.0);
  EXPECT_LT(rep["total"]["coverage"].get<double>(), 1.0);  // the restarts' downtime is there, as gaps
  EXPECT_GT(rep["total"]["gap_ns"].get<int64_t>(), 0);
  EXPECT_GE(client.started.size(), static_cast<size_t>(n / 2));
  EXPECT_EQ(d->stop(SIGTERM), 0);
  EXPECT_TRUE(database_holds(db(), newest_before_restart))
      << "the last killed energyd's newest reading is not in the database";
  if (!ring().empty()) {
    EXPECT_FALSE(std::filesystem::exists(ring())) << "a clean stop leaves no ring";
  }
}

TEST_F(KillNine, RandomKillsLoseNoAcknowledgedMarkAndKeepTheDatabaseIntact) { kill_repeatedly((iterations() + 1) / 2); }

TEST_F(KillNine, WithTheSweepRingAKillLosesAtMostTheSweepBeingTaken) {
  use_ring();
  kill_repeatedly(std::max(1, iterations() / 2));
}

}  // namespace
}  // namespace energy::testing
