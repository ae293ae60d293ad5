// The sweep tail (sweep_tail.h): frames round-trip exactly, a torn or
// damaged file keeps its valid prefix and says what is wrong, and replay
// adds each sweep once.
#include "energy/sweep_tail.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "version1_tail.h"

namespace energy {
namespace {

constexpr size_t kRails = 3;

// A sweep on the 100 ms grid with jitter, one rail failing now and then.
Sample sweep_at(int64_t i, std::mt19937& rng) {
  std::uniform_int_distribution<int> noise(-40, 40);
  Sample s{
      1'000'000'000 + i * 100'000'000 + int64_t{noise(rng)} * 1000, 1'700'000'000'000'000'000 + i * 100'000'000, {}};
  for (size_t r = 0; r < kRails; ++r) {
    RailValue v{int64_t{4968} * (800 + noise(rng)), 4968 + noise(rng), 800 + noise(rng), 0};
    if (i % 7 == 3 && r == 1) v = RailValue{0, 0, 0, 5};  // EIO
    s.values.push_back(v);
  }
  return s;
}

TailFrame frame_of(int64_t boot, int64_t first, int64_t count, uint32_t seed = 1) {
  std::mt19937 rng(seed);
  TailFrame f{boot, {11, 12, 13}, {}, StoredCounters{"0123456789abcdef", 5, {{"VDD_IN", 1.5e6}, {"VDD_SOC", 0.25}}}};
  for (int64_t i = first; i < first + count; ++i) f.sweeps.push_back(sweep_at(i, rng));
  return f;
}

std::string bytes_of(const TailFrame& f) {
  auto b = encode_tail_frame(f);
  EXPECT_TRUE(b.ok()) << b.error().describe();
  return b.ok() ? *b : std::string();
}

void expect_same(const Sample& a, const Sample& b) {
  EXPECT_EQ(a.t_ns, b.t_ns);
  EXPECT_EQ(a.wall_ns, b.wall_ns);
  ASSERT_EQ(a.values.size(), b.values.size());
  for (size_t r = 0; r < a.values.size(); ++r) {
    EXPECT_EQ(a.values[r].err, b.values[r].err);
    if (a.values[r].err != 0) continue;
    EXPECT_EQ(a.values[r].power_uw, b.values[r].power_uw);
    EXPECT_EQ(a.values[r].voltage_mv, b.values[r].voltage_mv);
    EXPECT_EQ(a.values[r].current_ma, b.values[r].current_ma);
  }
}

TEST(SweepTail, Crc32MatchesTheStandardCheckValue) {
  const std::string check = "123456789";
  EXPECT_EQ(crc32_ieee(check.data(), check.size()), 0xCBF43926u);
}

TEST(SweepTail, FramesRoundTripExactlyIncludingFailedReadings) {
  TailFrame a = frame_of(4, 0, 10), b = frame_of(4, 10, 10, 2);
  TailScan scan = decode_tail(bytes_of(a) + bytes_of(b));
  EXPECT_TRUE(scan.problem.empty()) << scan.problem;
  ASSERT_EQ(scan.frames.size(), 2u);
  EXPECT_EQ(scan.frames[1].boot, 4);
  ASSERT_EQ(scan.frames[1].sweeps.size(), 10u);
  for (size_t i = 0; i < 10; ++i) expect_same(scan.frames[1].sweeps[i], b.sweeps[i]);
  EXPECT_EQ(scan.frames[0].sweeps[3].values[1].err, 5);
  EXPECT_EQ(scan.frames[1].rail_ids, (std::vector<int64_t>{11, 12, 13}));
  ASSERT_TRUE(scan.frames[1].counters.has_value());
  EXPECT_EQ(scan.frames[1].counters->counters_id, "0123456789abcdef");
  EXPECT_EQ(scan.frames[1].counters->energy_uj, b.counters->energy_uj);
}

TEST(SweepTail, ASecondOfThreeRailsCostsAboutThirtyBytesPerSweep) {
  // What the tail adds to the disk each flush interval (docs/PERFORMANCE.md),
  // with power read from its own file (so written) and every quantity
  // jumping by up to 80 units a sweep (a random walk codes smaller).
  TailFrame f = frame_of(1, 0, 10);
  f.counters.reset();
  EXPECT_LT(bytes_of(f).size(), 10u * 26u);
}

// Power as voltage x current, as the INA3221's rails: it is not written.
TailFrame derived_frame(int64_t first, int64_t count, uint32_t seed) {
  TailFrame f = frame_of(1, first, count, seed);
  for (auto& s : f.sweeps) {
    for (auto& v : s.values) v.power_uw = v.err == 0 ? int64_t{v.voltage_mv} * v.current_ma : 0;
  }
  return f;
}

TEST(SweepTail, DerivedPowerIsNotWrittenAndReadsBackExactly) {
  TailFrame f = derived_frame(0, 10, 3);
  std::string bytes = bytes_of(f);
  TailFrame no_counters = f;
  no_counters.counters.reset();
  EXPECT_LT(bytes_of(no_counters).size(), 10u * 17u);  // 26 with power written
  TailScan scan = decode_tail(bytes);
  ASSERT_EQ(scan.frames.size(), 1u) << scan.problem;
  for (size_t i = 0; i < 10; ++i) expect_same(scan.frames[0].sweeps[i], f.sweeps[i]);
  f.sweeps[4].values[2].power_uw += 1;  // one reading off the product: power is written again
  scan = decode_tail(bytes_of(f));
  ASSERT_EQ(scan.frames.size(), 1u) << scan.problem;
  for (size_t i = 0; i < 10; ++i) expect_same(scan.frames[0].sweeps[i], f.sweeps[i]);
}

TEST(SweepTail, CountersOfTheSameIdentityAsThePreviousFrameAreWrittenAsValuesOnly) {
  TailFrame a = derived_frame(0, 10, 1), b = derived_frame(10, 10, 2);
  b.counters->energy_uj = {{"VDD_IN", 1.75e6}, {"VDD_SOC", 0.5}};
  std::string whole = bytes_of(b);
  auto short_b = encode_tail_frame(b, &*a.counters);
  ASSERT_TRUE(short_b.ok());
  EXPECT_LE(short_b->size() + 30, whole.size());  // no id, start or labels
  TailScan scan = decode_tail(bytes_of(a) + *short_b);
  ASSERT_EQ(scan.frames.size(), 2u) << scan.problem;
  ASSERT_TRUE(scan.frames[1].counters.has_value());
  EXPECT_EQ(scan.frames[1].counters->counters_id, a.counters->counters_id);
  EXPECT_EQ(scan.frames[1].counters->created_wall_ns, a.counters->created_wall_ns);
  EXPECT_EQ(scan.frames[1].counters->energy_uj, b.counters->energy_uj);
  // Alone, it lacks what it refers to: damage, said, never guessed.
  TailScan alone = decode_tail(*short_b);
  EXPECT_TRUE(alone.frames.empty());
  EXPECT_FALSE(alone.torn);
  EXPECT_NE(alone.problem.find("no earlier frame has counters"), std::string::npos) << alone.problem;
  // Other counters (a new id) are written whole.
  TailFrame c = derived_frame(20, 10, 3);
  c.counters->counters_id = "fedcba9876543210";
  auto whole_c = encode_tail_frame(c, &*a.counters);
  ASSERT_TRUE(whole_c.ok());
  EXPECT_EQ(decode_tail(*whole_c).frames.size(), 1u);
}

TEST(SweepTail, EncodingRefusesAnErrnoOutsideTheKernelsRange) {
  TailFrame f = frame_of(1, 0, 3);
  f.sweeps[1].values[0].err = 4096;
  EXPECT_EQ(encode_tail_frame(f).error().code, ErrorCode::kInvalid);
  f.sweeps[1].values[0].err = -5;
  EXPECT_EQ(encode_tail_frame(f).error().code, ErrorCode::kInvalid);
}

TEST(SweepTail, AVersion1TailFromBeforeTheUpgradeStillDecodes) {
  TailScan scan = decode_tail(test::version1_tail_bytes());
  EXPECT_TRUE(scan.problem.empty()) << scan.problem;
  ASSERT_EQ(scan.frames.size(), 2u);
  EXPECT_EQ(scan.frames[1].rail_ids, (std::vector<int64_t>{1, 2}));
  ASSERT_TRUE(scan.frames[1].counters.has_value());
  EXPECT_EQ(scan.frames[1].counters->counters_id, "00000000000000aa");
  EXPECT_EQ(scan.frames[1].counters->energy_uj, (std::vector<std::pair<std::string, double>>{{"VDD_IN", 200}}));
  for (int64_t i = 10; i < 30; ++i) {
    const Sample& s = scan.frames[static_cast<size_t>(i / 20)].sweeps[static_cast<size_t>(i % 10)];
    int32_t ma = static_cast<int32_t>(800 + 10 * i);
    expect_same(s, Sample{(1000 + 100 * i) * 1'000'000,
                          (1000 + 100 * i) * 1'000'000,
                          {RailValue{0, 5000, ma, 0}, RailValue{0, 5000, 200, 0}}});
  }
}

TEST(SweepTail, EncodingRefusesSweepsOutOfOrderOrOfDifferentRails) {
  TailFrame back = frame_of(1, 0, 3);
  back.sweeps[2].t_ns = back.sweeps[1].t_ns;
  EXPECT_EQ(encode_tail_frame(back).error().code, ErrorCode::kInvalid);
  TailFrame ragged = frame_of(1, 0, 3);
  ragged.sweeps[1].values.pop_back();
  EXPECT_EQ(encode_tail_frame(ragged).error().code, ErrorCode::kInvalid);
  EXPECT_EQ(encode_tail_frame(frame_of(0, 0, 3)).error().code, ErrorCode::kInvalid);
  TailFrame bad_counters = frame_of(1, 0, 3);
  bad_counters.counters->energy_uj[0].second = -1;
  EXPECT_EQ(encode_tail_frame(bad_counters).error().code, ErrorCode::kInvalid);
}

TEST(SweepTail, ATornLastFrameKeepsTheFramesBeforeIt) {
  std::string whole = bytes_of(frame_of(2, 0, 10)) + bytes_of(frame_of(2, 10, 10));
  size_t first = bytes_of(frame_of(2, 0, 10)).size();
  for (size_t cut = first + 1; cut < whole.size(); ++cut) {
    TailScan scan = decode_tail(whole.substr(0, cut));
    ASSERT_EQ(scan.frames.size(), 1u) << "cut at " << cut;
    EXPECT_EQ(scan.valid_bytes, first);
    EXPECT_TRUE(scan.torn) << scan.problem;
    EXPECT_NE(scan.problem.find("frame 2 at byte " + std::to_string(first)), std::string::npos) << scan.problem;
  }
}

TEST(SweepTail, EveryFlippedByteIsFoundAndNeverDecodedAsData) {
  TailFrame f = frame_of(3, 0, 5);
  std::string good = bytes_of(f);
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    TailScan scan = decode_tail(bad);
    EXPECT_TRUE(scan.frames.empty()) << "byte " << i;
    EXPECT_FALSE(scan.problem.empty()) << "byte " << i;
  }
}

TEST(SweepTail, GarbageAfterValidFramesIsReportedAsDamageNotTorn) {
  std::string good = bytes_of(frame_of(3, 0, 5));
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::string junk(1 + rng() % 64, '\0');
    for (auto& c : junk) c = static_cast<char>(rng());
    size_t n = std::min<size_t>(junk.size(), 4);
    if (junk.compare(0, n, "ETL1", n) == 0 || junk.compare(0, n, "ETL2", n) == 0) continue;
    TailScan scan = decode_tail(good + junk);
    ASSERT_EQ(scan.frames.size(), 1u);
    EXPECT_EQ(scan.valid_bytes, good.size());
    EXPECT_FALSE(scan.torn);
    EXPECT_NE(scan.problem.find("no frame magic"), std::string::npos) << scan.problem;
  }
}

TEST(SweepTail, AValidChecksumOverBadContentIsStillRefused) {
  // A frame claiming two rails whose sweeps have three, checksum recomputed.
  std::string good = bytes_of(frame_of(3, 0, 2));
  std::string payload = good.substr(12);
  ASSERT_EQ(payload[1], 3);  // the rail count, after the one-byte boot id
  payload.erase(4, 1);       // drop the third rail id
  payload[1] = 2;
  uint32_t crc = crc32_ieee(payload.data(), payload.size());
  std::string bad = good.substr(0, 4);
  for (uint32_t v : {static_cast<uint32_t>(payload.size()), crc})
    for (int i = 0; i < 4; ++i) bad.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  TailScan scan = decode_tail(bad + payload);
  EXPECT_TRUE(scan.frames.empty());
  EXPECT_FALSE(scan.torn);
  EXPECT_FALSE(scan.problem.empty());
}

TEST(SweepTail, ReplayTakesOnlyWhatTheStoreLacksAndIsIdempotent) {
  std::vector<TailFrame> frames = {frame_of(5, 0, 10), frame_of(4, 0, 10), frame_of(5, 10, 10)};
  frames.push_back(frames[2]);  // appended twice (a write retried after a failed commit)
  int64_t stored = frames[0].sweeps[6].t_ns;
  auto first = sweeps_to_replay(frames, 5, stored);
  ASSERT_EQ(first.size(), 13u);  // sweeps 7..19 of boot 5, once each
  EXPECT_EQ(first.front().t_ns, frames[0].sweeps[7].t_ns);
  for (size_t i = 1; i < first.size(); ++i) EXPECT_LT(first[i - 1].t_ns, first[i].t_ns);
  EXPECT_TRUE(sweeps_to_replay(frames, 5, first.back().t_ns).empty());
}

class SweepTailFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/energy-tail-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path() const { return dir_ + "/energyd.db-tail"; }
  std::string dir_;
};

