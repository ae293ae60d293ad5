// Sweeps stored by energyd (docs/SWEEPS.md "Storage", docs/PROTOCOL.md
// "Sweeps") on a simulated board: create, add runs made with
// mark.start/stop, show, list, state transitions and refusals over the
// socket, and a restart of energyd that keeps the sweep.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "board_fixture.h"
#include "raw_client.h"

namespace energy::testing {
namespace {

using nlohmann::json;

class SweepStore : public ::testing::Test {
 protected:
  void SetUp() override {
    daemon_ = std::make_unique<SimulatedDaemon>(constant_orin_nano());
    ASSERT_TRUE(daemon_->started()) << daemon_->setup_error();
    connect();
  }
  void TearDown() override {
    if (fd_ >= 0) ::close(fd_);
    daemon_.reset();
  }
  void connect() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = connect_to(daemon_->socket());
    ASSERT_GE(fd_, 0);
  }
  // The reply frame of one request, parsed.
  json ask(const std::string& verb, const json& args) { return json::parse(call(fd_, verb, args), nullptr, false); }
  json result(const std::string& verb, const json& args) {
    json reply = ask(verb, args);
    EXPECT_TRUE(reply.value("ok", false)) << verb << " " << args.dump() << ": " << reply.dump();
    return reply.value("result", json::object());
  }
  // The error code and message of a refused request.
  std::pair<std::string, std::string> refusal(const std::string& verb, const json& args) {
    json reply = ask(verb, args);
    EXPECT_FALSE(reply.value("ok", true)) << verb << " " << args.dump();
    const json& e = reply.value("error", json::object());
    return {e.value("code", ""), e.value("message", "")};
  }
  // A stopped run of ~30 ms with `items` work items.
  int64_t measured(double items) {
    int64_t id = result("mark.start", {{"name", "sweep-run"}, {"items", items}})["id"].get<int64_t>();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    result("mark.stop", {{"run", id}});
    return id;
  }

  std::unique_ptr<SimulatedDaemon> daemon_;
  int fd_ = -1;
};

TEST_F(SweepStore, CreateAddShowListAndStateSurviveARestart) {
  json spec = {{"command", "work {batch}"}, {"axes", {{"gpu", {306000000, 624750000}}}}, {"seed", 11}};
  json created = result("sweep.create", {{"name", "grid"}, {"spec", spec}})["sweep"];
  int64_t id = created["id"].get<int64_t>();
  EXPECT_EQ(created["state"], "running");
  EXPECT_EQ(created["created_wall_ns"], created["updated_wall_ns"]);
  int64_t warm = measured(10), a = measured(100), b = measured(200);
  result("sweep.add_run", {{"sweep", id}, {"run", warm}, {"point", 0}, {"repeat", 0}, {"role", "warmup"}});
  result("sweep.add_run",
         {{"sweep", id}, {"run", a}, {"point", 1}, {"repeat", 0}, {"role", "measure"}, {"cooldown_ms", 250}});
  json added =
      result("sweep.add_run",
             {{"sweep", id}, {"run", std::to_string(b)}, {"point", 0}, {"repeat", 0}, {"role", "measure"}})["sweep"];
  EXPECT_FALSE(added.contains("runs"));
  EXPECT_EQ(result("sweep.set_state", {{"sweep", id}, {"state", "interrupted"}})["sweep"]["state"], "interrupted");
  ASSERT_TRUE(daemon_->restart(SIGTERM)) << daemon_->setup_error();
  connect();
  json shown = result("sweep.show", {{"sweep", id}})["sweep"];
  EXPECT_EQ(shown["spec"], spec);
  EXPECT_EQ(shown["state"], "interrupted");
  ASSERT_EQ(shown["runs"].size(), 3u) << shown.dump(2);
  EXPECT_EQ(shown["runs"][0]["role"], "warmup");
  EXPECT_EQ(shown["runs"][1]["run_id"], a);
  EXPECT_EQ(shown["runs"][1]["cooldown_ms"], 250);
  EXPECT_TRUE(shown["runs"][0]["cooldown_ms"].is_null());
  const json& run_b = shown["runs"][2]["run"];
  EXPECT_EQ(run_b["id"], b);
  EXPECT_EQ(run_b["items"], 200);
  EXPECT_GT(run_b["summary"]["energy_j"].get<double>(), 0) << "runs.list's object, with its summary";
  json listed = result("sweep.list", json::object())["sweeps"];
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["runs"], 2) << "measure runs only";
  EXPECT_EQ(listed[0]["points"], 2);
  EXPECT_FALSE(listed[0].contains("spec"));
  EXPECT_EQ(result("sweep.list", {{"state", "running"}})["sweeps"].size(), 0u);
  EXPECT_EQ(result("sweep.set_state", {{"sweep", id}, {"state", "complete"}})["sweep"]["state"], "complete");
}

