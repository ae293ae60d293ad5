// The residency counters of the simulated clock domains (sim/src/clock_counters.*):
// cpufreq stats/time_in_state and total_trans, devfreq trans_stat, checked
// against the model's own clock history stepped millisecond by millisecond,
// and read through the live tree.
#include "clock_counters.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "../time_units.h"
#include "idle_controls.h"
#include "live_board.h"
#include "live_fs.h"
#include "model.h"
#include "sim_test_util.h"

namespace energy::sim {
namespace {

constexpr std::int64_t kCountersStart = 5000 * kMs;  // CLOCK_BOOTTIME of the model's start

// A load that changes faster than a 100 ms poll: the governors' 20 / 50 ms
// samples follow it up and down.
ModelControls dvfs_controls(const BoardSpec& spec, std::int64_t step) {
  ModelControls c = idle_controls(spec);
  const std::uint32_t busy = step % 3 == 0 ? 1000 : (step % 3 == 1 ? 100 : 500);
  c.cpu_load_permille = busy;
  c.cpu_peak_permille = busy;
  c.board.gpus.at(spec.gpus.front().devfreq_name).load_permille = 1000 - busy;
  return c;
}

// Time per frequency since boot, by stepping the model 1 ms at a time (its
// events all fall on whole milliseconds here: exact grids, ms updates).
struct BruteForce {
  std::map<int, std::map<std::uint64_t, std::uint64_t>> cpu_ns;  // policy -> kHz -> ns
  std::map<std::uint64_t, std::uint64_t> gpu_ns;                 // Hz -> ns, 0 = gated
};

void add_ms(BruteForce& truth, const BoardState& s, const std::string& gpu) {
  for (const auto& [policy, p] : s.policies) truth.cpu_ns[policy][p.cur_khz] += kMs;
  truth.gpu_ns[s.gpus.at(gpu).cur_hz] += kMs;
}

TEST(ClockCounters, TimePerFrequencyIsTheModelsClockHistoryExactly) {
  const BoardSpec spec = test::board("jetson-orin-nano", 36);
  const std::string gpu = spec.gpus.front().devfreq_name;
  PowerModel model(spec, dvfs_controls(spec, 0), kCountersStart, ModelOptions{7, 0.0});
  BruteForce truth;
  for (std::int64_t ms = 0; ms < kCountersStart / kMs; ++ms) add_ms(truth, model.governed(), gpu);  // at rest before
  const std::int64_t end = kCountersStart + 3000 * kMs;
  for (std::int64_t t = kCountersStart; t < end; t += kMs) {
    const std::int64_t step = (t - kCountersStart) / (70 * kMs);  // a new load every 70 ms
    if ((t - kCountersStart) % (70 * kMs) == 0 && t > kCountersStart) {
      ASSERT_TRUE(model.update(t, dvfs_controls(spec, step)));
    }
    model.advance_to(t);
    add_ms(truth, model.governed(), gpu);
  }
  model.advance_to(end);
  BoardState state = model.governed();
  model.fill_clock_stats(state, end);
  std::uint64_t transitions = 0;
  for (const auto& [policy, p] : state.policies) {
    const ClockStats& stats = p.stats;
    ASSERT_EQ(stats.time_ns.size(), spec.cpu.available_khz.size());
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < stats.time_ns.size(); ++i) {
      EXPECT_EQ(stats.time_ns[i], truth.cpu_ns[policy][spec.cpu.available_khz[i]]) << spec.cpu.available_khz[i];
      sum += stats.time_ns[i];
    }
    EXPECT_EQ(sum, static_cast<std::uint64_t>(end));  // every ns since boot, once
    EXPECT_EQ(spec.cpu.available_khz[stats.last], p.cur_khz);
    transitions += stats.total_transitions;
  }
  EXPECT_GT(transitions, 20u);  // the load did move the clock
  const ClockStats& g = state.gpus.at(gpu).stats;
  std::uint64_t gpu_sum = 0;
  for (std::size_t i = 0; i < g.time_ns.size(); ++i) {
    EXPECT_EQ(g.time_ns[i], truth.gpu_ns[spec.gpus.front().available_hz[i]]) << spec.gpus.front().available_hz[i];
    gpu_sum += g.time_ns[i];
  }
  EXPECT_EQ(gpu_sum, static_cast<std::uint64_t>(end));
  EXPECT_GT(g.total_transitions, 5u);
}

TEST(ClockCounters, ARailGatedGpuKeepsCountingAtItsLastFrequency) {
  const BoardSpec spec = test::board("jetson-agx-orin", 35);
  const std::string gpu = spec.gpus.front().devfreq_name;
  ModelControls busy = idle_controls(spec);
  busy.board.gpus.at(gpu).governor = "performance";
  busy.board.gpus.at(gpu).max_hz = spec.gpus.front().available_hz.back();
  busy.board.gpus.at(gpu).load_permille = 500;
  PowerModel model(spec, busy, kCountersStart, ModelOptions{7, 0.0});
  ModelControls gated = busy;
  gated.board.gpus.at(gpu).load_permille = 0;
  ASSERT_TRUE(model.update(kCountersStart + 100 * kMs, gated));
  model.advance_to(kCountersStart + 300 * kMs);
  BoardState state = model.governed();
  ASSERT_EQ(state.gpus.at(gpu).cur_hz, 0u);
  model.fill_clock_stats(state, kCountersStart + 300 * kMs);
  const ClockStats& g = state.gpus.at(gpu).stats;
  EXPECT_EQ(g.time_ns.back(), static_cast<std::uint64_t>(kCountersStart + 300 * kMs));
  EXPECT_EQ(g.total_transitions, 0u);
}

TEST(ClockCounters, FilesFollowTheKernelsFormats) {
  ClockStats stats;
  stats.time_ns = {123456789, 20000000000, 9999999};
  stats.transitions = {0, 2, 0, 1, 0, 1, 1, 0, 0};
  stats.total_transitions = 5;
  stats.last = 1;
  EXPECT_EQ(format_time_in_state({115200, 422400, 729600}, stats), "115200 12\n422400 2000\n729600 0\n");
  EXPECT_EQ(format_total_trans(stats), "5\n");
  EXPECT_EQ(format_trans_stat({306000000, 408000000, 510000000}, stats),
            "     From  :   To\n"
            "           : 306000000 408000000 510000000   time(ms)\n"
            "  306000000:         0         2         0       123\n"
            "* 408000000:         1         0         1     20000\n"
            "  510000000:         1         0         0         9\n"
            "Total transition : 5\n");
}

TEST(ClockCounters, AStaticTreeShowsZeroTimeAtItsCurrentFrequency) {
  const ClockStats shown = shown_stats(ClockStats{}, 3, 2);
  EXPECT_EQ(format_time_in_state({1, 2, 3}, shown), "1 0\n2 0\n3 0\n");
  EXPECT_EQ(shown.last, 2u);
  EXPECT_EQ(format_total_trans(shown), "0\n");
}

// Through the live tree: the files read the counters as of the read's instant.
class LiveClockCountersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LiveOptions options;
    options.cpu_load_permille = 0;
    Result<std::unique_ptr<LiveBoard>> board =
        LiveBoard::create(test::board("jetson-orin-nano", 36), options, [this] { return now_; });
    ASSERT_TRUE(board) << board.error().message;
    board_ = std::move(board).value();
    Result<std::unique_ptr<LiveFs>> fs = LiveFs::create(*board_, TreeOptions{});
    ASSERT_TRUE(fs) << fs.error().message;
    fs_ = std::move(fs).value();
  }

  std::uint64_t handle(const std::string& path, OpenMode mode) {
    std::uint64_t ino = LiveFs::kRootIno;
    std::istringstream parts(path.substr(1));
    for (std::string part; std::getline(parts, part, '/');) {
      Result<FileAttr> attr = fs_->lookup(ino, part);
      EXPECT_TRUE(attr) << path << ": " << part;
      if (!attr) return 0;
      ino = attr->ino;
    }
    Result<std::uint64_t> fh = fs_->open(ino, mode);
    EXPECT_TRUE(fh) << path;
    return fh ? *fh : 0;
  }
  std::string read(const std::string& path) {
    Result<std::string> text = fs_->read(handle(path, OpenMode::kRead), 0, 65536);
    EXPECT_TRUE(text) << path;
    return text ? *text : "";
  }
  void write(const std::string& path, const std::string& text) {
    ASSERT_TRUE(fs_->write(handle(path, OpenMode::kWrite), text)) << path << " <- " << text;
  }
  // kHz -> 10 ms ticks of stats/time_in_state.
  std::map<std::uint64_t, std::uint64_t> time_in_state() {
    std::map<std::uint64_t, std::uint64_t> out;
    std::istringstream lines(read(kPolicy + "/stats/time_in_state"));
    for (std::uint64_t khz = 0, ticks = 0; lines >> khz >> ticks;) out[khz] = ticks;
    return out;
  }

  const std::string kPolicy = "/sys/devices/system/cpu/cpufreq/policy0";
  std::int64_t now_ = 1000 * kMs;
  std::unique_ptr<LiveBoard> board_;
  std::unique_ptr<LiveFs> fs_;
};

