// `energyctl sweep` on a simulated Orin Nano: a 2 x 2 clock grid plus DVFS,
// 2 repeats of a short command, completes and stores every run with its
// point; SIGINT and SIGKILL of energyctl mid-sweep, then --resume, finish it
// without repeating finished runs; no clock stays pinned and no run open.
// A tiny --search (2 x 3, 2 repeats, DVFS) and its resume after SIGINT and
// SIGKILL. Also mark.start's end_with_connection, which the SIGKILL case rests on.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <regex>
#include <set>

#include "board_fixture.h"
#include "energy/client.h"
#include "raw_client.h"

namespace energy::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr size_t kPoints = 5;  // cpu {min, max} x gpu {min, max} + dvfs
constexpr size_t kRepeats = 2;

class SweepCommand : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { daemon_ = std::make_unique<SimulatedDaemon>(constant_orin_nano()); }
  static void TearDownTestSuite() { daemon_.reset(); }
  void SetUp() override { ASSERT_TRUE(daemon_->started()) << daemon_->setup_error(); }

  SimulatedDaemon& d() { return *daemon_; }

  nlohmann::json call(const std::string& verb, const nlohmann::json& args = nlohmann::json::object()) {
    auto client = Client::connect(d().socket());
    EXPECT_TRUE(client) << client.error().describe();
    if (!client) return nullptr;
    auto reply = client->call(verb, args);
    EXPECT_TRUE(reply) << verb << ": " << reply.error().describe();
    return reply ? *reply : nlohmann::json();
  }

  std::vector<std::string> sweep_argv(const std::string& name, const std::vector<std::string>& command) {
    std::vector<std::string> argv = {ENERGYCTL_BIN,
                                     "--socket",
                                     d().socket(),
                                     "sweep",
                                     "--cpu",
                                     "min,max",
                                     "--gpu",
                                     "min,max",
                                     "--dvfs",
                                     "--repeat",
                                     std::to_string(kRepeats),
                                     "--cooldown",
                                     "off",
                                     "--seed",
                                     "7",
                                     "--name",
                                     name,
                                     "--"};
    argv.insert(argv.end(), command.begin(), command.end());
    return argv;
  }

  // The sweep id energyctl announced ("energyctl: sweep N (NAME): ..."), or 0.
  static int64_t announced_id(const std::string& text) {
    std::smatch m;
    if (!std::regex_search(text, m, std::regex("energyctl: sweep ([0-9]+) \\("))) return 0;
    return std::stoll(m[1]);
  }

  bool no_lease_and_no_open_run() {
    return eventually([&] { return call("clocks.leases")["leases"].empty() && call("status")["open_runs"].empty(); },
                      seconds(5));
  }

  // Every measured run once per (point, repeat); the set of their run ids.
  std::set<int64_t> check_complete(int64_t id) {
    auto sweep = call("sweep.show", {{"sweep", id}})["sweep"];
    EXPECT_EQ(sweep["state"], "complete");
    std::set<std::pair<int, int>> pairs;
    std::set<int64_t> ids;
    for (const auto& r : sweep["runs"]) {
      if (r["role"] != "measure") continue;
      pairs.insert({r["point"].get<int>(), r["repeat"].get<int>()});
      ids.insert(r["run_id"].get<int64_t>());
      EXPECT_EQ(r["run"]["tags"]["exit_status"], "0") << r.dump();
      EXPECT_EQ(r["run"]["tags"]["sweep_point"], std::to_string(r["point"].get<int>())) << r.dump();
    }
    EXPECT_EQ(pairs.size(), kPoints * kRepeats) << sweep.dump();
    EXPECT_EQ(ids.size(), kPoints * kRepeats) << "a (point, repeat) measured twice";
    return ids;
  }

  // Starts a sweep in the background and waits until it has `runs` measured
  // runs and the next one is open.
  // Starts `argv` (logging to LOG) and waits until it has announced its
  // sweep and added `runs` runs to it; the sweep's id (0: never announced).
  int64_t start_and_wait(std::unique_ptr<ChildProcess>& child, const std::vector<std::string>& argv,
                         const std::string& log, size_t runs) {
    child = std::make_unique<ChildProcess>(argv, log);
    int64_t id = 0;
    bool started = eventually([&] { return (id = announced_id(read_file(log))) != 0; }, seconds(10), milliseconds(20));
    EXPECT_TRUE(started) << read_file(log);
    eventually(
        [&] {
          return call("sweep.show", {{"sweep", id}})["sweep"]["runs"].size() >= runs;
        },
        seconds(20), milliseconds(20));
    return id;
  }

  std::pair<std::unique_ptr<ChildProcess>, int64_t> sweep_until(const std::string& name, size_t runs) {
    std::unique_ptr<ChildProcess> child;
    int64_t id = start_and_wait(child, sweep_argv(name, {"sleep", "0.1"}), tmp_.path() + "/" + name + ".log", runs);
    // Then while a run is open (its command running), so the signal lands in a run.
    bool open = eventually([&] { return !call("status")["open_runs"].empty(); }, seconds(10), milliseconds(5));
    EXPECT_TRUE(open);
    return {std::move(child), id};
  }

  // A --search over cpu {min, max} x gpu {min, mid, max}, 2 runs per point.
  std::vector<std::string> search_argv(const std::string& name, const std::string& sleep_s, bool dvfs = false) {
    std::vector<std::string> argv = {ENERGYCTL_BIN, "--socket",   d().socket(),  "sweep",    "--search", "--cpu",
                                     "min,max",     "--gpu",      "min,mid,max", "--repeat", "2",        "--max-repeat",
                                     "2",           "--cooldown", "off",         "--name",   name};
    if (dvfs) argv.emplace_back("--dvfs");
    argv.insert(argv.end(), {"--", "sleep", sleep_s});
    return argv;
  }

  // A search sweep's measured runs: each (point, repeat) once, every point a
  // clock point (< 6) or the DVFS point (6, `dvfs` times), repeats numbered
  // from 0 without gaps; the run ids.
  std::set<int64_t> check_search(int64_t id, size_t dvfs = 0) {
    auto sweep = call("sweep.show", {{"sweep", id}})["sweep"];
    EXPECT_EQ(sweep["state"], "complete");
    EXPECT_TRUE(sweep["spec"]["search"].is_object()) << sweep["spec"].dump();
    std::map<int, std::set<int>> repeats;
    std::set<int64_t> ids;
    for (const auto& r : sweep["runs"]) {
      if (r["role"] != "measure") continue;
      EXPECT_LT(r["point"].get<int>(), dvfs > 0 ? 7 : 6) << r.dump();
      EXPECT_TRUE(repeats[r["point"].get<int>()].insert(r["repeat"].get<int>()).second)
          << "measured twice: " << r.dump();
      ids.insert(r["run_id"].get<int64_t>());
      EXPECT_EQ(r["run"]["tags"]["sweep_point"], std::to_string(r["point"].get<int>())) << r.dump();
    }
    for (const auto& [point, set] : repeats) EXPECT_EQ(*set.rbegin() + 1, static_cast<int>(set.size())) << point;
    EXPECT_EQ(repeats[6].size(), dvfs) << "the DVFS reference, with the search's repeats";
    EXPECT_GE(ids.size(), 2u);
    return ids;
  }

  TempDir tmp_;
  // NOLINTNEXTLINE(readability-identifier-naming): a fixture's member, named as members are
  static std::unique_ptr<SimulatedDaemon> daemon_;
};

