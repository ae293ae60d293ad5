// The live file system without FUSE (sim/src/live_fs.*, live_board.*): paths,
// writes checked as the kernel checks them, faults, vanish and renumber.
#include "live_fs.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cmath>
#include <string>
#include <thread>

#include "../time_units.h"
#include "path_util.h"
#include "sim_test_util.h"

namespace energy::sim {
namespace {

class LiveFsTest : public ::testing::Test {
 protected:
  void start(const std::string& id, int l4t, LiveOptions options = {}) {
    options.cpu_load_permille = options.cpu_load_permille.value_or(0);
    Result<std::unique_ptr<LiveBoard>> board =
        LiveBoard::create(test::board(id, l4t), options, [this] { return now_; });
    ASSERT_TRUE(board) << board.error().message;
    board_ = std::move(board).value();
    Result<std::unique_ptr<LiveFs>> fs = LiveFs::create(*board_, TreeOptions{});
    ASSERT_TRUE(fs) << fs.error().message;
    fs_ = std::move(fs).value();
  }

  // Resolves `path` component by component as the kernel does: lookups,
  // symlinks followed (the last one only if `follow_last`).
  Result<FileAttr> walk(const std::string& path, bool follow_last = true) {
    std::vector<std::uint64_t> dirs = {LiveFs::kRootIno};
    std::vector<std::string> todo = split_path(path);
    Result<FileAttr> attr = fs_->getattr(LiveFs::kRootIno);
    for (int hops = 0; !todo.empty();) {
      const std::string part = todo.front();
      todo.erase(todo.begin());
      if (part == "..") {
        if (dirs.size() > 1) dirs.pop_back();
        continue;
      }
      attr = fs_->lookup(dirs.back(), part);
      if (!attr) return attr;
      if (attr->kind != NodeKind::kSymlink || (!follow_last && todo.empty())) {
        dirs.push_back(attr->ino);
        continue;
      }
      if (++hops > 40) return make_error(ErrorCode::kIo, "too many links", ELOOP);
      const std::string target = *fs_->readlink(attr->ino);
      if (target.front() == '/') dirs.resize(1);
      const std::vector<std::string> parts = split_path(target);
      todo.insert(todo.begin(), parts.begin(), parts.end());
    }
    return attr;
  }

  std::uint64_t open(const std::string& path, OpenMode mode = OpenMode::kRead) {
    Result<FileAttr> attr = walk(path);
    EXPECT_TRUE(attr) << path;
    Result<std::uint64_t> fh = attr ? fs_->open(attr->ino, mode) : Result<std::uint64_t>(attr.error());
    EXPECT_TRUE(fh) << path << ": " << (fh ? "" : fh.error().message);
    return fh ? *fh : 0;
  }

  // One read at offset 0, faults included (a block fault is waited out).
  Result<std::string> read(std::uint64_t fh) {
    Result<std::optional<ReadFault>> fault = fs_->begin_read(fh, 0);
    if (!fault) return fault.take_error();
    if (*fault) {
      Status waited = fs_->wait(**fault, [] { return false; });
      if (!waited) return waited.take_error();
    }
    return fs_->read(fh, 0, 4096);
  }

  Result<std::string> read_path(const std::string& path) { return read(open(path)); }

  int write_errno(const std::string& path, const std::string& text) {
    Result<std::size_t> n = fs_->write(open(path, OpenMode::kWrite), text);
    return n ? 0 : n.error().sys_errno;
  }

  double read_number(const std::string& path) {
    Result<std::string> text = read_path(path);
    EXPECT_TRUE(text) << path;
    return text ? std::stod(*text) : -1;
  }

