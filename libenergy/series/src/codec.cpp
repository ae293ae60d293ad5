#include "energy/codec.h"

#include <limits>

namespace energy::codec {
namespace {

// A chunk is written only by encode_readings / encode_times_us, so anything
// they cannot produce (a varint past 64 bits, a failed reading with errno 0,
// a quantity outside its type, arithmetic that overflows) means the blob is
// damaged: decoding stops with an error instead of returning wrapped values
// (or executing signed overflow).
Error corrupt(const std::string& what) { return make_error(ErrorCode::kStorage, "corrupt chunk: " + what); }

bool get_signed(const std::string& in, size_t& pos, int64_t& v) {
  uint64_t u = 0;
  if (!get_varint(in, pos, u)) return false;
  v = unzigzag(u);
  return true;
}

bool fits_int32(int64_t v) {
  return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

// prev + delta as an int32 quantity (mV, mA); false when out of range.
bool add_int32(int32_t prev, int64_t delta, int32_t& out) {
  int64_t sum = 0;
  if (__builtin_add_overflow(int64_t{prev}, delta, &sum) || !fits_int32(sum)) return false;
  out = static_cast<int32_t>(sum);
  return true;
}

// prev + delta x unit (the power file's delta in its unit); false on overflow.
bool add_scaled(int64_t prev, int64_t delta, int64_t unit, int64_t& out) {
  int64_t scaled = 0;
  return !__builtin_mul_overflow(delta, unit, &scaled) && !__builtin_add_overflow(prev, scaled, &out);
}

// A failed reading's tag: errno + 1 shifted left, errno in 1..UINT32_MAX
// (encode_readings stores errno as uint32; a negative one wraps back).
Result<Reading> decode_failed(uint64_t head) {
  uint64_t err = head >> 1;
  if (err == 0 || err > std::numeric_limits<uint32_t>::max()) {
    return corrupt("failed reading with errno " + std::to_string(err));
  }
  return Reading{0, 0, 0, static_cast<int32_t>(static_cast<uint32_t>(err))};
}

Result<Reading> decode_valid(const std::string& blob, size_t& pos, uint64_t head, const Reading& prev,
                             int64_t power_unit_uw) {
  bool has_power_file = power_unit_uw > 0;
  int64_t dv = unzigzag(head >> 1), di = 0, dp = 0;
  if (!get_signed(blob, pos, di)) return corrupt("truncated reading");
  if (has_power_file && !get_signed(blob, pos, dp)) return corrupt("truncated power");
  Reading r;
  if (!add_int32(prev.voltage_mv, dv, r.voltage_mv)) return corrupt("voltage out of range");
  if (!add_int32(prev.current_ma, di, r.current_ma)) return corrupt("current out of range");
  if (!has_power_file) {
    r.power_uw = int64_t{r.voltage_mv} * r.current_ma;  // int32 x int32 fits in int64
  } else if (!add_scaled(prev.power_uw, dp, power_unit_uw, r.power_uw)) {
    return corrupt("power out of range");
  }
  return r;
}

}  // namespace

void put_varint_long(std::string& out, uint64_t v) {
  char bytes[10];
  size_t n = 0;
  while (v >= 0x80) {
    bytes[n++] = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  bytes[n++] = static_cast<char>(v);
  out.append(bytes, n);
}

// The tenth byte carries bit 63 only: more would not fit in 64 bits.
bool get_varint(const std::string& in, size_t& pos, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64 && pos < in.size(); shift += 7) {
    auto byte = static_cast<unsigned char>(in[pos++]);
    if (shift == 63 && byte > 1) return false;
    v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

std::string encode_readings(const std::vector<Reading>& readings, int64_t power_unit_uw) {
  bool has_power_file = power_unit_uw > 0;
  std::string out;
  out.reserve(readings.size() * (has_power_file ? 4 : 3));
  Reading prev;
  for (const auto& r : readings) {
    if (r.err != 0) {
      put_varint(out, (static_cast<uint64_t>(static_cast<uint32_t>(r.err)) << 1) | 1u);
      continue;
    }
    put_varint(out, zigzag(int64_t{r.voltage_mv} - prev.voltage_mv) << 1);
    put_signed(out, int64_t{r.current_ma} - prev.current_ma);
    if (has_power_file) put_signed(out, (r.power_uw - prev.power_uw) / power_unit_uw);
    prev = r;
  }
  return out;
}

Result<std::vector<Reading>> decode_readings(const std::string& blob, int64_t power_unit_uw) {
  std::vector<Reading> out;
  Reading prev;
  size_t pos = 0;
  while (pos < blob.size()) {
    uint64_t head = 0;
    if (!get_varint(blob, pos, head)) return corrupt("truncated reading");
    auto r = (head & 1u) != 0 ? decode_failed(head) : decode_valid(blob, pos, head, prev, power_unit_uw);
    if (!r) return r.take_error();
    if (r->err == 0) prev = *r;
    out.push_back(*r);
  }
  return out;
}

std::string encode_times_us(const std::vector<int64_t>& times_us) {
  std::string out;
  int64_t prev = 0, prev_delta = 0;
  for (int64_t t : times_us) {
    int64_t delta = t - prev;
    put_signed(out, delta - prev_delta);
    prev_delta = delta;
    prev = t;
  }
  return out;
}

Result<std::vector<int64_t>> decode_times_us(const std::string& blob) {
  std::vector<int64_t> out;
  int64_t prev = 0, prev_delta = 0;
  size_t pos = 0;
  while (pos < blob.size()) {
    int64_t dod = 0;
    if (!get_signed(blob, pos, dod)) return corrupt("truncated time");
    if (__builtin_add_overflow(prev_delta, dod, &prev_delta) || __builtin_add_overflow(prev, prev_delta, &prev)) {
      return corrupt("time out of range");
    }
    out.push_back(prev);
  }
  return out;
}

}  // namespace energy::codec
