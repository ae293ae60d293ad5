// Sensor averaging (docs/BOARDS.md): with `sensor_averaging: period` energyd
// sets each INA3221 hwmon chip's `samples` and conversion time (through
// update_interval) so that update_interval spans four sampling periods with
// the shortest conversions, measures with the filter the chip really has, and
// puts the chip's own values back at a clean stop and after kill -9 + restart;
// `keep` writes nothing; a samples file that refuses the write is one clear
// log line and energyd keeps measuring; a bad value of the key is refused
// naming the key and the value. Live boards are energyd-sim run (FUSE), whose
// update_interval follows `samples` and sets the conversion time as the
// driver's does.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "board_fixture.h"

namespace energy::testing {
namespace {

using std::chrono::seconds;

BoardSpec live_agx_orin(const std::string& extra_config = "") {
  BoardSpec s;
  s.board = "jetson-agx-orin";
  s.l4t = "36";
  s.live = true;
  s.sim_args = {"--cpu-load", "0"};
  s.extra_config = extra_config;
  return s;
}

// Host path of `name` in I2C device `device`'s hwmon directory under `board`.
std::string hwmon_file(const std::string& board, const std::string& device, const std::string& name) {
  std::string dir = board + "/sys/bus/i2c/devices/" + device + "/hwmon";
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("hwmon", 0) == 0) return e.path().string() + "/" + name;
  }
  ADD_FAILURE() << "no hwmon directory under " << dir;
  return dir + "/missing";
}

std::string first_word(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  in >> s;
  return s;
}

const nlohmann::json* monitor(const nlohmann::json& status, const std::string& device) {
  for (const auto& m : status["monitors"]) {
    if (m["device"] == device) return &m;
  }
  return nullptr;
}

class MonitorAveraging : public ::testing::Test {
 protected:
  void start(const BoardSpec& spec) {
    d_ = std::make_unique<SimulatedDaemon>(spec);
    ASSERT_TRUE(d_->started()) << d_->setup_error();
  }
  std::string board() const { return d_->dir() + "/board"; }
  std::string samples(const std::string& device) const { return first_word(hwmon_file(board(), device, "samples")); }
  std::string update_interval(const std::string& device) const {
    return first_word(hwmon_file(board(), device, "update_interval"));
  }
  std::unique_ptr<SimulatedDaemon> d_;
};

