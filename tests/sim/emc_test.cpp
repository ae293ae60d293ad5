// The memory clock (sim/src/emc.h): its files per generation as
// jetson-sysfs.md 3.5 gives them, the governor, pins through the files, and
// what the rate does to memory time and DDR power. Model time only.
#include "emc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "energysim/catalog.h"
#include "model_power.h"
#include "sim_test_util.h"
#include "study.h"

namespace energy::sim {
namespace {

std::string read(const test::BuiltBoard& b, const std::string& path, const BoardState& state) {
  Result<std::string> text = b.tree.read(path, state);
  return text ? *text : "<" + text.error().message + ">";
}

std::uint32_t mode_of(const test::BuiltBoard& b, const std::string& path) {
  const Node* node = b.tree.find(path);
  return node == nullptr ? 0 : node->mode();
}

Status write(const test::BuiltBoard& b, const std::string& path, BoardState& state, std::string_view text) {
  const Node* node = b.tree.resolve(path);
  if (node == nullptr) return make_error(ErrorCode::kNotFound, path);
  return node->write(state, text);
}

// The board's governed state with `load` per-mille on the GPU and the busiest CPU.
BoardState governed_at(const BoardSpec& spec, const BoardState& board, std::uint32_t load) {
  ModelControls c{board, load, {}};
  c.cpu_peak_permille = load;
  for (auto& [name, gpu] : c.board.gpus) gpu.load_permille = load;
  return governed_state(spec, c);
}

TEST(Emc, EveryBoardOfTheCatalogHasAnAscendingEmcTable) {
  int boards = 0;
  for (const CatalogEntry& entry : test::reference_catalog().entries()) {
    if (!entry.spec.ok()) continue;  // not simulated (A24)
    const EmcSpec& emc = entry.spec->emc;
    EXPECT_NE(emc.layout, EmcLayout::kNone) << entry.board_id << " L4T " << entry.l4t;
    EXPECT_GE(emc.rates_hz.size(), 3u) << entry.board_id;
    EXPECT_TRUE(std::is_sorted(emc.rates_hz.begin(), emc.rates_hz.end())) << entry.board_id;
    ++boards;
  }
  EXPECT_GE(boards, 10);
}

TEST(Emc, NanoHasTheT210DebugfsFilesWithItsRateTable) {
  const test::BuiltBoard b = test::build("jetson-nano-4gb", 32);
  const BoardState idle = idle_state(b.spec);
  EXPECT_EQ(b.spec.emc.rates_hz.size(), 7u);
  EXPECT_EQ(read(b, "/sys/kernel/debug/tegra_bwmgr/emc_max_rate", idle), "1600000000\n");
  EXPECT_EQ(read(b, "/sys/kernel/debug/tegra_bwmgr/emc_min_rate", idle), "204000000\n");
  EXPECT_EQ(read(b, "/sys/kernel/debug/clk/override.emc/clk_rate", idle), "204000000\n");
  EXPECT_EQ(read(b, "/sys/kernel/debug/clk/emc/clk_rate", idle), "204000000\n");
  EXPECT_EQ(read(b, "/sys/kernel/debug/clk/override.emc/clk_state", idle), "0\n");
  EXPECT_EQ(mode_of(b, "/sys/kernel/debug/clk/override.emc/clk_rate"), 0400u);
  EXPECT_EQ(mode_of(b, "/sys/kernel/debug/clk/override.emc/clk_update_rate"), 0600u);
  EXPECT_EQ(mode_of(b, "/sys/kernel/debug/clk/override.emc/clk_state"), 0600u);
  EXPECT_EQ(b.tree.find("/sys/kernel/debug/bpmp"), nullptr);
  EXPECT_EQ(b.tree.find("/sys/kernel/nvpmodel_emc_cap"), nullptr);
}

TEST(Emc, BpmpBoardsHaveTheClkEmcDirectoryAndTheIsoCap) {
  const std::string dir = "/sys/kernel/debug/bpmp/debug/clk/emc/";
  const test::BuiltBoard orin = test::build("jetson-agx-orin", 36);
  const BoardState idle = idle_state(orin.spec);
  EXPECT_EQ(read(orin, dir + "possible_rates", idle), "204000000 665600000 2133000000 3199000000\n");
  EXPECT_EQ(read(orin, dir + "max_rate", idle), "3199000000\n");
  EXPECT_EQ(read(orin, dir + "min_rate", idle), "204000000\n");
  EXPECT_EQ(read(orin, dir + "rate", idle), "204000000\n");
  EXPECT_EQ(read(orin, dir + "mrq_rate_locked", idle), "0\n");
  EXPECT_EQ(read(orin, "/sys/kernel/nvpmodel_emc_cap/emc_iso_cap", idle), "0\n");
  EXPECT_EQ(mode_of(orin, dir + "rate"), 0600u);
  EXPECT_EQ(mode_of(orin, dir + "possible_rates"), 0400u);
  // A maximum alone (Orin Nano 2133 MHz, TX2 1866 MHz) gets the low rates below it (A48).
  EXPECT_EQ(read(test::build("jetson-orin-nano", 36), dir + "max_rate", idle), "2133000000\n");
  const test::BuiltBoard tx2 = test::build("jetson-tx2", 32);
  EXPECT_EQ(read(tx2, dir + "possible_rates", idle_state(tx2.spec)), "204000000 665600000 1866000000\n");
  EXPECT_EQ(tx2.tree.find("/sys/kernel/debug/clk/override.emc"), nullptr);
}

TEST(Emc, ThorHasTheDevfreqBwmgr) {
  const test::BuiltBoard b = test::build("jetson-agx-thor", 38);
  const BoardState idle = idle_state(b.spec);
  const std::string dir = "/sys/class/devfreq/bwmgr/";
  EXPECT_EQ(read(b, dir + "cur_freq", idle), std::to_string(b.spec.emc.rates_hz.front()) + "\n");
  EXPECT_EQ(read(b, dir + "max_freq", idle), std::to_string(b.spec.emc.rates_hz.back()) + "\n");
  EXPECT_EQ(read(b, dir + "governor", idle).rfind("bpmp-bw", 0), 0u);
  EXPECT_EQ(b.tree.find("/sys/kernel/debug/bpmp"), nullptr);
}

TEST(Emc, TheGovernorFollowsTheLoadAndSitsAtTheTopUnderLoad) {
  const BoardSpec spec = test::board("jetson-nano-4gb", 32);
  const BoardState idle = idle_state(spec);
  const std::uint64_t top = spec.emc.rates_hz.back();
  EXPECT_EQ(governed_at(spec, idle, 0).emc.rate_hz, spec.emc.rates_hz.front());
  const std::uint64_t half = governed_at(spec, idle, 300).emc.rate_hz;
  EXPECT_GT(half, spec.emc.rates_hz.front());
  EXPECT_LT(half, top);
  EXPECT_EQ(governed_at(spec, idle, 600).emc.rate_hz, top);
  EXPECT_EQ(governed_at(spec, idle, 1000).emc.rate_hz, top);
}

TEST(Emc, WritesThroughTheBpmpFilesPinTheRate) {
  const test::BuiltBoard b = test::build("jetson-agx-orin", 36);
  const std::string dir = "/sys/kernel/debug/bpmp/debug/clk/emc/";
  BoardState s = idle_state(b.spec);
  ASSERT_TRUE(write(b, dir + "mrq_rate_locked", s, "1\n"));
  ASSERT_TRUE(write(b, dir + "rate", s, "665600000"));
  EXPECT_EQ(governed_at(b.spec, s, 1000).emc.rate_hz, 665600000u);  // held under full load
  ASSERT_TRUE(write(b, dir + "rate", s, "700000000"));              // rounded up to the next listed rate
  EXPECT_EQ(governed_at(b.spec, s, 0).emc.rate_hz, 2133000000u);    // held at idle
  EXPECT_FALSE(write(b, dir + "rate", s, "0"));
  EXPECT_FALSE(write(b, dir + "rate", s, "fast"));
  EXPECT_FALSE(write(b, dir + "mrq_rate_locked", s, "2"));
  EXPECT_FALSE(write(b, dir + "max_rate", s, "204000000"));
  ASSERT_TRUE(write(b, dir + "mrq_rate_locked", s, "0"));
  EXPECT_EQ(governed_at(b.spec, s, 0).emc.rate_hz, 204000000u);  // handed back to the governor
}

TEST(Emc, T210OverrideAndThorDevfreqPinTheRate) {
  const test::BuiltBoard nano = test::build("jetson-nano-4gb", 32);
  BoardState s = idle_state(nano.spec);
  ASSERT_TRUE(write(nano, "/sys/kernel/debug/clk/override.emc/clk_update_rate", s, "800000000\n"));
  EXPECT_EQ(governed_at(nano.spec, s, 0).emc.rate_hz, 204000000u);  // not yet: clk_state is 0
  ASSERT_TRUE(write(nano, "/sys/kernel/debug/clk/override.emc/clk_state", s, "1\n"));
  EXPECT_EQ(governed_at(nano.spec, s, 1000).emc.rate_hz, 800000000u);
  const test::BuiltBoard thor = test::build("jetson-agx-thor", 38);
  BoardState t = idle_state(thor.spec);
  const std::string low = std::to_string(thor.spec.emc.rates_hz.front());
  ASSERT_TRUE(write(thor, "/sys/class/devfreq/bwmgr/max_freq", t, low));
  EXPECT_EQ(governed_at(thor.spec, t, 1000).emc.rate_hz, thor.spec.emc.rates_hz.front());
  EXPECT_FALSE(write(thor, "/sys/class/devfreq/bwmgr/max_freq", t, "12345"));
  EXPECT_FALSE(write(thor, "/sys/class/devfreq/bwmgr/governor", t, "ondemand"));
}

// Nano at its top CPU and GPU clocks, with the EMC pinned at `emc_hz` (0: the governor's pick).
double latency_ms(const BoardSpec& spec, const char* preset, std::uint64_t emc_hz) {
  const StudyClocks clocks{spec.cpu.available_khz.back(), spec.gpus.front().available_hz.back(), emc_hz};
  Result<StudyResult> r = evaluate_study(spec, *preset_mix(preset), 8, fixed_clocks(clocks));
  EXPECT_TRUE(r) << r.error().message;
  return r ? r->time_per_item_ms : 0.0;
}

TEST(Emc, MemoryBoundItemsSlowDownAtALowPinnedRateGpuBoundOnesHardly) {
  const BoardSpec spec = test::board("jetson-nano-4gb", 32);
  const std::uint64_t top = spec.emc.rates_hz.back();
  const std::uint64_t low = 800000000;  // half the top rate
  const double memory_top = latency_ms(spec, "memory-bound", top);
  EXPECT_DOUBLE_EQ(latency_ms(spec, "memory-bound", 0), memory_top);  // the governor holds the top under load
  const double memory_low = latency_ms(spec, "memory-bound", low);
  EXPECT_GT(memory_low, 1.25 * memory_top);
  const double gpu_top = latency_ms(spec, "gpu-bound", top);
  const double gpu_low = latency_ms(spec, "gpu-bound", low);
  EXPECT_GT(gpu_low, gpu_top);
  EXPECT_LT(gpu_low, 1.1 * gpu_top);
  // Half the rate costs a memory-bound item several times what it costs a gpu-bound one.
  EXPECT_GT(memory_low - memory_top, 5 * (gpu_low - gpu_top));
  std::cout << "[ emc ] Nano batch 8, CPU and GPU at the top: memory-bound " << memory_top << " / "
            << latency_ms(spec, "memory-bound", low) << " / "
            << latency_ms(spec, "memory-bound", spec.emc.rates_hz.front())
            << " ms per item at EMC 1600 / 800 / 204 MHz; gpu-bound " << gpu_top << " / "
            << latency_ms(spec, "gpu-bound", low) << " / " << latency_ms(spec, "gpu-bound", spec.emc.rates_hz.front())
            << " ms\n";
  const StudyClocks unlisted{spec.cpu.available_khz.back(), spec.gpus.front().available_hz.back(), 123};
  EXPECT_FALSE(evaluate_study(spec, *preset_mix("memory-bound"), 8, fixed_clocks(unlisted)));
}

// DDR power grows with the EMC rate under load (AGX Orin measures it on VDDQ_VDD2_1V8AO).
TEST(Emc, DdrPowerGrowsWithTheRate) {
  const BoardSpec spec = test::board("jetson-agx-orin", 36);
  const PowerTopology topology = build_topology(spec);
  std::size_t ddr = topology.rails.size();
  for (std::size_t r = 0; r < topology.rails.size(); ++r) {
    if (topology.rails[r].label == "VDDQ_VDD2_1V8AO") ddr = r;
  }
  ASSERT_LT(ddr, topology.rails.size());
  auto ddr_mw = [&](std::uint64_t pinned, std::uint32_t load) {
    ModelControls c{idle_state(spec), load, {}};
    for (auto& [name, gpu] : c.board.gpus) gpu.load_permille = load;
    c.board.emc.locked = true;
    c.board.emc.pinned_hz = pinned;
    return rail_levels(topology, spec, c)[ddr].power_mw;
  };
  EXPECT_GT(ddr_mw(3199000000, 1000), ddr_mw(665600000, 1000) + 1.0);
  EXPECT_GT(ddr_mw(3199000000, 1000), ddr_mw(3199000000, 200) + 1.0);
  EXPECT_DOUBLE_EQ(ddr_mw(3199000000, 0), ddr_mw(204000000, 0));  // idle: no dynamic part
}

}  // namespace
}  // namespace energy::sim