TEST_F(SweepStore, RefusalsNameWhatWasWrong) {
  int64_t id = result("sweep.create", {{"name", "r"}, {"spec", json::object()}})["sweep"]["id"].get<int64_t>();
  int64_t done = measured(1);
  int64_t open = result("mark.start", {{"name", "still-open"}})["id"].get<int64_t>();
  json add = {{"sweep", id}, {"run", done}, {"point", 0}, {"repeat", 0}, {"role", "measure"}};
  result("sweep.add_run", add);
  json twice = add;
  twice["run"] = open;
  EXPECT_EQ(refusal("sweep.add_run", twice).first, "state") << "an open run";
  twice["run"] = done;
  EXPECT_EQ(refusal("sweep.add_run", twice).first, "state") << "a run already in a sweep";
  json unknown = add;
  unknown["sweep"] = id + 100;
  EXPECT_EQ(refusal("sweep.add_run", unknown).first, "not_found");
  auto bad = refusal("sweep.add_run", {{"sweep", id}, {"run", done}, {"point", -1}, {"repeat", 0}, {"role", "x"}});
  EXPECT_EQ(bad.first, "invalid");
  EXPECT_NE(bad.second.find("\"point\""), std::string::npos) << bad.second;
  result("sweep.set_state", {{"sweep", id}, {"state", "complete"}});
  auto final_state = refusal("sweep.set_state", {{"sweep", id}, {"state", "running"}});
  EXPECT_EQ(final_state.first, "state");
  EXPECT_NE(final_state.second.find("final"), std::string::npos) << final_state.second;
  EXPECT_EQ(refusal("sweep.show", {{"sweep", id + 100}}).first, "not_found");
  result("mark.stop", {{"run", open}});
}

// energyctl sweeps / sweep show / sweep export on a 1 x 2 grid plus DVFS,
// two runs per point, measured on the simulator's constant 5 W board.
TEST_F(SweepStore, EnergyctlListsShowsAndExportsAStoredSweep) {
  json spec = {{"format", 1},
               {"axes", {{"clocks", {{{"domain", "gpu"}, {"hz", {306000000, 624750000}}}}}, {"params", json::array()}}},
               {"dvfs", true}};
  int64_t id = result("sweep.create", {{"name", "cli-grid"}, {"spec", spec}})["sweep"]["id"].get<int64_t>();
  for (int repeat = 0; repeat < 2; ++repeat) {
    for (int point = 0; point < 3; ++point) {
      result("sweep.add_run",
             {{"sweep", id}, {"run", measured(8)}, {"point", point}, {"repeat", repeat}, {"role", "measure"}});
    }
  }
  auto list = daemon_->ctl({"sweeps"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("cli-grid"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("running"), std::string::npos) << list.out;
  auto show = daemon_->ctl({"sweep", "show", std::to_string(id)});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("STILL RUNNING"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("3 of 3 points measured, 6 counted run(s) of 6"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("gpu 624.75 MHz"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("Against DVFS"), std::string::npos) << show.out;
  EXPECT_EQ(show.out.find('\x1b'), std::string::npos) << "no colour into a pipe";
  auto csv = daemon_->ctl({"sweep", "export", std::to_string(id), "--csv"});
  EXPECT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 7) << csv.out;
  EXPECT_NE(csv.out.find(",gpu_hz,"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find(",624750000,"), std::string::npos) << csv.out;
  json exported = daemon_->ctl_json({"sweep", "export", std::to_string(id)});
  EXPECT_EQ(exported["results"]["points"].size(), 3u);
  EXPECT_NEAR(exported["results"]["points"][0]["power_w"]["mean"].get<double>(), 5.0, 0.1);
  auto missing = daemon_->ctl({"sweep", "show", std::to_string(id + 100)});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("no sweep"), std::string::npos) << missing.err;
  auto bad = daemon_->ctl({"sweep", "export", "x"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("sweep export ID"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace energy::testing
