#include "energy/codec.h"

namespace energy::codec {
namespace {

Error corrupt(const char* what) { return make_error(ErrorCode::kStorage, std::string("corrupt chunk: ") + what); }

void put_signed(std::string& out, int64_t v) { put_varint(out, zigzag(v)); }

bool get_signed(const std::string& in, size_t& pos, int64_t& v) {
  uint64_t u = 0;
  if (!get_varint(in, pos, u)) return false;
  v = unzigzag(u);
  return true;
}

}  // namespace

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

bool get_varint(const std::string& in, size_t& pos, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64 && pos < in.size(); shift += 7) {
    auto byte = static_cast<unsigned char>(in[pos++]);
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
  bool has_power_file = power_unit_uw > 0;
  std::vector<Reading> out;
  Reading prev;
  size_t pos = 0;
  while (pos < blob.size()) {
    uint64_t head = 0;
    if (!get_varint(blob, pos, head)) return corrupt("truncated reading");
    if ((head & 1u) != 0) {
      out.push_back(Reading{0, 0, 0, static_cast<int32_t>(head >> 1)});
      continue;
    }
    int64_t dv = unzigzag(head >> 1), di = 0, dp = 0;
    if (!get_signed(blob, pos, di)) return corrupt("truncated reading");
    if (has_power_file && !get_signed(blob, pos, dp)) return corrupt("truncated power");
    Reading r{static_cast<int32_t>(prev.voltage_mv + dv), static_cast<int32_t>(prev.current_ma + di),
              prev.power_uw + dp * power_unit_uw, 0};
    if (!has_power_file) r.power_uw = int64_t{r.voltage_mv} * r.current_ma;
    out.push_back(r);
    prev = r;
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
    prev_delta += dod;
    prev += prev_delta;
    out.push_back(prev);
  }
  return out;
}

}  // namespace energy::codec
