// The sweep ring (sweep_ring.h): sweeps put are read back exactly, by
// readers (since) and by the next process (take_leftover); a wrapped ring
// keeps the newest; a ring of other rails or damaged is named, not taken;
// a directory on a disk is refused; a reader never takes a gap.
#include "energy/sweep_ring.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

namespace energy {
namespace {

constexpr size_t kRingRails = 3;
const std::string kRailsSignature = "VDD_IN\nin1\ncurr1\n\nVDD_CPU\nin2\ncurr2\n\nVDD_SOC\nin3\ncurr3\n\n";

Sample sweep(int64_t i) {
  Sample s{1'000'000'000 + i * 100'000'000 + 37, 1'700'000'000'000'000'000 + i * 100'000'000, {}};
  for (size_t r = 0; r < kRingRails; ++r)
    s.values.push_back(RailValue{int64_t{5000} * (800 + i + int64_t(r)), 5000 + int32_t(r), 800 + int32_t(i % 50), 0});
  if (i % 7 == 3) s.values[1] = RailValue{0, 0, 0, 5};  // EIO: kept as a failed read
  return s;
}

void expect_identical(const Sample& a, const Sample& b) {
  EXPECT_EQ(a.t_ns, b.t_ns);
  EXPECT_EQ(a.wall_ns, b.wall_ns);
  ASSERT_EQ(a.values.size(), b.values.size());
  for (size_t r = 0; r < a.values.size(); ++r) {
    EXPECT_EQ(a.values[r].err, b.values[r].err);
    EXPECT_EQ(a.values[r].power_uw, b.values[r].power_uw);
    EXPECT_EQ(a.values[r].voltage_mv, b.values[r].voltage_mv);
    EXPECT_EQ(a.values[r].current_ma, b.values[r].current_ma);
  }
}

class SweepRingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/dev/shm/energyd-ring-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/sweep-ring";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<SweepRing> make(size_t capacity, const std::string& signature = kRailsSignature) {
    auto r = SweepRing::create(path_, kRingRails, capacity, signature);
    EXPECT_TRUE(r.ok()) << r.error().describe();
    return r.ok() ? std::move(r).value() : nullptr;
  }