TEST_F(LiveClockCountersTest, APinnedClockAccruesOnlyAtItsFrequency) {
  now_ += 10 * kMs;
  write(kPolicy + "/scaling_governor", "userspace\n");
  write(kPolicy + "/scaling_setspeed", "729600\n");
  const std::map<std::uint64_t, std::uint64_t> before = time_in_state();
  const std::string trans_before = read(kPolicy + "/stats/total_trans");
  now_ += 2500 * kMs;
  const std::map<std::uint64_t, std::uint64_t> after = time_in_state();
  ASSERT_EQ(after.size(), before.size());
  std::uint64_t total = 0;
  for (const auto& [khz, ticks] : after) {
    if (khz != 729600) {
      EXPECT_EQ(ticks, before.at(khz)) << khz;
    }
    total += ticks;
  }
  EXPECT_EQ(after.at(729600) - before.at(729600), 250u);
  EXPECT_EQ(total, static_cast<std::uint64_t>(now_ / (10 * kMs)));  // since boot, truncated per line
  EXPECT_EQ(read(kPolicy + "/stats/total_trans"), trans_before);
}

TEST_F(LiveClockCountersTest, TransStatCountsTheGpusTimeUpToTheRead) {
  const std::string gpu = "/sys/devices/platform/bus@0/17000000.gpu/devfreq/17000000.gpu";
  now_ += 10 * kMs;
  ASSERT_TRUE(board_->set_gpu_load("", 1000));
  now_ += 2000 * kMs;
  const std::string text = read(gpu + "/trans_stat");
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);
  std::getline(lines, line);
  std::uint64_t ms = 0;
  int rows = 0;
  while (std::getline(lines, line) && line.rfind("Total", 0) != 0) {
    ms += std::stoull(line.substr(line.rfind(' ') + 1));
    ++rows;
  }
  EXPECT_EQ(rows, static_cast<int>(board_->spec().gpus.front().available_hz.size()));
  EXPECT_NEAR(static_cast<double>(ms), static_cast<double>(now_) / kMs, rows);  // truncated per row
  EXPECT_NE(text.find("Total transition : "), std::string::npos) << text;
  EXPECT_EQ(text.find("Total transition : 0\n"), std::string::npos) << text;  // the load moved the clock
}

}  // namespace
}  // namespace energy::sim
