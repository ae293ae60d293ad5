// The control protocol's commands (sim/src/control.*), without a socket.
#include "control.h"

#include <gtest/gtest.h>

#include "../time_units.h"
#include "sim_test_util.h"

namespace energy::sim {
namespace {

using nlohmann::json;

class ControlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LiveOptions options;
    options.cpu_load_permille = 0;
    board_ =
        std::move(LiveBoard::create(test::board("jetson-orin-nano", 36), options, [this] { return now_; })).value();
    fs_ = std::move(LiveFs::create(*board_, TreeOptions{})).value();
  }
  json call(const json& request) { return handle_control(*board_, *fs_, request); }
  static std::string code(const json& reply) { return reply.at("error").at("code").get<std::string>(); }
  static std::string message(const json& reply) { return reply.at("error").at("message").get<std::string>(); }

  std::int64_t now_ = 2000 * kMs;
  std::unique_ptr<LiveBoard> board_;
  std::unique_ptr<LiveFs> fs_;
};

TEST_F(ControlTest, StatusDescribesTheBoardRailsGpusAndFaults) {
  const json reply = call({{"cmd", "status"}, {"id", 7}});
  ASSERT_TRUE(reply.at("ok").get<bool>()) << reply.dump();
  EXPECT_EQ(reply.at("id"), 7);
  EXPECT_EQ(reply.at("board"), "jetson-orin-nano");
  EXPECT_EQ(reply.at("rails").size(), 3u);
  EXPECT_EQ(reply.at("rails")[0].at("rail"), "VDD_IN");
  EXPECT_GT(reply.at("rails")[0].at("power_mw").get<double>(), 3000);
  EXPECT_EQ(reply.at("gpus")[0].at("gpu"), "17000000.gpu");
  EXPECT_EQ(reply.at("total_rails"), json::array({"VDD_IN"}));
  EXPECT_TRUE(reply.at("faults").empty());
}

TEST_F(ControlTest, EnergyIsTheExactIntegralOfTheRailsPower) {
  ASSERT_TRUE(call({{"cmd", "set_rail"}, {"rail", "VDD_SOC"}, {"mv", 5000}, {"ma", 200}}).at("ok").get<bool>());
  now_ += 1000 * kMs;
  const json reply = call({{"cmd", "energy"}, {"rail", "VDD_SOC"}, {"from_ns", 2100 * kMs}, {"to_ns", 2600 * kMs}});
  ASSERT_TRUE(reply.at("ok").get<bool>()) << reply.dump();
  EXPECT_NEAR(reply.at("energy_uj").get<double>(), 1000.0 * 500, 1e-6);  // 1000 mW x 500 ms
  const json power = call({{"cmd", "power"}, {"rail", "VDD_SOC"}, {"t_ns", 2200 * kMs}});
  EXPECT_NEAR(power.at("power_mw").get<double>(), 1000.0, 1e-9);
}

TEST_F(ControlTest, ErrorsNameTheArgumentOrStateAtFault) {
  const json unknown = call({{"cmd", "frobnicate"}});
  EXPECT_EQ(code(unknown), "invalid");
  EXPECT_NE(message(unknown).find("frobnicate"), std::string::npos);
  EXPECT_EQ(code(call({{"cmd", 3}})), "protocol");
  EXPECT_EQ(code(call(json::array())), "protocol");
  EXPECT_NE(message(call({{"cmd", "energy"}, {"rail", "VDD_IN"}, {"from_ns", 1}})).find("to_ns"), std::string::npos);
  EXPECT_NE(message(call({{"cmd", "energy"}, {"rail", "VDD_IN"}, {"from_ns", "x"}, {"to_ns", 1}})).find("from_ns"),
            std::string::npos);
  EXPECT_EQ(code(call({{"cmd", "set_gpu_load"}, {"permille", 1001}})), "invalid");
  EXPECT_EQ(code(call({{"cmd", "set_gpu_load"}, {"permille", 10}, {"gpu", "nvd"}})), "not_found");
  EXPECT_EQ(code(call({{"cmd", "fault"}, {"rail", "VDD_IN"}, {"kind", "smoke"}})), "invalid");
  EXPECT_EQ(code(call({{"cmd", "fault"}, {"rail", "VDD_IN"}, {"kind", "eio"}, {"ms", 5}})), "invalid");
  EXPECT_EQ(code(call({{"cmd", "fault"}, {"rail", "VDD_IN"}, {"kind", "eio"}, {"count", 0}})), "invalid");
  EXPECT_EQ(code(call({{"cmd", "clear_fault"}, {"rail", "VDD_IN"}})), "state");
  EXPECT_EQ(code(call({{"cmd", "renumber"}})), "invalid");
  EXPECT_EQ(code(call({{"cmd", "vanish"}, {"device", "3-0040"}})), "not_found");
  EXPECT_EQ(code(call({{"cmd", "clear_rail"}, {"rail", "VDD_IN"}})), "state");
  EXPECT_EQ(code(call({{"cmd", "energy"}, {"rail", "VDD_IN"}, {"from_ns", 0}, {"to_ns", now_ + 1}})), "invalid");
}