TEST_F(SweepTailFileTest, AppendedFramesReadBackAndResetEmptiesTheFile) {
  auto file = SweepTailFile::open(path());
  ASSERT_TRUE(file.ok()) << file.error().describe();
  ASSERT_TRUE(file->append(frame_of(1, 0, 4)).ok());
  const size_t first_bytes = static_cast<size_t>(file->size_bytes());
  ASSERT_TRUE(file->append(frame_of(1, 4, 4)).ok());
  ASSERT_TRUE(file->sync().ok());
  auto bytes = read_tail_file(path());
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(static_cast<int64_t>(bytes->size()), kTailAllocBytes);
  EXPECT_EQ(decode_tail(*bytes).frames.size(), 2u);
  EXPECT_EQ(decode_tail(*bytes).valid_bytes, static_cast<size_t>(file->size_bytes()));
  // The second frame's counters are values only.
  EXPECT_LT(static_cast<size_t>(file->size_bytes()) - first_bytes + 25, first_bytes);
  ASSERT_TRUE(file->reset().ok());
  ASSERT_TRUE(file->append(frame_of(1, 8, 1)).ok());  // whole counters again: it decodes alone
  auto after = read_tail_file(path());
  ASSERT_TRUE(after.ok());
  TailScan scan = decode_tail(*after);
  ASSERT_EQ(scan.frames.size(), 1u);
  EXPECT_TRUE(scan.problem.empty());
}

