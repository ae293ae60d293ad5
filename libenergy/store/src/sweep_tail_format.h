// The sweep tail's frame format shared by its encoder (sweep_tail.cpp) and
// decoder (sweep_tail_decode.cpp), internal to libenergy; the format itself
// is described in energy/sweep_tail.h.
//
// Thread-safety: constants and pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace energy::tail_format {

// Frames are written as version 2; version 1 frames (before issue 16's
// smaller frames) are still decoded, so a tail left by an older energyd is
// replayed after an upgrade.
inline constexpr char kMagicV1[4] = {'E', 'T', 'L', '1'};
inline constexpr char kMagicV2[4] = {'E', 'T', 'L', '2'};
inline constexpr size_t kHeaderBytes = 12;   // magic, length, checksum
inline constexpr uint64_t kMaxErrno = 4095;  // the kernel's errno range (MAX_ERRNO)
inline constexpr size_t kMinSweepBytes = 2;  // a sweep's two stamp codes, at least a byte each

// The little-endian u32 at `pos` (the caller checked that 4 bytes are there).
inline uint32_t get_u32(const std::string& in, size_t pos) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{static_cast<unsigned char>(in[pos + static_cast<size_t>(i)])} << (8 * i);
  return v;
}

// The last valid reading of each rail, which the next one is coded against.
struct RailPrev {
  int64_t power_uw = 0;
  int64_t voltage_mv = 0;
  int64_t current_ma = 0;
};

}  // namespace energy::tail_format
