// QUALITY D2, emulated power cuts: energyd runs with the powercut shim
// (shim/powercut_shim.c), which keeps beside the state directory the image
// a power cut would leave of it (file contents as of their last fsync;
// renames and unlinks once the directory is synced). At a random moment,
// while a client marks runs and pins clocks, energyd is killed with SIGKILL
// and the state directory is replaced by that image. After every cut: the
// database passes PRAGMA integrity_check, every acknowledged mark (start
// and stop) is there, the readings lost are at most one checkpoint interval
// plus one flush interval (energyd's stated power-loss window: samples are
// synced at checkpoints, marks at their commit), durable readings never go
// back, and after the restart every acknowledged clock lease is there again
// (and every acknowledged release stays released). ENERGYD_POWERCUT_ITERATIONS
// sets the number of cuts (default 20, as CI runs it); ENERGYD_POWERCUT_SEED
// repeats a sequence of moments (the seed is printed).
#include <gtest/gtest.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>
#include <stdlib.h>

#include "db_facts.h"
#include "harness.h"

namespace energy::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

constexpr int kCutFlushMs = 200;
constexpr int kCheckpointMs = 1000;
// The stated window (checkpoint_interval_ms: "the most a power cut can
// lose"), plus the flush that carries a reading to the WAL, plus 300 ms for
// a loaded 2-core machine between a flush and its checkpoint.
constexpr int64_t kLossWindowNs = (kCheckpointMs + kCutFlushMs + 300) * 1'000'000LL;

// A whole number 1..1000000 from the environment, or `fallback` when unset;
// anything else fails the test that asked, naming the variable.
int env_int(const char* name, int fallback) {
  const char* env = std::getenv(name);
  if (env == nullptr) return fallback;
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(env, &end, 10);
  if (errno != 0 || end == env || *end != '\0' || v < 1 || v > 1'000'000) {
    ADD_FAILURE() << name << " must be a whole number 1..1000000, got '" << env << "'";
    return fallback;
  }
  return static_cast<int>(v);
}

uint32_t seed() {
  const char* env = std::getenv("ENERGYD_POWERCUT_SEED");
  return env != nullptr ? static_cast<uint32_t>(std::strtoul(env, nullptr, 10)) : std::random_device{}();
}

// What the client was told: marks and clock leases acknowledged. A request
// cut off by the kill is in no set (either outcome is right for it).
struct Acknowledged {
  std::set<int64_t> started, stopped;
  std::set<int64_t> pinned;    // pinned and not (maybe) released since
  std::set<int64_t> released;  // unpinned with a reply
};

class PowerCut : public ::testing::Test {
 public:
  ~PowerCut() override {
    if (!run_dir_.empty()) fs::remove_all(run_dir_);
  }
  nlohmann::json ctl_json(const std::vector<std::string>& args, int* exit_code = nullptr) {
    return energyctl_json(sock(), args, exit_code, milliseconds(5000));
  }

 protected:
  void SetUp() override {
    auto made = run_command(
        {ENERGYD_SIM_BIN, "create", "--board", "jetson-orin-nano", "--l4t", "36", "--root", tmp_.path() + "/board"});
    ASSERT_EQ(made.exit_code, 0) << made.err;
    fs::create_directories(state());
    fs::create_directories(shadow());
  }
  std::unique_ptr<ChildProcess> start() {
    auto d = std::make_unique<ChildProcess>(
        std::vector<std::string>{ENERGYD_BIN, "--root", tmp_.path() + "/board", "--state-dir", state(), "--socket",
                                 sock(), "--flush-interval-ms", std::to_string(kCutFlushMs), "--checkpoint-interval-ms",
                                 std::to_string(kCheckpointMs)},
        tmp_.path() + "/log",
        std::vector<std::string>{std::string("LD_PRELOAD=") + ENERGYD_POWERCUT_SHIM, "ENERGYD_POWERCUT_DIR=" + state(),
                                 "ENERGYD_POWERCUT_SHADOW=" + shadow()});
    EXPECT_TRUE(wait_for_socket(sock(), std::chrono::seconds(10))) << read_file(tmp_.path() + "/log");
    return d;
  }
  // The power cut: the state directory becomes what was durable, and the
  // runtime directory's tmpfs (the sweep ring) is empty.
  void cut() {
    for (const auto& e : fs::directory_iterator(state())) fs::remove_all(e.path());
    copy_images(shadow(), state());
    if (!run_dir_.empty()) fs::remove(run_dir_ + "/sweep-ring");
  }
  // The socket's directory on a tmpfs, as /run/energyd: energyd keeps its
  // sweep ring there and writes the tail only at checkpoints (and marks).
  void use_ring() {
    char tmpl[] = "/dev/shm/energyd-powercut-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    run_dir_ = tmpl;
  }
  void cut_repeatedly(int n);
  // A copy of the state directory to read the database from.
  DbFacts inspect_copy() {
    std::string dir = tmp_.path() + "/inspect";
    fs::remove_all(dir);
    fs::create_directories(dir);
    copy_images(state(), dir);
    return inspect_database(dir + "/energyd.db", DbOpen::kReadWrite);
  }
  static void copy_images(const std::string& from, const std::string& to) {
    for (const auto& e : fs::directory_iterator(from)) {
      if (e.path().filename().string().rfind(".pc-", 0) == 0) continue;  // the shim's temporaries
      fs::copy_file(e.path(), to + "/" + e.path().filename().string(), fs::copy_options::overwrite_existing);
    }
  }
  std::string state() const { return tmp_.path() + "/state"; }
  std::string shadow() const { return tmp_.path() + "/durable"; }
  std::string sock() const { return (run_dir_.empty() ? tmp_.path() : run_dir_) + "/s.sock"; }
  std::string log() const { return read_file(tmp_.path() + "/log"); }
  TempDir tmp_;
  std::string run_dir_;
};

