// Retention in the running daemon (QUALITY.md D5): raw readings of an
// earlier boot that are older than raw_retention_hours by the wall clock are
// downsampled by the storage writer on its own, `energyctl status` shows
// the tiers, the budget and the retention passes, and a bad retention key
// stops energyd with a message naming it.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include <nlohmann/json.hpp>

#include "../time_units.h"
#include "energy/chunker.h"
#include "energy/store.h"
#include "harness.h"

namespace energy::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int64_t kDay = 86'400 * kSec;

int64_t wall_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return ts.tv_sec * kSec + ts.tv_nsec;
}

// 20 minutes of a constant 4 W rail, recorded by an earlier boot 30 days ago.
void write_old_boot(const std::string& db_path) {
  auto store = std::move(Store::open(db_path, StoreRole::kWriter, 5000)).value();
  int64_t offset = wall_now_ns() - 30 * kDay;
  int64_t boot = *store->ensure_boot("an-earlier-boot", offset);
  RailInfo rail;
  rail.label = "OLD_RAIL";
  rail.device = "1-0040";
  auto ids = *store->ensure_rails({rail});
  Chunker chunker({ChunkRail{0}}, 600, {});
  for (int64_t i = 0; i < 12'000; ++i) {
    int64_t t = i * 100'000'000;
    chunker.add(Sample{t, t + offset, {RailValue{4'000'000, 5000, 800, 0}}});
  }
  ASSERT_TRUE(store->begin().ok());
  for (const auto& c : chunker.take_closed()) ASSERT_TRUE(store->readings().put_chunk(boot, ids, c).ok());
  ASSERT_TRUE(store->readings().put_chunk(boot, ids, chunker.open_chunk()).ok());
  ASSERT_TRUE(store->commit().ok());
}

class Retention : public ::testing::Test {
 protected:
  void SetUp() override {
    auto made = run_command(
        {ENERGYD_SIM_BIN, "create", "--board", "jetson-orin-nano", "--l4t", "36", "--root", tmp_.path() + "/board"});
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }
  std::vector<std::string> argv(const std::string& config) const {
    return {ENERGYD_BIN,   "--config", config,     "--root", tmp_.path() + "/board",
            "--state-dir", state(),    "--socket", sock(),   "--flush-interval-ms",
            "200"};
  }
  std::string state() const { return tmp_.path() + "/state"; }
  std::string sock() const { return tmp_.path() + "/s.sock"; }
  std::string config(const std::string& yaml) const {
    std::string path = tmp_.path() + "/energyd.yaml";
    std::ofstream(path) << yaml;
    return path;
  }
  nlohmann::json status() const {
    auto r = run_command({ENERGYCTL_BIN, "--socket", sock(), "--json", "status"});
    return nlohmann::json::parse(r.out, nullptr, false);
  }
  // Polls status until `pred` holds for it or the timeout passes.
  bool eventually(const std::function<bool(const nlohmann::json&)>& pred, milliseconds timeout) const {
    return testing::eventually(
        [&] {
          auto st = status();
          return !st.is_discarded() && pred(st);
        },
        timeout);
  }

  TempDir tmp_;
};

TEST_F(Retention, OldRawReadingsOfAnEarlierBootAreDownsampledAndShownInStatus) {
  std::filesystem::create_directories(state());
  write_old_boot(state() + "/energyd.db");
  ChildProcess daemon(argv(config("disk_budget_mb: 64\n")), tmp_.path() + "/log");
  ASSERT_TRUE(wait_for_socket(sock(), seconds(10))) << read_file(tmp_.path() + "/log");
  auto done = [](const nlohmann::json& st) {
    const auto& r = st["storage"]["retention"];
    return r["passes"].get<int>() >= 1 && r["raw_chunks_downsampled"].get<int>() >= 20;
  };
  ASSERT_TRUE(eventually(done, seconds(20))) << status().dump(2) << read_file(tmp_.path() + "/log");
  const auto r = status()["storage"]["retention"];
  EXPECT_EQ(r["disk_budget_bytes"].get<int64_t>(), 64LL * 1024 * 1024);
  EXPECT_EQ(r["raw_retention_hours"].get<int>(), 168);
  EXPECT_FALSE(r["over_budget"].get<bool>());
  EXPECT_EQ(r["errors"].get<int>(), 0);
  ASSERT_EQ(r["tiers"].size(), 3u);
  EXPECT_EQ(r["tiers"][0]["tier"], "raw");
  EXPECT_EQ(r["tiers"][1]["tier"], "1s");
  EXPECT_GE(r["tiers"][1]["rows"].get<int>(), 2);  // 20 minutes of 1 s buckets: two rows
  ASSERT_TRUE(r["footprint_age_ms"].is_number_integer()) << r.dump(2);
  EXPECT_GE(r["footprint_age_ms"].get<int64_t>(), 0);
  EXPECT_GT(r["budget_bytes_used"].get<int64_t>(), 0);
  EXPECT_LE(r["budget_bytes_used"].get<int64_t>(), 64LL * 1024 * 1024);
  EXPECT_EQ(daemon.stop(SIGTERM), 0);
  auto store = Store::open(state() + "/energyd.db", StoreRole::kReader, 5000);
  ASSERT_TRUE(store.ok());
  auto e = (*store)->readings().energy(1, 1, {60 * kSec, 1140 * kSec});  // the earlier boot's first rail
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_EQ((*e)->tier, Tier::kSecond);
  EXPECT_NEAR((*e)->energy_uj, 4.0 * 1080e6, kTierEnergyQuantumUj);
}

TEST_F(Retention, ABadRetentionKeyStopsEnergydNamingIt) {
  auto r = run_command(argv(config("minute_retention_days: 3\n")));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("minute_retention_days"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace energy::testing