// Issue 16: appends write in place; the file's size stays what open
// allocated, and what follows the frames reads as zeros, which is the end.
TEST_F(SweepTailFileTest, APreallocatedTailWithZerosAfterItsFramesReplaysExactly) {
  auto file = SweepTailFile::open(path());
  ASSERT_TRUE(file.ok()) << file.error().describe();
  std::vector<TailFrame> written = {frame_of(1, 0, 10), frame_of(1, 10, 10), frame_of(1, 20, 3)};
  for (const auto& f : written) {
    ASSERT_TRUE(file->append(f).ok());
    struct stat st {};
    ASSERT_EQ(::stat(path().c_str(), &st), 0);
    EXPECT_EQ(st.st_size, kTailAllocBytes);
  }
  auto bytes = read_tail_file(path());
  ASSERT_TRUE(bytes.ok());
  TailScan scan = decode_tail(*bytes);
  EXPECT_TRUE(scan.problem.empty()) << scan.problem;
  EXPECT_FALSE(scan.torn);
  EXPECT_EQ(scan.valid_bytes, static_cast<size_t>(file->size_bytes()));
  ASSERT_EQ(scan.frames.size(), written.size());
  for (size_t f = 0; f < written.size(); ++f) {
    ASSERT_EQ(scan.frames[f].sweeps.size(), written[f].sweeps.size());
    for (size_t i = 0; i < written[f].sweeps.size(); ++i) expect_same(scan.frames[f].sweeps[i], written[f].sweeps[i]);
    EXPECT_EQ(scan.frames[f].counters->energy_uj, written[f].counters->energy_uj);
  }
}