TEST_F(ControlTest, GpuLoadDrivesTheGovernedFrequency) {
  EXPECT_EQ(call({{"cmd", "gpu"}}).at("cur_hz"), 306000000u);
  ASSERT_TRUE(call({{"cmd", "set_gpu_load"}, {"permille", 1000}}).at("ok").get<bool>());
  const json gpu = call({{"cmd", "gpu"}, {"gpu", "17000000.gpu"}});
  EXPECT_EQ(gpu.at("cur_hz"), 624750000u);
  EXPECT_EQ(gpu.at("load_permille"), 1000);
}

TEST_F(ControlTest, CpuLoadCanBePinnedAndReleasedToTheHost) {
  EXPECT_EQ(call({{"cmd", "set_cpu_load"}, {"permille", 400}}).at("source"), "pinned");
  board_->feed_host_cpu_load(900);
  EXPECT_EQ(call({{"cmd", "status"}}).at("cpu_load_permille"), 400);
  EXPECT_EQ(call({{"cmd", "set_cpu_load"}}).at("source"), "host");
  board_->feed_host_cpu_load(900);
  EXPECT_EQ(call({{"cmd", "status"}}).at("cpu_load_permille"), 900);
}

// A study workload's phase pins N busy threads: N x 1000 / 6 CPUs on the Orin Nano.
TEST_F(ControlTest, CpuLoadCanBePinnedAsBusyThreads) {
  const json pinned = call({{"cmd", "set_cpu_load"}, {"threads", 3}});
  ASSERT_TRUE(pinned.at("ok").get<bool>()) << pinned.dump();
  EXPECT_EQ(pinned.at("permille"), 500);
  EXPECT_EQ(pinned.at("peak_permille"), 1000);  // the CPU governor follows the busiest CPU (A41)
  board_->feed_host_cpu_load(900);
  const json cpu = call({{"cmd", "cpu"}});
  EXPECT_EQ(cpu.at("load_permille"), 500);
  EXPECT_FALSE(cpu.at("policies").empty());
  EXPECT_GT(cpu.at("policies")[0].at("cur_khz").get<std::uint32_t>(), 0u);
  EXPECT_EQ(call({{"cmd", "set_cpu_load"}, {"threads", 12}}).at("permille"), 1000);
  EXPECT_EQ(call({{"cmd", "set_cpu_load"}, {"threads", 0}}).at("peak_permille"), 0);
  EXPECT_EQ(code(call({{"cmd", "set_cpu_load"}, {"threads", -1}})), "invalid");
  EXPECT_EQ(code(call({{"cmd", "set_cpu_load"}, {"threads", "two"}})), "invalid");
}

// A spin-waiting host thread holds the governor up (peak 1000) but draws
// kSpinActivity of a busy thread: 1 busy + 2 spinning on 6 CPUs = 1.5 / 6.
TEST_F(ControlTest, SpinningThreadsCountAShareOfABusyOne) {
  const json spin = call({{"cmd", "set_cpu_load"}, {"threads", 1}, {"spinning", 2}});
  ASSERT_TRUE(spin.at("ok").get<bool>()) << spin.dump();
  EXPECT_EQ(spin.at("permille"), 250);
  EXPECT_EQ(spin.at("peak_permille"), 1000);
  EXPECT_EQ(spin.at("spinning"), 2);
  EXPECT_EQ(call({{"cmd", "set_cpu_load"}, {"threads", 0}, {"spinning", 1}}).at("peak_permille"), 1000);
  EXPECT_EQ(code(call({{"cmd", "set_cpu_load"}, {"threads", 1}, {"spinning", -1}})), "invalid");
  EXPECT_EQ(code(call({{"cmd", "set_cpu_load"}, {"threads", 1}, {"spinning", 2000}})), "invalid");
}

TEST_F(ControlTest, FaultsAndVanishedDevicesShowInStatus) {
  ASSERT_TRUE(call({{"cmd", "fault"}, {"rail", "VDD_IN"}, {"kind", "block"}, {"ms", 50}}).at("ok").get<bool>());
  ASSERT_TRUE(call({{"cmd", "vanish"}, {"device", "1-0040"}}).at("ok").get<bool>());
  const json status = call({{"cmd", "status"}});
  ASSERT_EQ(status.at("faults").size(), 1u);
  EXPECT_EQ(status.at("faults")[0].at("kind"), "block");
  EXPECT_EQ(status.at("faults")[0].at("rail"), "VDD_IN");
  EXPECT_EQ(status.at("faults")[0].at("ms"), 50);
  EXPECT_EQ(status.at("vanished"), json::array({"1-0040"}));
  EXPECT_TRUE(call({{"cmd", "clear_fault"}}).at("ok").get<bool>());
  EXPECT_TRUE(call({{"cmd", "restore"}, {"device", "1-0040"}}).at("ok").get<bool>());
  EXPECT_EQ(call({{"cmd", "renumber"}, {"hwmon_offset", 4}}).at("hwmon_offset"), 4);
}

}  // namespace
}  // namespace energy::sim