std::unique_ptr<SimulatedDaemon> SweepCommand::daemon_;

TEST_F(SweepCommand, GridWithDvfsCompletesAndStoresEveryRunWithItsPoint) {
  auto r = d().ctl({"sweep",   "--cpu",    "min,max", "--gpu",      "min,max",
                    "--dvfs",  "--repeat", "2",       "--cooldown", "off",
                    "--param", "n=3",      "--items", "{n}",        "--name",
                    "grid",    "--",       "sh",      "-c",         "test \"$ENERGY_SWEEP_n\" = {n}"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int64_t id = announced_id(r.err);
  ASSERT_NE(id, 0) << r.err;
  EXPECT_NE(r.err.find("sweep " + std::to_string(id) + " complete"), std::string::npos) << r.err;
  check_complete(id);
  auto sweep = call("sweep.show", {{"sweep", id}})["sweep"];
  std::map<std::string, int> gpu_tags;
  for (const auto& run : sweep["runs"]) {
    EXPECT_EQ(run["run"]["items"], 3.0) << "--items {n}";
    gpu_tags[run["run"]["tags"]["gpu"].get<std::string>()]++;
  }
  EXPECT_EQ(gpu_tags.size(), 3u) << "min, max and dvfs";
  EXPECT_EQ(gpu_tags["dvfs"], 2) << "the DVFS point, twice";
  EXPECT_TRUE(no_lease_and_no_open_run()) << "a clock stayed pinned or a run open";
}

TEST_F(SweepCommand, SigintMidSweepThenResumeFinishesWithoutRepeatingRuns) {
  auto [child, id] = sweep_until("sigint", 3);
  ASSERT_NE(id, 0);
  EXPECT_EQ(child->stop(SIGINT), 130);
  auto before = call("sweep.show", {{"sweep", id}})["sweep"];
  EXPECT_EQ(before["state"], "interrupted");
  std::set<int64_t> kept;
  for (const auto& r : before["runs"]) kept.insert(r["run_id"].get<int64_t>());
  EXPECT_GE(kept.size(), 3u);
  EXPECT_TRUE(no_lease_and_no_open_run()) << "clocks restored, the running run closed";
  auto resumed = d().ctl({"sweep", "--resume", std::to_string(id)});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  auto after = check_complete(id);
  for (int64_t k : kept) EXPECT_EQ(after.count(k), 1u) << "run " << k << " was finished before and is kept";
  EXPECT_TRUE(no_lease_and_no_open_run());
}

// The run open when energyctl died is stopped by energyd (end_with_connection)
// and never added; killed between a run's stop and its sweep.add_run, that
// run is a stopped run outside the sweep. Either way at most one run of the
// sweep's tag is outside it, and none is measured twice.
TEST_F(SweepCommand, SigkillMidSweepLeavesNoPinAndResumeFinishes) {
  auto [child, id] = sweep_until("sigkill", 3);
  ASSERT_NE(id, 0);
  child->stop(SIGKILL);
  EXPECT_TRUE(no_lease_and_no_open_run())
      << "energyd ends the killed energyctl's run and its pin: " << call("status")["open_runs"].dump()
      << call("clocks.leases").dump();
  auto resumed = d().ctl({"sweep", "--resume", std::to_string(id)});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err << d().log();
  auto in_sweep = check_complete(id);
  size_t outside = 0;
  const auto listed = call("runs.list", {{"tags", {{"sweep", std::to_string(id)}}}});  // kept alive for the loop
  for (const auto& run : listed["runs"]) {
    if (in_sweep.count(run["id"].get<int64_t>()) != 0) continue;
    ++outside;
    EXPECT_EQ(run["state"], "stopped") << run.dump();
    EXPECT_EQ(run["tags"]["sweep_role"], "measure") << run.dump();
  }
  EXPECT_LE(outside, 1u) << "only the run cut by the kill is outside the sweep";
}

TEST_F(SweepCommand, ARunThatEndsWithItsConnectionIsStoppedWhenTheConnectionCloses) {
  int fd = connect_to(d().socket());
  ASSERT_GE(fd, 0);
  auto started = nlohmann::json::parse(energy::testing::call(
      fd, "mark.start", {{"name", "held"}, {"end_with_connection", true}, {"pin", {{"domains", {{"gpu", "max"}}}}}}));
  ASSERT_TRUE(started.value("ok", false)) << started.dump();
  int64_t run = started["result"]["id"].get<int64_t>();
  EXPECT_EQ(call("clocks.leases")["leases"].size(), 1u);
  ::close(fd);
  EXPECT_TRUE(no_lease_and_no_open_run());
  auto shown = call("runs.show", {{"run", run}});
  EXPECT_EQ(shown["run"]["tags"]["energyd.interrupted"], "connection-closed") << shown.dump();
}

TEST_F(SweepCommand, TinySearchCompletesStoresItsRunsAndReportsRunsAgainstTheGrid) {
  auto argv = search_argv("search", "0.02", true);
  auto r = d().ctl(std::vector<std::string>(argv.begin() + 3, argv.end()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int64_t id = announced_id(r.err);
  ASSERT_NE(id, 0) << r.err;
  auto ids = check_search(id, 2);
  EXPECT_NE(r.err.find("against the full grid's 12 runs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("in " + std::to_string(ids.size() - 2) + " runs"), std::string::npos)
      << "without DVFS's 2" << r.err;
  EXPECT_NE(r.err.find("unimodal"), std::string::npos) << r.err;
  auto shown = d().ctl({"sweep", "show", std::to_string(id)});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("A --search sweep"), std::string::npos) << shown.out;
  EXPECT_EQ(shown.out.find("INCOMPLETE"), std::string::npos) << "unneeded points are not missing: " << shown.out;
  EXPECT_TRUE(no_lease_and_no_open_run());
}

TEST_F(SweepCommand, SearchWithAParameterSearchesEachValueOnItsOwn) {
  // gpu {min, max} x n {1, 2} plus DVFS per value: points 0-3 (gpu, n; n fastest), DVFS 4 (n=1) and 5 (n=2).
  auto r = d().ctl({"sweep",
                    "--search",
                    "--gpu",
                    "min,max",
                    "--param",
                    "n=1,2",
                    "--items",
                    "{n}",
                    "--dvfs",
                    "--repeat",
                    "2",
                    "--max-repeat",
                    "2",
                    "--cooldown",
                    "off",
                    "--name",
                    "search-param",
                    "--",
                    "sh",
                    "-c",
                    "test \"$ENERGY_SWEEP_n\" = {n} && sleep 0.02"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int64_t id = announced_id(r.err);
  ASSERT_NE(id, 0) << r.err;
  auto sweep = call("sweep.show", {{"sweep", id}})["sweep"];
  EXPECT_EQ(sweep["state"], "complete");
  std::map<std::string, std::set<int>> points_of_n;
  for (const auto& run : sweep["runs"]) {
    if (run["role"] != "measure") continue;
    EXPECT_EQ(run["run"]["tags"]["exit_status"], "0") << "{n} substituted and exported: " << run.dump();
    EXPECT_EQ(run["run"]["items"], std::stod(run["run"]["tags"]["n"].get<std::string>())) << "--items {n}";
    points_of_n[run["run"]["tags"]["n"].get<std::string>()].insert(run["point"].get<int>());
  }
  EXPECT_EQ(points_of_n["1"], (std::set<int>{0, 2, 4})) << "n=1: both clocks and its DVFS point";
  EXPECT_EQ(points_of_n["2"], (std::set<int>{1, 3, 5})) << "n=2: both clocks and its DVFS point";
  for (const char* best : {"n=1\n", "n=2\n"})
    EXPECT_NE(r.err.find(best), std::string::npos) << "one search summary per value: " << r.err;
  EXPECT_TRUE(no_lease_and_no_open_run());
}

TEST_F(SweepCommand, SigintMidSearchThenResumeRetracesWithoutRepeatingRuns) {
  std::string log = tmp_.path() + "/search-int.log";
  std::unique_ptr<ChildProcess> child;
  int64_t id = start_and_wait(child, search_argv("search-int", "0.1"), log, 3);
  ASSERT_NE(id, 0) << read_file(log);
  eventually([&] { return !call("status")["open_runs"].empty(); }, seconds(10), milliseconds(5));
  EXPECT_EQ(child->stop(SIGINT), 130) << read_file(log);
  auto before = call("sweep.show", {{"sweep", id}})["sweep"];
  EXPECT_EQ(before["state"], "interrupted");
  std::set<int64_t> kept;
  for (const auto& r : before["runs"]) kept.insert(r["run_id"].get<int64_t>());
  EXPECT_GE(kept.size(), 3u) << read_file(log);
  auto resumed = d().ctl({"sweep", "--resume", std::to_string(id)});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  auto after = check_search(id);
  for (int64_t k : kept) EXPECT_EQ(after.count(k), 1u) << "run " << k << " was finished before and is kept";
  EXPECT_TRUE(no_lease_and_no_open_run());
}

TEST_F(SweepCommand, SigkillMidSearchThenResumeFinishesWithoutRepeatingRuns) {
  std::string log = tmp_.path() + "/search-kill.log";
  std::unique_ptr<ChildProcess> child;
  int64_t id = start_and_wait(child, search_argv("search-kill", "0.1"), log, 3);
  ASSERT_NE(id, 0) << read_file(log);
  // While a run is open, as in the grid's SIGKILL test: a kill that lands while
  // mark.start is still pinning leaves the pin's lease to energyd for a moment
  // after the check below can see it, and the resume then finds the clock taken.
  eventually([&] { return !call("status")["open_runs"].empty(); }, seconds(10), milliseconds(5));
  child->stop(SIGKILL);
  EXPECT_TRUE(no_lease_and_no_open_run()) << "energyd ends the killed energyctl's run and its pin";
  auto resumed = d().ctl({"sweep", "--resume", std::to_string(id)});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  check_search(id);
}

}  // namespace
}  // namespace energy::testing