  std::string dir_;
  std::string path_;
};

TEST_F(SweepRingTest, ANewProcessTakesEverySweepTheKilledOneLeftExactly) {
  auto ring = make(64);
  ASSERT_TRUE(ring);
  for (int64_t i = 0; i < 40; ++i) ring->put(sweep(i));
  ring.reset();  // the process is gone; its file stays (a kill -9 does not unmap more than this)
  RingLeftover left = SweepRing::take_leftover(path_, kRingRails, kRailsSignature);
  EXPECT_EQ(left.dropped_why, "");
  ASSERT_EQ(left.sweeps.size(), 40u);
  for (int64_t i = 0; i < 40; ++i) expect_identical(left.sweeps[static_cast<size_t>(i)], sweep(i));
}

TEST_F(SweepRingTest, AWrappedRingKeepsItsNewestCapacitySweepsInOrder) {
  auto ring = make(16);
  ASSERT_TRUE(ring);
  for (int64_t i = 0; i < 100; ++i) ring->put(sweep(i));
  RingLeftover left = SweepRing::take_leftover(path_, kRingRails, kRailsSignature);
  ASSERT_EQ(left.sweeps.size(), 16u);
  for (size_t k = 0; k < 16; ++k) expect_identical(left.sweeps[k], sweep(84 + static_cast<int64_t>(k)));
}

TEST_F(SweepRingTest, AHalfWrittenRecordIsNotTaken) {
  auto ring = make(8);
  ASSERT_TRUE(ring);
  for (int64_t i = 0; i < 5; ++i) ring->put(sweep(i));
  ring.reset();
  // As a kill in the middle of put leaves slot 5: its seq all ones, the count still 5.
  {
    std::fstream f(path_, std::ios::in | std::ios::out | std::ios::binary);
    uint64_t busy = ~uint64_t{0};
    f.seekp(128 + 5 * (24 + 24 * kRingRails));
    f.write(reinterpret_cast<const char*>(&busy), sizeof busy);
  }
  RingLeftover left = SweepRing::take_leftover(path_, kRingRails, kRailsSignature);
  EXPECT_EQ(left.dropped_why, "");
  ASSERT_EQ(left.sweeps.size(), 5u);
  expect_identical(left.sweeps.back(), sweep(4));
}

TEST_F(SweepRingTest, ARingOfOtherRailsIsNamedAndNotTaken) {
  auto ring = make(32);
  ASSERT_TRUE(ring);
  for (int64_t i = 0; i < 10; ++i) ring->put(sweep(i));
  RingLeftover left = SweepRing::take_leftover(path_, kRingRails, kRailsSignature + "VDD_GPU\n");
  EXPECT_TRUE(left.sweeps.empty());
  EXPECT_NE(left.dropped_why.find("other rails"), std::string::npos) << left.dropped_why;
  EXPECT_EQ(left.dropped, 10);
  left = SweepRing::take_leftover(path_, kRingRails + 1, kRailsSignature);
  EXPECT_TRUE(left.sweeps.empty());
  EXPECT_NE(left.dropped_why.find("other rails"), std::string::npos) << left.dropped_why;
}

TEST_F(SweepRingTest, ADamagedOrForeignFileIsNamedAndNotTaken) {
  EXPECT_EQ(SweepRing::take_leftover(path_, kRingRails, kRailsSignature).dropped_why, "");  // no file: nothing to say
  std::ofstream(path_) << "not a ring at all, but long enough to hold a header of one hundred and twenty-eight bytes "
                          "........................................";
  RingLeftover left = SweepRing::take_leftover(path_, kRingRails, kRailsSignature);
  EXPECT_TRUE(left.sweeps.empty());
  EXPECT_NE(left.dropped_why.find("damaged"), std::string::npos) << left.dropped_why;
  std::filesystem::remove(path_);
  ASSERT_EQ(::mkfifo(path_.c_str(), 0600), 0);  // opened without blocking, and refused
  left = SweepRing::take_leftover(path_, kRingRails, kRailsSignature);
  EXPECT_TRUE(left.sweeps.empty());
  EXPECT_NE(left.dropped_why.find("not a ring file"), std::string::npos) << left.dropped_why;
}

TEST_F(SweepRingTest, ARingFromAnotherBootIsNotTaken) {
  auto ring = make(8);
  ASSERT_TRUE(ring);
  ring->put(sweep(0));
  ring.reset();
  {
    std::fstream f(path_, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(32);
    f.write("00000000-0000-0000-0000-000000000000", 36);
  }
  RingLeftover left = SweepRing::take_leftover(path_, kRingRails, kRailsSignature);
  EXPECT_TRUE(left.sweeps.empty());
  EXPECT_NE(left.dropped_why.find("another boot"), std::string::npos) << left.dropped_why;
  EXPECT_EQ(left.dropped, 1);
}

TEST_F(SweepRingTest, ADirectoryOnADiskIsRefused) {
  char tmpl[] = "/var/tmp/energyd-ring-test-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  std::string disk = tmpl;
  auto st = SweepRing::memory_backed(disk);
  bool on_memory = st.ok();  // /var/tmp on a tmpfs would make this test meaningless
  if (!on_memory) {
    EXPECT_NE(st.error().describe().find("not on a memory file system"), std::string::npos) << st.error().describe();
    auto r = SweepRing::create(disk + "/sweep-ring", kRingRails, 8, kRailsSignature);
    EXPECT_FALSE(r.ok());
    EXPECT_FALSE(std::filesystem::exists(disk + "/sweep-ring"));
  }
  std::filesystem::remove_all(disk);
  EXPECT_TRUE(SweepRing::memory_backed(dir_).ok());
  if (on_memory) GTEST_SKIP() << "/var/tmp is on a memory file system here";
}

TEST_F(SweepRingTest, ReadersGetTheSweepsAfterTheirsOnlyOnceStampedAndNeverAcrossAGap) {
  auto ring = make(16);
  ASSERT_TRUE(ring);
  for (int64_t i = 0; i < 10; ++i) ring->put(sweep(i));
  EXPECT_EQ(ring->since(0).boot, 0);  // not stamped: the rows are not known yet
  EXPECT_TRUE(ring->since(0).sweeps.empty());
  ring->stamp(7, {11, 12, 13});
  LiveSweeps all = ring->since(0);  // the ring holds every sweep since it began
  EXPECT_EQ(all.boot, 7);
  EXPECT_EQ(all.rail_ids, (std::vector<int64_t>{11, 12, 13}));
  ASSERT_EQ(all.sweeps.size(), 10u);
  LiveSweeps after = ring->since(sweep(6).t_ns);
  ASSERT_EQ(after.sweeps.size(), 3u);
  expect_identical(after.sweeps[0], sweep(7));
  expect_identical(after.sweeps[2], sweep(9));
  EXPECT_TRUE(ring->since(sweep(9).t_ns).sweeps.empty());
  for (int64_t i = 10; i < 40; ++i) ring->put(sweep(i));
  // Sweep 7 has been overwritten: sweeps 8.. would leave a gap after the reader's 6.
  EXPECT_TRUE(ring->since(sweep(6).t_ns).sweeps.empty());
  EXPECT_TRUE(ring->since(0).sweeps.empty());
  ASSERT_EQ(ring->since(sweep(30).t_ns).sweeps.size(), 9u);
}

TEST_F(SweepRingTest, AReaderBesideTheWriterOnlyEverSeesWholeSweepsInOrder) {
  auto ring = make(32);
  ASSERT_TRUE(ring);
  ring->stamp(1, {1, 2, 3});
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int64_t i = 0; i < 20000; ++i) ring->put(sweep(i));
    done = true;
  });
  int64_t reads = 0;
  while (!done || reads == 0) {
    LiveSweeps s = ring->since(0);
    for (size_t k = 1; k < s.sweeps.size(); ++k) ASSERT_GT(s.sweeps[k].t_ns, s.sweeps[k - 1].t_ns);
    for (const auto& x : s.sweeps) {
      int64_t i = (x.t_ns - 1'000'000'037) / 100'000'000;
      expect_identical(x, sweep(i));
      if (::testing::Test::HasFailure()) break;
    }
    if (::testing::Test::HasFailure()) break;
    ++reads;
  }
  writer.join();
  EXPECT_GT(reads, 0);
}

TEST_F(SweepRingTest, RegisteredSourcesAnswerForTheirDatabaseOnly) {
  auto ring = make(8);
  ASSERT_TRUE(ring);
  ring->put(sweep(0));
  ring->stamp(3, {1, 2, 3});
  SweepRing* raw = ring.get();
  register_live_sweeps("/db/a.sqlite", [raw](int64_t after) { return raw->since(after); });
  EXPECT_EQ(live_sweeps_after("/db/a.sqlite", 0).sweeps.size(), 1u);
  EXPECT_EQ(live_sweeps_after("/db/b.sqlite", 0).boot, 0);
  unregister_live_sweeps("/db/a.sqlite");
  EXPECT_EQ(live_sweeps_after("/db/a.sqlite", 0).boot, 0);
}

}  // namespace
}  // namespace energy
