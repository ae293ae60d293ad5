// energy.counters on a real energyd (docs/PROTOCOL.md): the joule counters
// grow with the energy, and a stopped and restarted energyd continues them
// under the same id without counting the time it was down. Killed with
// SIGKILL, the counters the database holds equal the store's own energy of
// the sweeps it holds, and a restart continues exactly from them. The
// counters file of energyd before schema 6 is moved into the database once.
#include <gtest/gtest.h>
#include <signal.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "board_fixture.h"
#include "db_facts.h"
#include "energy/client.h"
#include "energy/store.h"

namespace energy::testing {
namespace {

constexpr double kVddInWatts = 5.0;  // constant_orin_nano()

nlohmann::json counters(const SimulatedDaemon& d) {
  auto c = Client::connect(d.socket());
  if (!c) return nlohmann::json();
  auto r = c->call("energy.counters");
  return r ? *r : nlohmann::json();
}

double vdd_in_j(const nlohmann::json& c) {
  for (const auto& r : c.value("rails", nlohmann::json::array())) {
    if (r.value("label", "") == "VDD_IN") return r.value("energy_j", -1.0);
  }
  return -1;
}

TEST(EnergyCounters, ContinueAcrossARestartAndTheDowntimeAddsNothing) {
  SimulatedDaemon d(constant_orin_nano());
  ASSERT_TRUE(d.started()) << d.setup_error();
  auto first = counters(d);
  std::this_thread::sleep_for(std::chrono::seconds(2));
  auto at_stop = counters(d);
  ASSERT_GE(vdd_in_j(first), 0) << first.dump();
  // 2 s at 5 W, within a sampling period or two at each end.
  EXPECT_NEAR(vdd_in_j(at_stop) - vdd_in_j(first), 2 * kVddInWatts, 0.3 * kVddInWatts);
  EXPECT_NEAR(at_stop["total"]["energy_j"].get<double>(), vdd_in_j(at_stop), 1e-9) << "VDD_IN alone is the total";

  ASSERT_EQ(d.stop(SIGTERM), 0) << d.log();
  std::this_thread::sleep_for(std::chrono::seconds(4));  // 20 J if the downtime counted
  ASSERT_TRUE(d.restart(SIGTERM)) << d.log();
  auto after = counters(d);
  EXPECT_EQ(after["counters_id"], at_stop["counters_id"]);
  EXPECT_EQ(after["created_wall_ns"], at_stop["created_wall_ns"]);
  EXPECT_GE(vdd_in_j(after), vdd_in_j(at_stop));
  // Only what energyd measured since its first sweep (it serves after a
  // few sweeps): well under the 4 s it was down.
  EXPECT_LT(vdd_in_j(after) - vdd_in_j(at_stop), 2 * kVddInWatts) << after.dump() << at_stop.dump();
}

// What the database of a killed energyd holds: its counters, and per run of
// energyd (a gap of more than 1 s between VDD_IN's readings ends one) the
// store's own energy of VDD_IN from the run's first to its last reading.
struct Stored {
  std::string error;  // empty when read
  StoredCounters counters;
  double vdd_in_uj = -1;
  std::vector<double> runs_uj;
};

Stored read_stored(const std::string& db) {
  Stored out;
  auto store = Store::open(db, StoreRole::kReader, 1000);
  if (!store) return out.error = "cannot open " + db + ": " + store.error().describe(), out;
  auto c = (*store)->counters().get();
  if (!c || !c->has_value()) return out.error = "no counters in " + db, out;
  out.counters = **c;
  for (const auto& [label, uj] : out.counters.energy_uj) {
    if (label == "VDD_IN") out.vdd_in_uj = uj;
  }
  auto rails = (*store)->rails();
  if (!rails) return out.error = rails.error().describe(), out;
  int64_t rail = 0;
  for (const auto& r : *rails) rail = r.label == "VDD_IN" ? r.id : rail;
  if (rail == 0) return out.error = "no VDD_IN rail", out;
  constexpr int64_t kBoot = 1;  // a fresh database: this boot is its first
  auto all = (*store)->readings().rail_points(
      kBoot, rail, EnergyWindow{0, INT64_MAX / 2});  // the window's end + 1 must not overflow
  if (!all) return out.error = all.error().describe(), out;
  std::vector<PowerPoint> valid;
  for (const auto& p : *all) {
    if (p.valid) valid.push_back(p);
  }
  const auto* points = &valid;
  if (points->empty()) return out.error = "no VDD_IN readings", out;
  auto energy = [&](int64_t from, int64_t to) {
    auto e = (*store)->readings().energy_uj(kBoot, rail, EnergyWindow{from, to});
    return e && e->has_value() ? **e : -1.0;
  };
  int64_t first = points->front().t_ns;
  for (size_t i = 1; i <= points->size(); ++i) {
    if (i < points->size() && (*points)[i].t_ns - (*points)[i - 1].t_ns <= 1'000'000'000) continue;
    out.runs_uj.push_back(energy(first, (*points)[i - 1].t_ns));
    if (i < points->size()) first = (*points)[i].t_ns;
  }
  return out;
}

// The counters are stored in the writer's commit of the sweeps they count:
// after SIGKILL the stored VDD_IN joules equal the store's energy of the
// stored readings (to 1 uJ of rounding), and after a restart and a second
// SIGKILL they equal the first value plus the second run's stored energy:
// nothing lost or added at either kill, the downtime not counted.
TEST(EnergyCounters, AfterSigkillTheStoredCountersMatchTheStoredReadingsAndARestartContinuesThem) {
  SimulatedDaemon d(constant_orin_nano());
  ASSERT_TRUE(d.started()) << d.setup_error();
  std::string db = d.dir() + "/state/energyd.db";
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));  // mid-way between two 1 s commits
  auto served = counters(d);
  d.stop(SIGKILL);
  auto first = read_stored(db);
  ASSERT_TRUE(first.error.empty()) << first.error;
  ASSERT_EQ(first.runs_uj.size(), 1u);
  EXPECT_GT(first.vdd_in_uj, 2e6 * kVddInWatts) << "at least 2 s of readings committed";
  EXPECT_NEAR(first.vdd_in_uj, first.runs_uj[0], 1.0);
  EXPECT_EQ(first.counters.counters_id, served["counters_id"]);

  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // downtime: 7.5 J if it counted
  ASSERT_TRUE(d.restart(SIGKILL)) << d.log();
  auto after = counters(d);
  EXPECT_EQ(after["counters_id"], first.counters.counters_id);
  EXPECT_GE(vdd_in_j(after) * 1e6, first.vdd_in_uj - 1.0);
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));
  d.stop(SIGKILL);
  auto second = read_stored(db);
  ASSERT_TRUE(second.error.empty()) << second.error;
  ASSERT_EQ(second.runs_uj.size(), 2u) << "two runs of energyd, a gap between";
  EXPECT_NEAR(second.runs_uj[0], first.runs_uj[0], 1.0) << "the first run's readings are as they were";
  EXPECT_GT(second.runs_uj[1], 2e6 * kVddInWatts);
  EXPECT_NEAR(second.vdd_in_uj, first.vdd_in_uj + second.runs_uj[1], 1.0);
  EXPECT_EQ(second.counters.counters_id, first.counters.counters_id);
  EXPECT_EQ(second.counters.created_wall_ns, first.counters.created_wall_ns);
}

