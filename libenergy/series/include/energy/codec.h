// Chunk codec: the raw tier's compact encoding of one rail's readings.
//
// A chunk holds consecutive readings of one rail within one boot. Each
// reading keeps the quantities the driver gives (mV, mA, and the power file
// where the driver has one), or the errno of a failed read. Encoding:
// per reading a zigzag varint delta of each quantity against the previous
// valid reading, preceded by a tag varint (0 = valid; errno + 1 = failed).
// Steady rails cost about one byte per quantity.
//
// Timestamps are stored once per sweep (shared by every rail) by
// encode_times: delta-of-delta of microsecond stamps as zigzag varints, so a
// sweep on its 100 ms grid with microseconds of jitter costs 1-2 bytes.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "energy/result.h"

namespace energy::codec {

struct Reading {
  int32_t voltage_mv = 0;
  int32_t current_ma = 0;
  int64_t power_uw = 0;  // stored (in the driver's unit) only when the driver has a power file
  int32_t err = 0;       // errno of a failed read; quantities ignored then
};

// power_unit_uw: the unit of the driver's power file in uW (1000 for the
// L4T 32 IIO file in mW, 1 for INA238's uW), or 0 when the driver has none
// (INA3221 hwmon) and power is mV x mA.
std::string encode_readings(const std::vector<Reading>& readings, int64_t power_unit_uw);
Result<std::vector<Reading>> decode_readings(const std::string& blob, int64_t power_unit_uw);

std::string encode_times_us(const std::vector<int64_t>& times_us);
Result<std::vector<int64_t>> decode_times_us(const std::string& blob);

// The power a stored reading decodes to: mV x mA without a power file,
// else the power file's value in its own unit.
inline int64_t stored_power_uw(const Reading& r, int64_t power_unit_uw) {
  if (power_unit_uw <= 0) return int64_t{r.voltage_mv} * r.current_ma;
  return r.power_uw / power_unit_uw * power_unit_uw;
}

// Varint primitives (LEB128 of zigzag-mapped values), exposed for tests.
// Values under 128, most of a steady rail's deltas, take the inline path: a
// checkpoint encodes about ten of them per sweep (issue 16).
void put_varint_long(std::string& out, uint64_t v);  // two bytes or more, appended at once
inline void put_varint(std::string& out, uint64_t v) {
  if (v < 0x80) {
    out.push_back(static_cast<char>(v));
    return;
  }
  put_varint_long(out, v);
}
bool get_varint(const std::string& in, size_t& pos, uint64_t& v);
inline uint64_t zigzag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
inline int64_t unzigzag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }
// A signed value as the varint of its zigzag mapping.
inline void put_signed(std::string& out, int64_t v) { put_varint(out, zigzag(v)); }

}  // namespace energy::codec