// A power cut between syncs can leave any page of the last frame unwritten:
// zeros where its payload or the end of its magic should be. It is torn,
// the frames before it kept; a bad frame with frames after it is damage.
TEST(SweepTail, ATornLastFrameInAPreallocatedTailIsReportedAndThePrefixKept) {
  std::string first = bytes_of(frame_of(2, 0, 10)), second = bytes_of(frame_of(2, 10, 10));
  const std::string zeros(4096, '\0');
  for (size_t from = 2; from < second.size(); ++from) {
    std::string torn = second;
    std::fill(torn.begin() + static_cast<std::ptrdiff_t>(from), torn.end(), '\0');
    std::string file = first;
    file += torn;
    file += zeros;
    TailScan scan = decode_tail(file);
    ASSERT_EQ(scan.frames.size(), 1u) << "zeros from " << from;
    EXPECT_EQ(scan.valid_bytes, first.size());
    EXPECT_TRUE(scan.torn) << "zeros from " << from << ": " << scan.problem;
    EXPECT_NE(scan.problem.find("frame 2 at byte " + std::to_string(first.size())), std::string::npos) << scan.problem;
  }
  std::string flipped = second;
  flipped[20] = static_cast<char>(flipped[20] ^ 0x5a);
  std::string file = first;
  file += flipped;
  file += second;
  file += zeros;
  TailScan damaged = decode_tail(file);
  EXPECT_EQ(damaged.frames.size(), 1u);
  EXPECT_FALSE(damaged.torn) << damaged.problem;
  EXPECT_FALSE(damaged.problem.empty());
}

