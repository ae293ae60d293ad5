#include "energy/codec.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "energy/chunker.h"

namespace energy::codec {
namespace {

TEST(Varint, RoundTripsExtremes) {
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{63}, int64_t{-64}, INT64_MAX, INT64_MIN}) {
    std::string buf;
    put_varint(buf, zigzag(v));
    size_t pos = 0;
    uint64_t u = 0;
    ASSERT_TRUE(get_varint(buf, pos, u));
    EXPECT_EQ(unzigzag(u), v);
    EXPECT_EQ(pos, buf.size());
  }
}

TEST(Codec, HwmonReadingsRoundTripAndPowerIsVoltageTimesCurrent) {
  std::vector<Reading> in = {{4968, 792, 0, 0}, {4968, 800, 0, 0}, {0, 0, 0, 5 /*EIO*/}, {4960, 784, 0, 0}};
  auto blob = encode_readings(in, 0);
  auto out = decode_readings(blob, 0);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->size(), in.size());
  EXPECT_EQ((*out)[1].current_ma, 800);
  EXPECT_EQ((*out)[1].power_uw, 4968 * 800);
  EXPECT_EQ((*out)[2].err, 5);
  EXPECT_EQ((*out)[3].voltage_mv, 4960);
}

TEST(Codec, PowerFileIsStoredInTheDriversUnit) {
  std::vector<Reading> in = {{5000, 640, 3189000, 0}, {4984, 648, 3229000, 0}};
  auto blob = encode_readings(in, 1000);
  auto out = decode_readings(blob, 1000);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[1].power_uw, 3229000);
}

TEST(Codec, SteadyRailCostsAboutTwoBytesPerReading) {
  std::mt19937 rng(1);
  std::uniform_int_distribution<int> noise(-2, 2);
  std::vector<Reading> in;
  for (int i = 0; i < 600; ++i) in.push_back({4968 + 8 * noise(rng) / 2, 792 + 8 * noise(rng), 0, 0});
  auto blob = encode_readings(in, 0);
  EXPECT_LE(blob.size(), in.size() * 2 + 8);
}

TEST(Codec, SweepTimesOnAGridCostAboutTwoBytes) {
  std::vector<int64_t> t;
  std::mt19937 rng(2);
  std::uniform_int_distribution<int> jitter(-300, 300);
  for (int i = 0; i < 600; ++i) t.push_back(1'000'000 + i * 100'000 + jitter(rng));
  auto blob = encode_times_us(t);
  auto back = decode_times_us(blob);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, t);
  EXPECT_LE(blob.size(), t.size() * 2 + 8);
}

TEST(Codec, TruncatedChunkIsAnError) {
  std::string blob = encode_readings({{5000, 1000, 0, 0}}, 0);
  blob.pop_back();
  blob.push_back(static_cast<char>(0x80));
  EXPECT_FALSE(decode_readings(blob, 0).ok());
}

// ---- Damaged chunks (found by fuzz/fuzz_chunks) ----------------------------

std::string varints(std::initializer_list<uint64_t> values) {
  std::string out;
  for (uint64_t v : values) put_varint(out, v);
  return out;
}

// The head of a valid reading: zigzag(voltage delta) << 1.
uint64_t valid_head(int64_t dv) { return zigzag(dv) << 1; }

TEST(Varint, MoreThanSixtyFourBitsIsRefused) {
  std::string blob(9, static_cast<char>(0xff));
  blob.push_back(0x7f);  // the tenth byte may only carry bit 63
  size_t pos = 0;
  uint64_t v = 0;
  EXPECT_FALSE(get_varint(blob, pos, v));
}

TEST(Codec, FailedReadingWithErrnoZeroIsAnError) {
  // Tag 1 would be errno 0: encode_readings never writes it, and decoding it
  // as a failed reading would hand out a "valid" all-zero reading.
  auto out = decode_readings(varints({1}), 0);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message.find("errno 0"), std::string::npos) << out.error().message;
}

TEST(Codec, ErrnoBeyondThirtyTwoBitsIsAnError) {
  EXPECT_FALSE(decode_readings(varints({(uint64_t{1} << 40) | 1u}), 0).ok());
}

TEST(Codec, NegativeErrnoStillRoundTrips) {
  auto out = decode_readings(encode_readings({{0, 0, 0, -5}}, 0), 0);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].err, -5);
}

TEST(Codec, VoltageOutsideThirtyTwoBitsIsAnError) {
  auto out = decode_readings(varints({valid_head(int64_t{1} << 40), zigzag(0)}), 0);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message.find("voltage"), std::string::npos) << out.error().message;
}

TEST(Codec, CurrentOutsideThirtyTwoBitsIsAnError) {
  EXPECT_FALSE(decode_readings(varints({valid_head(0), zigzag(INT64_MIN)}), 0).ok());
}

TEST(Codec, PowerDeltaThatOverflowsIsAnError) {
  // A power-file delta of INT64_MAX / 2 in mW is far beyond int64 in uW.
  auto out = decode_readings(varints({valid_head(0), zigzag(0), zigzag(INT64_MAX / 2)}), 1000);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message.find("power"), std::string::npos) << out.error().message;
}

TEST(Codec, TimesThatOverflowAreAnError) {
  auto out = decode_times_us(varints({zigzag(INT64_MAX), zigzag(0)}));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message.find("time"), std::string::npos) << out.error().message;
}

TEST(Codec, ExtremeButValidTimesStillDecode) {
  std::vector<int64_t> t = {0, INT64_MAX / 1000, 1};
  auto back = decode_times_us(encode_times_us(t));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, t);
}

TEST(RailChunk, NegativeTimeIsAnError) {
  RailChunk rail;
  rail.data = encode_readings({{5000, 100, 0, 0}}, 0);
  auto out = decode_rail_chunk(encode_times_us({-1}), rail, 0);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message.find("out of range"), std::string::npos) << out.error().message;
}

TEST(RailChunk, TimeBeyondNanosecondRangeIsAnError) {
  RailChunk rail;
  rail.data = encode_readings({{5000, 100, 0, 0}}, 0);
  EXPECT_FALSE(decode_rail_chunk(encode_times_us({INT64_MAX / 1000 + 1}), rail, 0).ok());
}

TEST(RailChunk, DecodesReadingsWithRunningEnergy) {
  RailChunk rail;
  rail.data = encode_readings({{5000, 200, 0, 0}, {0, 0, 0, 5}, {5000, 200, 0, 0}}, 0);
  rail.first.cum_uj = 10;
  auto out = decode_rail_chunk(encode_times_us({1'000'000, 1'100'000, 1'200'000}), rail, 0);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->size(), 3u);
  EXPECT_EQ((*out)[1].reading.err, 5);
  // 1 W for 200 ms bridged over the failed reading: 200000 uJ.
  EXPECT_DOUBLE_EQ((*out)[2].cum_uj, 10 + 200000.0);
}

}  // namespace
}  // namespace energy::codec