// Marks runs, and pins the GPU under a 10-minute lease or releases it, until
// told to stop (or energyd dies).
void client_work(PowerCut& t, Acknowledged& ack, std::atomic<bool>& done, uint32_t seed) {
  std::mt19937 rng(seed);
  std::optional<int64_t> held;
  while (!done) {
    int code = 0;
    auto run = t.ctl_json({"mark", "start", "p" + std::to_string(rng() % 1000)}, &code);
    if (code == 0 && run.is_object()) ack.started.insert(run["id"].get<int64_t>());
    if (code == 0 && run.is_object() && rng() % 2 == 0) {
      auto rep = t.ctl_json({"mark", "stop", std::to_string(run["id"].get<int64_t>())}, &code);
      if (code == 0 && rep.is_object()) ack.stopped.insert(run["id"].get<int64_t>());
    }
    if (rng() % 3 != 0) continue;
    if (!held) {
      auto pin = t.ctl_json({"pin", "--gpu", "max", "--for", "10m"}, &code);
      if (code == 0 && pin.is_object()) held = pin["lease"]["id"].get<int64_t>();
      if (held) ack.pinned.insert(*held);
      continue;
    }
    ack.pinned.erase(*held);  // from here its release may or may not have happened
    (void)t.ctl_json({"unpin", std::to_string(*held)}, &code);
    if (code == 0) ack.released.insert(*held);
    if (code == 0) held.reset();
  }
}

// After a restart: every acknowledged pin is a lease again, no acknowledged
// release came back. Then every lease is released, so the client can pin.
void check_and_clear_leases(PowerCut& t, Acknowledged& ack, int cut) {
  int code = 0;
  auto clocks = t.ctl_json({"clocks"}, &code);
  ASSERT_EQ(code, 0);
  std::set<int64_t> listed;
  for (const auto& l : clocks["leases"]) listed.insert(l["id"].get<int64_t>());
  for (int64_t id : ack.pinned)
    EXPECT_EQ(listed.count(id), 1u) << "acknowledged lease " << id << " lost at cut " << cut;
  for (int64_t id : ack.released) EXPECT_EQ(listed.count(id), 0u) << "released lease " << id << " back at cut " << cut;
  if (listed.empty()) return;
  (void)t.ctl_json({"unpin", "--all"}, &code);
  ASSERT_EQ(code, 0);
  ack.released.insert(listed.begin(), listed.end());
  for (int64_t id : listed) ack.pinned.erase(id);
}

void PowerCut::cut_repeatedly(int n) {
  uint32_t s = seed();
  std::cout << "power-cut seed " << s << " (ENERGYD_POWERCUT_SEED)\n";
  RecordProperty("seed", static_cast<int>(s));
  std::mt19937 rng(s);
  Acknowledged ack;
  int64_t durable_t_ns = 0;
  for (int i = 0; i < n; ++i) {
    auto d = start();
    int64_t session_start = boottime_ns();
    check_and_clear_leases(*this, ack, i);
    std::atomic<bool> done{false};
    std::thread worker([&] { client_work(*this, ack, done, static_cast<uint32_t>(rng())); });
    std::this_thread::sleep_for(milliseconds(300 + rng() % 2500));
    int64_t kill_t = boottime_ns();
    d->stop(SIGKILL);
    done = true;
    worker.join();
    cut();
    DbFacts f = inspect_copy();
    ASSERT_TRUE(f.opened) << "cut " << i;
    ASSERT_EQ(f.integrity, "ok") << "cut " << i << ", seed " << s;
    for (int64_t id : ack.started) ASSERT_EQ(f.runs.count(id), 1u) << "acknowledged run " << id << " lost at cut " << i;
    for (int64_t id : ack.stopped)
      ASSERT_EQ(f.stopped.count(id), 1u) << "acknowledged stop " << id << " lost at cut " << i;
    ASSERT_TRUE(f.tail_problem.empty() || f.tail_torn) << "sweep tail damaged at cut " << i << ": " << f.tail_problem;
    ASSERT_GE(f.last_t_ns, durable_t_ns) << "durable readings went back at cut " << i;
    ASSERT_GE(std::max(f.last_t_ns, session_start), kill_t - kLossWindowNs)
        << "more than the power-loss window lost at cut " << i << ": " << (kill_t - f.last_t_ns) / 1'000'000 << " ms";
    durable_t_ns = f.last_t_ns;
  }
  auto d = start();
  check_and_clear_leases(*this, ack, n);
  EXPECT_GE(ack.started.size(), static_cast<size_t>(n / 2));
  EXPECT_FALSE(ack.pinned.empty() && ack.released.empty()) << "no lease was ever acknowledged";
  EXPECT_EQ(d->stop(SIGTERM), 0) << log();
}

// ENERGYD_POWERCUT_ITERATIONS cuts (20 by default), half of them with the sweep ring.
TEST_F(PowerCut, RandomCutsKeepTheDatabaseAcknowledgedMarksAndLeases) {
  cut_repeatedly((env_int("ENERGYD_POWERCUT_ITERATIONS", 20) + 1) / 2);
}

TEST_F(PowerCut, WithTheSweepRingRandomCutsLoseNoMoreThanTheStatedWindow) {
  use_ring();
  cut_repeatedly(std::max(1, env_int("ENERGYD_POWERCUT_ITERATIONS", 20) / 2));
}

}  // namespace
}  // namespace energy::testing