// Frames beyond the allocation grow it (doubling) and keep every frame; a
// reopened file is appended to after its frames, and one holding anything
// but zeros after them is refused rather than written over.
TEST_F(SweepTailFileTest, GrowingAndReopeningKeepEveryFrame) {
  size_t frames = 0;
  {
    auto file = SweepTailFile::open(path());
    ASSERT_TRUE(file.ok());
    for (int64_t i = 0; file->size_bytes() <= kTailAllocBytes; i += 1000, ++frames)
      ASSERT_TRUE(file->append(frame_of(1, i, 1000)).ok());
    EXPECT_EQ(file->allocated_bytes(), 2 * kTailAllocBytes);
  }
  std::string bytes;
  {
    auto file = SweepTailFile::open(path());
    ASSERT_TRUE(file.ok()) << file.error().describe();
    ASSERT_TRUE(file->append(frame_of(1, 1'000'000, 5)).ok());
    auto read = read_tail_file(path());
    ASSERT_TRUE(read.ok());
    bytes = *read;
  }
  EXPECT_EQ(static_cast<int64_t>(bytes.size()), 2 * kTailAllocBytes);
  TailScan scan = decode_tail(bytes);
  EXPECT_TRUE(scan.problem.empty()) << scan.problem;
  ASSERT_EQ(scan.frames.size(), frames + 1);
  EXPECT_EQ(scan.frames.back().sweeps.size(), 5u);
  const int64_t last = 1000 * static_cast<int64_t>(frames - 1);
  EXPECT_EQ(scan.frames[frames - 1].sweeps.back().t_ns, frame_of(1, last, 1000).sweeps.back().t_ns);
  bytes[scan.valid_bytes + 100] = 'x';
  std::ofstream(path(), std::ios::binary | std::ios::trunc) << bytes;
  auto refused = SweepTailFile::open(path());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kInvalid);
  EXPECT_NE(refused.error().message.find(path()), std::string::npos) << refused.error().message;
}

TEST_F(SweepTailFileTest, AMissingFileReadsEmptyAndAFifoIsRefused) {
  auto none = read_tail_file(path());
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  ASSERT_EQ(::mkfifo(path().c_str(), 0600), 0);
  EXPECT_EQ(SweepTailFile::open(path()).error().code, ErrorCode::kInvalid);
  EXPECT_EQ(read_tail_file(path()).error().code, ErrorCode::kInvalid);
}

}  // namespace
}  // namespace energy
