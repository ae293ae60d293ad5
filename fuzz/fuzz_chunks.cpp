// fuzz_chunks: bytes -> the raw tier's chunk decoding (codec.h, chunker.h).
//
// Input: [power unit selector][times length: 2 bytes LE][times blob][rail blob].
// Properties: decoding never reads out of bounds, never overflows, never
// allocates more than a small multiple of the blob; whatever decodes
// re-encodes to a blob that decodes to the same values; a rail chunk decodes
// to one stored reading per time with a finite running energy.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "energy/chunker.h"
#include "energy/codec.h"
#include "fuzz_common.h"

namespace {

using energy::fuzz::require;
namespace codec = energy::codec;

// No power file (INA3221 hwmon), the L4T 32 IIO file (mW), INA238 (uW), an odd unit.
constexpr int64_t kUnits[] = {0, 1000, 1, 7};

bool same(const codec::Reading& a, const codec::Reading& b) {
  return a.err == b.err &&
         (a.err != 0 || (a.voltage_mv == b.voltage_mv && a.current_ma == b.current_ma && a.power_uw == b.power_uw));
}

void check_readings(const std::string& blob, int64_t unit) {
  auto out = codec::decode_readings(blob, unit);
  if (!out) return;
  require(out->size() <= blob.size(), "more readings than bytes");
  auto again = codec::decode_readings(codec::encode_readings(*out, unit), unit);
  require(again.ok(), "re-encoded readings do not decode");
  require(again->size() == out->size(), "re-encoded readings changed count");
  for (size_t i = 0; i < out->size(); ++i) require(same((*out)[i], (*again)[i]), "re-encoded reading changed");
}

void check_times(const std::string& blob) {
  auto out = codec::decode_times_us(blob);
  if (!out) return;
  require(out->size() <= blob.size(), "more times than bytes");
  auto again = codec::decode_times_us(codec::encode_times_us(*out));
  require(again.ok() && *again == *out, "re-encoded times changed");
}

void check_rail_chunk(const std::string& times, const std::string& data, int64_t unit) {
  energy::RailChunk rail;
  rail.data = data;
  auto out = energy::decode_rail_chunk(times, rail, unit);
  if (!out) return;
  for (const auto& r : *out) {
    require(r.t_ns >= 0, "negative stored time");
    require(std::isfinite(r.cum_uj), "running energy not finite");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  energy::fuzz::Input in(data, size);
  int64_t unit = kUnits[in.byte() % 4];
  std::string times = in.take(in.u16());
  std::string rail = in.rest();
  check_times(times);
  check_readings(rail, unit);
  check_rail_chunk(times, rail, unit);
  return 0;
}