// With the sweep ring (BoardSpec::ring) the tail is written only at
// checkpoints and marks: a kill leaves the newest sweeps in the ring alone.
// The next start stores them after the tail's and counts them from the
// stored readings on, so after a clean stop the stored VDD_IN joules equal
// the store's energy of both runs of energyd, the first one whole up to
// its kill.
TEST(EnergyCounters, WithTheSweepRingAKilledEnergydsNewestSweepsAreStoredAndCountedExactly) {
  BoardSpec spec = constant_orin_nano();
  spec.ring = true;
  SimulatedDaemon d(spec);
  ASSERT_TRUE(d.started()) << d.setup_error();
  std::string db = d.dir() + "/state/energyd.db";
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  auto mark = d.ctl_json({"mark", "start", "to-the-tail"});  // a mark's commit writes the tail up to it
  ASSERT_TRUE(mark.is_object());
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  d.stop(SIGKILL);
  DbFacts killed = inspect_database(db, DbOpen::kReadOnly, d.ring());
  int64_t in_tail = inspect_database(db, DbOpen::kReadOnly).last_t_ns;
  ASSERT_GT(killed.ring_last_t_ns, in_tail + 1'500'000'000) << "the ring holds the 2 s after the mark; the tail not";
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // downtime: a gap between the two runs

  ASSERT_TRUE(d.restart(SIGKILL)) << d.log();
  auto status = d.ctl_json({"status"});
  EXPECT_GE(status["storage"]["ring"]["recovered_samples"].get<int64_t>(), 15) << status["storage"].dump();
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  EXPECT_EQ(d.stop(SIGTERM), 0) << d.log();
  EXPECT_TRUE(database_holds(db, killed.ring_last_t_ns)) << "the killed energyd's newest sweep is not stored";
  auto stored = read_stored(db);
  ASSERT_TRUE(stored.error.empty()) << stored.error;
  ASSERT_EQ(stored.runs_uj.size(), 2u) << "two runs of energyd, a gap between";
  EXPECT_GT(stored.runs_uj[0], 3.2e6 * kVddInWatts) << "the first run whole, 3.5 s, not the 1.5 s its tail held";
  EXPECT_NEAR(stored.vdd_in_uj, stored.runs_uj[0] + stored.runs_uj[1], 1.0);
}

// energyd before schema 6 kept the counters in state_dir/energy-counters.json:
// a database without counters takes them once, and the file goes.
TEST(EnergyCounters, TheOldCountersFileIsMovedIntoTheDatabaseOnceAndRemoved) {
  SimulatedDaemon d(constant_orin_nano());
  ASSERT_TRUE(d.started()) << d.setup_error();
  ASSERT_EQ(d.stop(SIGTERM), 0) << d.log();
  std::string state = d.dir() + "/state";
  for (const auto& f : std::filesystem::directory_iterator(state)) {  // the database and its WAL, shm and journal
    if (f.path().filename().string().rfind("energyd.db", 0) == 0) std::filesystem::remove(f.path());
  }
  std::string file = state + "/energy-counters.json";
  std::ofstream(file) << R"({"format":"energyd-counters","version":1,"counters_id":"00112233aabbccdd",)"
                      << R"("created_wall_ns":1700000000000000000,"energy_uj":{"VDD_IN":1000000000,"GONE":5}})";
  ASSERT_TRUE(d.restart(SIGTERM)) << d.log();
  auto c = counters(d);
  EXPECT_EQ(c["counters_id"], "00112233aabbccdd") << c.dump();
  EXPECT_EQ(c["created_wall_ns"], 1700000000000000000);
  EXPECT_GE(vdd_in_j(c), 1000.0);
  EXPECT_LT(vdd_in_j(c), 1000.0 + 2 * kVddInWatts);
  EXPECT_FALSE(std::filesystem::exists(file)) << "the file is removed once its counters are in the database";
  ASSERT_EQ(d.stop(SIGTERM), 0) << d.log();
  auto stored = read_stored(state + "/energyd.db");
  ASSERT_TRUE(stored.error.empty()) << stored.error;
  EXPECT_EQ(stored.counters.counters_id, "00112233aabbccdd");
  EXPECT_NEAR(stored.vdd_in_uj, 1e9 + stored.runs_uj.back(), 1.0);
}

}  // namespace
}  // namespace energy::testing