  std::int64_t now_ = 1000 * kMs;
  std::unique_ptr<LiveBoard> board_;
  std::unique_ptr<LiveFs> fs_;
};

const std::string kHwmon = "/sys/bus/i2c/devices/1-0040/hwmon/hwmon0";
const std::string kGpu = "/sys/devices/platform/bus@0/17000000.gpu/devfreq/17000000.gpu";
const std::string kPolicy = "/sys/devices/system/cpu/cpufreq/policy0";

TEST_F(LiveFsTest, ServesTheStaticTreesModesAndLinks) {
  start("jetson-nano-4gb", 32);
  const std::string iio = "/sys/bus/i2c/devices/6-0040/iio:device0";
  ASSERT_TRUE(walk(iio + "/rail_name_0"));
  EXPECT_EQ(walk(iio + "/rail_name_0")->mode, 0600u);
  EXPECT_EQ(walk(iio + "/in_power0_input")->mode, 0444u);
  Result<FileAttr> link = walk("/proc/device-tree", false);
  ASSERT_TRUE(link);
  EXPECT_EQ(link->kind, NodeKind::kSymlink);
  EXPECT_EQ(*fs_->readlink(link->ino), "/sys/firmware/devicetree/base");
  EXPECT_EQ(walk("/sys/nope").error().sys_errno, ENOENT);
}

TEST_F(LiveFsTest, EveryReadAtOffsetZeroIsFreshAndALaterOffsetContinuesTheSameText) {
  start("jetson-orin-nano", 36);
  const std::uint64_t fh = open(kHwmon + "/curr1_input");
  ASSERT_TRUE(board_->set_rail("VDD_IN", RailState{5000, 1000}));
  now_ += 20 * kMs;
  EXPECT_EQ(*read(fh), "1000\n");
  ASSERT_TRUE(board_->set_rail("VDD_IN", RailState{5000, 2000}));
  now_ += 20 * kMs;
  EXPECT_EQ(*fs_->read(fh, 2, 10), "00\n");  // the rest of the text read at offset 0
  EXPECT_EQ(*read(fh), "2000\n");
}

TEST_F(LiveFsTest, ClockWritesAreCheckedAsTheKernelChecksThem) {
  start("jetson-orin-nano", 36);
  EXPECT_EQ(write_errno(kGpu + "/max_freq", "400000000\n"), EINVAL);  // not in available_frequencies
  EXPECT_EQ(write_errno(kGpu + "/min_freq", "612000000\n"), 0);
  EXPECT_EQ(write_errno(kGpu + "/max_freq", "510000000\n"), EINVAL);  // below min: lower min first
  EXPECT_EQ(write_errno(kGpu + "/min_freq", "306000000\n"), 0);
  EXPECT_EQ(write_errno(kGpu + "/max_freq", "510000000\n"), 0);
  EXPECT_EQ(*read_path(kGpu + "/max_freq"), "510000000\n");
  EXPECT_EQ(write_errno(kGpu + "/governor", "ondemand\n"), EINVAL);
  EXPECT_EQ(write_errno(kGpu + "/governor", "performance\n"), 0);
  EXPECT_EQ(*read_path(kGpu + "/cur_freq"), "510000000\n");
  EXPECT_EQ(write_errno(kPolicy + "/scaling_max_freq", "1500000\n"), EINVAL);
  EXPECT_EQ(write_errno(kPolicy + "/scaling_min_freq", "1510400\n"), 0);
  EXPECT_EQ(write_errno(kPolicy + "/scaling_max_freq", "729600\n"), EINVAL);
  EXPECT_EQ(write_errno(kPolicy + "/scaling_setspeed", "729600\n"), EINVAL);  // not under userspace
  EXPECT_EQ(write_errno("/sys/devices/system/cpu/cpu5/online", "0\n"), 0);
  EXPECT_EQ(*read_path("/sys/devices/system/cpu/online"), "0-4\n");
  // kernfs refuses to open a file without a store function for writing.
  EXPECT_EQ(fs_->open(walk(kPolicy + "/cpuinfo_max_freq")->ino, OpenMode::kWrite).error().sys_errno, EACCES);
}

TEST_F(LiveFsTest, SettingsReadBackAndSamplesPicksTheClosestCount) {
  start("jetson-orin-nano", 36);
  EXPECT_EQ(write_errno(kHwmon + "/samples", "100\n"), 0);
  EXPECT_EQ(*read_path(kHwmon + "/samples"), "128\n");
  EXPECT_EQ(*read_path(kHwmon + "/update_interval"), "845\n");  // 3 x 128 x 2.2 ms
  EXPECT_EQ(write_errno("/sys/devices/platform/bus@0/17000000.gpu/railgate_enable", "2\n"), EINVAL);
  EXPECT_EQ(write_errno("/sys/devices/platform/bus@0/17000000.gpu/tpc_pg_mask", "248\n"), 0);
  EXPECT_EQ(*read_path("/sys/devices/platform/bus@0/17000000.gpu/tpc_pg_mask"), "248\n");
}

// Orin Nano 1-0040: 3 channels x (1.1 + 1.1) ms per cycle; VDD_IN is slot 0,
// whose shunt conversion opens every cycle of a grid restarted by a write.
constexpr std::int64_t kOrinNanoCycle = 6600 * kUs;
constexpr double kVddInStepMa = 8;  // 40 uV on 5 mOhm

TEST_F(LiveFsTest, SamplesWrittenThroughSysfsMakeTheCurrentARunningMean) {
  start("jetson-orin-nano", 36);
  ASSERT_TRUE(board_->set_rail("VDD_IN", RailState{5000, 1000}));
  now_ += 100 * kMs;
  ASSERT_EQ(write_errno(kHwmon + "/samples", "16\n"), 0);
  const std::int64_t step = now_ + 10 * kOrinNanoCycle;
  now_ = step;
  ASSERT_TRUE(board_->set_rail("VDD_IN", RailState{5000, 2000}));
  for (int m : {0, 1, 4, 16, 48}) {
    now_ = step + m * kOrinNanoCycle;
    EXPECT_NEAR(read_number(kHwmon + "/curr1_input"), 2000 - 1000 * std::pow(15.0 / 16, m), kVddInStepMa) << m;
  }
}

TEST_F(LiveFsTest, ASamplesWriteMidStreamContinuesFromTheRegistersValue) {
  start("jetson-orin-nano", 36);
  ASSERT_TRUE(board_->set_rail("VDD_IN", RailState{5000, 1000}));
  now_ += 100 * kMs;
  ASSERT_EQ(write_errno(kHwmon + "/samples", "16\n"), 0);
  now_ += 10 * kOrinNanoCycle;
  ASSERT_TRUE(board_->set_rail("VDD_IN", RailState{5000, 2000}));
  now_ += 5 * kOrinNanoCycle;
  const double at_write = 2000 - 1000 * std::pow(15.0 / 16, 5);  // 1276 mA
  EXPECT_NEAR(read_number(kHwmon + "/curr1_input"), at_write, kVddInStepMa);
  ASSERT_EQ(write_errno(kHwmon + "/samples", "64\n"), 0);
  const std::int64_t written = now_;
  now_ += 1 * kMs;  // before the new grid's first conversion: the register as it was
  EXPECT_NEAR(read_number(kHwmon + "/curr1_input"), at_write, kVddInStepMa);
  for (int m : {1, 10, 100}) {
    now_ = written + m * kOrinNanoCycle;
    EXPECT_NEAR(read_number(kHwmon + "/curr1_input"), 2000 + (at_write - 2000) * std::pow(63.0 / 64, m), kVddInStepMa)
        << m;
  }
}

TEST_F(LiveFsTest, ErrnoFaultsFailTheirRailsReadsAndSpareTheOthers) {
  start("jetson-orin-nano", 36);
  const std::uint64_t in = open(kHwmon + "/curr1_input");
  const std::uint64_t soc = open(kHwmon + "/curr3_input");
  const std::pair<const char*, int> kinds[] = {
      {"eio", EIO}, {"etimedout", ETIMEDOUT}, {"enodata", ENODATA}, {"eagain", EAGAIN}};
  for (const auto& [name, err] : kinds) {
    ASSERT_TRUE(fs_->inject("VDD_IN", FaultSpec{*parse_fault_kind(name), 2, std::nullopt}));
    EXPECT_EQ(read(in).error().sys_errno, err) << name;
    EXPECT_TRUE(read(soc)) << name;
    EXPECT_EQ(read(in).error().sys_errno, err) << name;
    EXPECT_TRUE(read(in)) << name << ": the count is used up";
  }
  EXPECT_TRUE(read_path(kHwmon + "/in1_label"));  // labels are not sensor values
}

TEST_F(LiveFsTest, ABlockFaultMakesAReadWaitUntilItsTimeOrTheFaultIsCleared) {
  start("jetson-orin-nano", 36);
  ASSERT_TRUE(fs_->inject("1-0040:1", FaultSpec{FaultKind::kBlock, std::nullopt, 150}));
  const std::uint64_t in = open(kHwmon + "/in1_input");
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(read(in));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(150));
  ASSERT_TRUE(fs_->inject("VDD_IN", FaultSpec{FaultKind::kBlock, std::nullopt, std::nullopt}));
  std::thread clearer([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_TRUE(fs_->clear_faults("VDD_IN"));
  });
  EXPECT_TRUE(read(in));  // released by the clear
  clearer.join();
  Result<std::optional<ReadFault>> none = fs_->begin_read(in, 0);
  EXPECT_TRUE(none && !*none);
}

TEST_F(LiveFsTest, AVanishedDeviceIsGoneForLookupsAndOpenDescriptorsUntilRestored) {
  start("jetson-orin-nano", 36);
  const std::uint64_t in = open(kHwmon + "/in1_input");
  ASSERT_TRUE(fs_->vanish("1-0040"));
  EXPECT_EQ(read(in).error().sys_errno, ENODEV);
  EXPECT_EQ(walk(kHwmon + "/in1_input").error().sys_errno, ENOENT);
  EXPECT_EQ(walk("/sys/class/hwmon/hwmon0").error().sys_errno, ENOENT);
  EXPECT_EQ(walk("/sys/bus/i2c/drivers/ina3221/1-0040").error().sys_errno, ENOENT);
  EXPECT_EQ(fs_->vanish("1-0040").error().code, ErrorCode::kState);
  EXPECT_EQ(fs_->vanish("9-0099").error().code, ErrorCode::kNotFound);
  ASSERT_TRUE(fs_->restore("1-0040"));
  EXPECT_EQ(read(in).error().sys_errno, ENODEV);  // the old descriptor stays dead
  EXPECT_TRUE(read_path(kHwmon + "/in1_input"));
}

TEST_F(LiveFsTest, ARailVanishFaultRemovesThatRailsFilesOnly) {
  start("jetson-orin-nano", 36);
  ASSERT_TRUE(fs_->inject("VDD_SOC", FaultSpec{FaultKind::kVanish, std::nullopt, std::nullopt}));
  EXPECT_EQ(walk(kHwmon + "/in3_label").error().sys_errno, ENOENT);
  EXPECT_EQ(walk(kHwmon + "/curr3_input").error().sys_errno, ENOENT);
  EXPECT_TRUE(walk(kHwmon + "/curr1_input"));
  ASSERT_TRUE(fs_->clear_faults("VDD_SOC"));
  EXPECT_TRUE(walk(kHwmon + "/curr3_input"));
}

TEST_F(LiveFsTest, RenumberingKillsOldDescriptorsAndMovesThePaths) {
  start("jetson-orin-nano", 36);
  const std::uint64_t in = open("/sys/class/hwmon/hwmon0/in1_input");
  const std::uint64_t gpu = open(kGpu + "/cur_freq");
  ASSERT_TRUE(fs_->renumber(TreeOptions{5, 0}));
  EXPECT_EQ(read(in).error().sys_errno, ENODEV);
  EXPECT_TRUE(read(gpu));  // nothing numbered on its path
  EXPECT_EQ(walk(kHwmon).error().sys_errno, ENOENT);
  EXPECT_TRUE(read_path("/sys/class/hwmon/hwmon5/in1_input"));
  EXPECT_TRUE(read_path("/sys/bus/i2c/devices/1-0040/hwmon/hwmon5/in1_input"));
  EXPECT_EQ(fs_->numbering().hwmon_offset, 5);
}

TEST_F(LiveFsTest, FaultArgumentsThatDoNotFitTheKindAreRefused) {
  start("jetson-orin-nano", 36);
  EXPECT_EQ(fs_->inject("VDD_IN", FaultSpec{FaultKind::kEio, std::nullopt, 100}).error().code, ErrorCode::kInvalid);
  EXPECT_EQ(fs_->inject("VDD_IN", FaultSpec{FaultKind::kVanish, 3, std::nullopt}).error().code, ErrorCode::kInvalid);
  EXPECT_EQ(fs_->inject("VDD_NOPE", FaultSpec{}).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(fs_->clear_faults("VDD_IN").error().code, ErrorCode::kState);
}

TEST_F(LiveFsTest, GroundTruthQueriesNameWhatIsWrongWithTheInterval) {
  start("jetson-orin-nano", 36);
  now_ += 1000 * kMs;
  EXPECT_TRUE(board_->energy_uj("VDD_IN", 1000 * kMs, 1500 * kMs));
  EXPECT_TRUE(board_->energy_uj(kTotalRail, 1000 * kMs, 1500 * kMs));
  EXPECT_EQ(board_->energy_uj("VDD_IN", 1500 * kMs, 1000 * kMs).error().code, ErrorCode::kInvalid);
  EXPECT_NE(board_->energy_uj("VDD_IN", 1000 * kMs, 9000 * kMs).error().message.find("future"), std::string::npos);
  EXPECT_NE(board_->energy_uj("VDD_IN", 10 * kMs, 1500 * kMs).error().message.find("history"), std::string::npos);
  EXPECT_EQ(board_->energy_uj("VDD_X", 1000 * kMs, 1500 * kMs).error().code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace energy::sim
