#include "energy/codec.h"

#include <gtest/gtest.h>

#include <random>

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

}  // namespace
}  // namespace energy::codec