TEST_F(MonitorAveraging, PeriodSetsAFilterOfFourPeriodsAndMeasuresWithTheChipsFilter) {
  start(live_agx_orin());
  EXPECT_EQ(samples("1-0040"), "512");  // 3 channels x 2 x 140 us: 430 ms (256 would give 215)
  EXPECT_EQ(update_interval("1-0040"), "430");
  EXPECT_EQ(samples("1-0041"), "1024");  // 1 channel: 140 us reach 287 ms at most; 2 x 204 us: 418
  EXPECT_EQ(update_interval("1-0041"), "418");
  auto st = d_->ctl_json({"status"});
  EXPECT_EQ(st["sensor_averaging"], "period");
  const nlohmann::json* m = monitor(st, "1-0040");
  ASSERT_NE(m, nullptr) << st.dump();
  EXPECT_EQ((*m)["samples"], 512);
  EXPECT_EQ((*m)["update_interval_ms"], 430);
  EXPECT_EQ((*m)["channels"], 3);
  EXPECT_EQ((*m)["conversion_us"], 140);
  EXPECT_EQ((*m)["filter_ns"], int64_t{511} * 840'000);
  EXPECT_EQ((*m)["set_by_energyd"], true);
  EXPECT_EQ((*m)["own_samples"], 1);
  EXPECT_EQ((*m)["own_update_interval_ms"], 7);
  auto text = d_->ctl({"status"});
  EXPECT_NE(text.out.find("set by energyd (own 1 samples, 7 ms)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("429.24"), std::string::npos) << text.out;
}

TEST_F(MonitorAveraging, ACleanStopPutsTheChipsOwnSamplesBack) {
  start(live_agx_orin());
  ASSERT_EQ(samples("1-0040"), "512");
  EXPECT_EQ(d_->stop(SIGTERM), 0);
  EXPECT_EQ(samples("1-0040"), "1");
  EXPECT_EQ(update_interval("1-0040"), "7") << "1 sample of 1.1 ms conversions again";
  EXPECT_EQ(samples("1-0041"), "1");
  EXPECT_EQ(update_interval("1-0041"), "2");
  EXPECT_NE(d_->log().find("samples put back to 1"), std::string::npos) << d_->log();
}

// After kill -9 the chip holds energyd's 512 x 140 us; the journal says its
// own is 1 x 1.1 ms.
TEST_F(MonitorAveraging, KillNineThenRestartAndStopPutsTheOriginalBackNotTheDaemonsValue) {
  start(live_agx_orin());
  ASSERT_EQ(samples("1-0040"), "512");
  ASSERT_TRUE(d_->restart(SIGKILL)) << d_->setup_error();
  EXPECT_EQ(samples("1-0040"), "512");
  auto st = d_->ctl_json({"status"});
  const nlohmann::json* m = monitor(st, "1-0040");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ((*m)["own_samples"], 1) << "the journal's value, not the 512 the chip had at the restart";
  EXPECT_EQ((*m)["own_update_interval_ms"], 7) << "the journal's value, not 430";
  EXPECT_EQ(d_->stop(SIGTERM), 0);
  EXPECT_EQ(samples("1-0040"), "1");
  EXPECT_EQ(update_interval("1-0040"), "7");
  EXPECT_EQ(samples("1-0041"), "1");
  EXPECT_EQ(update_interval("1-0041"), "2");
}

TEST_F(MonitorAveraging, KeepWritesNothingAndSaysReadingsAreSnapshots) {
  start(live_agx_orin("sensor_averaging: keep\n"));
  EXPECT_EQ(samples("1-0040"), "1");
  EXPECT_EQ(samples("1-0041"), "1");
  auto st = d_->ctl_json({"status"});
  EXPECT_EQ(st["sensor_averaging"], "keep");
  for (const auto& m : st["monitors"]) {
    EXPECT_EQ(m["set_by_energyd"], false) << m.dump();
    EXPECT_EQ(m["filter_ns"], 0) << m.dump();
  }
  EXPECT_NE(d_->log().find("snapshot"), std::string::npos) << d_->log();
  EXPECT_EQ(d_->stop(SIGTERM), 0);
  EXPECT_EQ(samples("1-0040"), "1");
  EXPECT_FALSE(std::filesystem::exists(d_->dir() + "/state/sensor-averaging.json"));
}

// A read-only samples file, as under the systemd unit's ProtectSystem=strict
// without a ReadWritePaths= for it (docs/INSTALL.md): EROFS on the write.
TEST_F(MonitorAveraging, AnUnwritableSamplesFileIsOneClearLineAndMeasuringGoesOn) {
  TempDir tmp;
  std::string root = tmp.path() + "/board";
  auto made = run_command({ENERGYD_SIM_BIN, "create", "--board", "jetson-agx-orin", "--l4t", "36", "--root", root});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  std::string file = hwmon_file(root, "1-0040", "samples");
  if (::mount(file.c_str(), file.c_str(), nullptr, MS_BIND, nullptr) != 0) {
    GTEST_SKIP() << "cannot bind-mount (" << std::strerror(errno) << "): needs root";
  }
  struct Unmount {
    std::string path;
    ~Unmount() { ::umount2(path.c_str(), MNT_DETACH); }
  } unmount{file};
  ASSERT_EQ(::mount(nullptr, file.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY, nullptr), 0)
      << std::strerror(errno);
  std::string sock = tmp.path() + "/s.sock";
  ChildProcess daemon({ENERGYD_BIN, "--root", root, "--state-dir", tmp.path() + "/state", "--socket", sock},
                      tmp.path() + "/energyd.log");
  ASSERT_TRUE(wait_for_socket(sock, seconds(10))) << read_file(tmp.path() + "/energyd.log");
  std::string log = read_file(tmp.path() + "/energyd.log");
  std::string board_path = file.substr(root.size());
  size_t at = log.find("cannot set the averaging of ina3221 1-0040");
  ASSERT_NE(at, std::string::npos) << log;
  std::string line = log.substr(at, log.find('\n', at) - at);
  EXPECT_NE(line.find(board_path), std::string::npos) << line;
  EXPECT_NE(line.find("Read-only file system"), std::string::npos) << line;
  EXPECT_NE(line.find("keeps samples 1"), std::string::npos) << line;
  EXPECT_EQ(first_word(file), "1");
  EXPECT_EQ(first_word(hwmon_file(root, "1-0041", "samples")), "1024") << "the other chip is still set";
  auto r = run_command({ENERGYCTL_BIN, "--socket", sock, "--json", "status"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto st = nlohmann::json::parse(r.out);
  const nlohmann::json* m = monitor(st, "1-0040");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ((*m)["set_by_energyd"], false);
  EXPECT_EQ((*m)["filter_ns"], 0);
  EXPECT_NE((*m).value("error", std::string()).find("Read-only file system"), std::string::npos) << m->dump();
  for (const auto& rail : st["rails"]) EXPECT_FALSE(rail.contains("errno")) << rail.dump();
  EXPECT_EQ(daemon.stop(SIGTERM), 0);
}

TEST(MonitorAveragingConfig, ABadValueIsRefusedNamingTheKeyAndTheValue) {
  TempDir tmp;
  std::ofstream(tmp.path() + "/energyd.yaml") << "sensor_averaging: always\n";
  auto r = run_command({ENERGYD_BIN, "--config", tmp.path() + "/energyd.yaml", "--root", tmp.path(), "--state-dir",
                        tmp.path() + "/state", "--socket", tmp.path() + "/s.sock"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("key 'sensor_averaging'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'always'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("period or keep"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace energy::testing
