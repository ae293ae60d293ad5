// The sweep tail's decoder (sweep_tail.h): versions 1 and 2 of the frame
// format, trusting nothing in the bytes.
#include <algorithm>
#include <cstring>
#include <limits>

#include "energy/codec.h"
#include "energy/sweep_tail.h"
#include "sweep_tail_format.h"

namespace energy {
namespace {

using codec::get_varint;
using codec::unzigzag;
using tail_format::get_u32;
using tail_format::kHeaderBytes;
using tail_format::kMagicV1;
using tail_format::kMagicV2;
using tail_format::kMaxErrno;
using tail_format::kMinSweepBytes;
using tail_format::RailPrev;

// Reads a version 1 or 2 payload; each step says what it found wrong in
// `problem`. `previous` is the last earlier frame's counters (version 2's
// counters kind 2 takes their id, start and labels).
class PayloadReader {
 public:
  PayloadReader(const std::string& in, int version, const std::optional<StoredCounters>& previous)
      : in_(in), version_(version), previous_(previous) {}
  bool read(TailFrame& frame);
  const std::string& problem() const { return problem_; }

 private:
  bool fail(std::string what) {
    problem_ = std::move(what);
    return false;
  }
  bool get(uint64_t& v, const char* what) { return get_varint(in_, pos_, v) || fail(std::string("bad ") + what); }
  bool get_signed(int64_t& v, const char* what) {
    uint64_t u = 0;
    if (!get(u, what)) return false;
    v = unzigzag(u);
    return true;
  }
  bool read_id(int64_t& id, const char* what);
  bool read_text(std::string& text, const char* what);
  bool read_double(double& v);
  bool read_counters(std::optional<StoredCounters>& out);
  bool read_counter_identity(uint64_t kind, StoredCounters& c, uint64_t& n);
  bool read_header(TailFrame& frame, uint64_t& count);
  bool read_stamps(Sample& s, size_t index);
  bool read_sweep(Sample& s, size_t index);
  bool read_failed(Sample& s);
  bool read_value(RailValue& v, RailPrev& prev);
  bool read_value_v1(RailValue& v, RailPrev& prev);

  const std::string& in_;
  int version_;
  const std::optional<StoredCounters>& previous_;
  bool derived_ = false;  // version 2: power is voltage x current, not written
  size_t rails_ = 0;
  size_t pos_ = 0;
  int64_t prev_t_ = 0;
  int64_t prev_step_ = 0;
  int64_t prev_offset_ = 0;
  std::vector<RailPrev> prev_;
  std::string problem_;
};

bool PayloadReader::read_id(int64_t& id, const char* what) {
  uint64_t v = 0;
  if (!get(v, what)) return false;
  if (v == 0 || v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return fail(std::string(what) + " out of range");
  id = static_cast<int64_t>(v);
  return true;
}

bool PayloadReader::read_text(std::string& text, const char* what) {
  uint64_t n = 0;
  if (!get(n, what)) return false;
  if (n > in_.size() - pos_) return fail(std::string(what) + " longer than the frame");
  text = in_.substr(pos_, static_cast<size_t>(n));
  pos_ += static_cast<size_t>(n);
  return true;
}

bool PayloadReader::read_double(double& v) {
  if (in_.size() - pos_ < 8) return fail("counter value cut short");
  uint64_t bits = 0;
  for (size_t b = 0; b < 8; ++b) bits |= uint64_t{static_cast<unsigned char>(in_[pos_ + b])} << (8 * b);
  pos_ += 8;
  std::memcpy(&v, &bits, sizeof v);
  return true;
}

// Kind 1: the id, start and rail count are in the frame; kind 2: they are
// the previous frame's.
bool PayloadReader::read_counter_identity(uint64_t kind, StoredCounters& c, uint64_t& n) {
  if (kind == 2) {
    if (!previous_) return fail("counters refer to an earlier frame's, and no earlier frame has counters");
    c = *previous_;
    n = c.energy_uj.size();
    return true;
  }
  int64_t created = 0;
  if (!read_text(c.counters_id, "counters id") || !get_signed(created, "counters start") || !get(n, "counters rails"))
    return false;
  if (n > kMaxTailRails) return fail("too many counter rails");
  c.created_wall_ns = created;
  c.energy_uj.resize(static_cast<size_t>(n));
  return true;
}

bool PayloadReader::read_counters(std::optional<StoredCounters>& out) {
  uint64_t kind = 0, n = 0;
  if (!get(kind, "counters flag")) return false;
  if (kind > (version_ == 1 ? 1u : 2u)) return fail("bad counters flag");
  if (kind == 0) return true;
  StoredCounters c;
  if (!read_counter_identity(kind, c, n)) return false;
  for (auto& [label, uj] : c.energy_uj) {
    if ((kind == 1 && !read_text(label, "counter label")) || !read_double(uj)) return false;
  }
  auto st = validate_counters(c, "counters");
  if (!st) return fail(st.error().message);
  out = std::move(c);
  return true;
}

bool PayloadReader::read_header(TailFrame& frame, uint64_t& count) {
  uint64_t rails = 0, derived = 0;
  if (!read_id(frame.boot, "boot id") || !get(rails, "rail count")) return false;
  if (rails > kMaxTailRails) return fail(std::to_string(rails) + " rails is more than a board has");
  rails_ = static_cast<size_t>(rails);
  frame.rail_ids.resize(rails_);
  for (auto& id : frame.rail_ids) {
    if (!read_id(id, "rail id")) return false;
  }
  if (version_ == 2 && !get(derived, "power flag")) return false;
  if (derived > 1) return fail("bad power flag");
  derived_ = derived == 1;
  if (!read_counters(frame.counters) || !get(count, "sweep count")) return false;
  if (count > (in_.size() - pos_) / kMinSweepBytes) return fail("sweep count larger than the frame");
  prev_.assign(rails_, RailPrev{});
  return true;
}

// prev + the three deltas, in range; version 1 writes power first and
// after the errno, version 2 last (or not at all when derived).
bool PayloadReader::read_value(RailValue& v, RailPrev& prev) {
  int64_t dp = 0, dv = 0, dc = 0, p = 0, mv = 0, ma = 0;
  if (version_ == 1 && !get_signed(dp, "power")) return false;
  if (!get_signed(dv, "voltage") || !get_signed(dc, "current")) return false;
  if (version_ == 2 && !derived_ && !get_signed(dp, "power")) return false;
  if (__builtin_add_overflow(prev.voltage_mv, dv, &mv) || __builtin_add_overflow(prev.current_ma, dc, &ma) ||
      (!derived_ && __builtin_add_overflow(prev.power_uw, dp, &p)))
    return fail("reading overflows");
  constexpr int64_t kLo = std::numeric_limits<int32_t>::min(), kHi = std::numeric_limits<int32_t>::max();
  if (mv < kLo || mv > kHi || ma < kLo || ma > kHi) return fail("voltage or current out of range");
  v.power_uw = derived_ ? mv * ma : p;
  v.voltage_mv = static_cast<int32_t>(mv);
  v.current_ma = static_cast<int32_t>(ma);
  prev = RailPrev{v.power_uw, mv, ma};
  return true;
}

bool PayloadReader::read_value_v1(RailValue& v, RailPrev& prev) {
  uint64_t err = 0;
  if (!get(err, "errno")) return false;
  if (err > kMaxErrno) return fail("errno " + std::to_string(err) + " out of range");
  v.err = static_cast<int32_t>(err);
  return err != 0 || read_value(v, prev);
}

// Version 2: the failed rails' count, then each one's index (increasing)
// and errno (1..kMaxErrno).
bool PayloadReader::read_failed(Sample& s) {
  uint64_t n = 0;
  if (!get(n, "failed rail count")) return false;
  if (n > rails_) return fail("more failed rails than rails");
  uint64_t next = 0;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t r = 0, err = 0;
    if (!get(r, "failed rail") || !get(err, "errno")) return false;
    if (r < next || r >= rails_) return fail("failed rail " + std::to_string(r) + " out of order or range");
    if (err == 0 || err > kMaxErrno) return fail("errno " + std::to_string(err) + " out of range");
    s.values[static_cast<size_t>(r)].err = static_cast<int32_t>(err);
    next = r + 1;
  }
  return true;
}

// Version 1: t_ns as its step from the previous sweep's (the first from 0);
// version 2: the first sweep's t_ns, the second's step, then each step's
// change from the previous step. Then wall_ns - t_ns's change.
bool PayloadReader::read_stamps(Sample& s, size_t index) {
  int64_t code = 0, step = 0, doff = 0, offset = 0;
  if (!get_signed(code, "stamp") || !get_signed(doff, "wall offset")) return false;
  step = code;
  if ((version_ == 2 && __builtin_add_overflow(prev_step_, code, &step)) || step <= 0 ||
      __builtin_add_overflow(prev_t_, step, &s.t_ns))
    return fail("sweep " + std::to_string(index) + " is not after the previous one");
  if (__builtin_add_overflow(prev_offset_, doff, &offset) || __builtin_add_overflow(s.t_ns, offset, &s.wall_ns))
    return fail("sweep " + std::to_string(index) + " wall clock out of range");
  prev_t_ = s.t_ns;
  prev_step_ = index == 0 ? 0 : step;
  prev_offset_ = offset;
  return true;
}

bool PayloadReader::read_sweep(Sample& s, size_t index) {
  if (!read_stamps(s, index)) return false;
  s.values.assign(rails_, RailValue{});
  if (version_ == 1) {
    for (size_t r = 0; r < rails_; ++r) {
      if (!read_value_v1(s.values[r], prev_[r])) return false;
    }
    return true;
  }
  if (!read_failed(s)) return false;
  for (size_t r = 0; r < rails_; ++r) {
    if (s.values[r].err == 0 && !read_value(s.values[r], prev_[r])) return false;
  }
  return true;
}

bool PayloadReader::read(TailFrame& frame) {
  uint64_t count = 0;
  if (!read_header(frame, count)) return false;
  frame.sweeps.resize(static_cast<size_t>(count));
  for (size_t i = 0; i < frame.sweeps.size(); ++i) {
    if (!read_sweep(frame.sweeps[i], i)) return false;
  }
  return pos_ == in_.size() || fail("bytes after the last sweep");
}

bool damaged(TailScan& scan, std::string what) {
  scan.problem = std::move(what);
  return false;
}

bool cut_short(TailScan& scan, std::string what) {
  scan.torn = true;
  return damaged(scan, std::move(what));
}

// Whether every byte from `pos` on is zero: the preallocated space after
// the last frame.
bool zeros_from(const std::string& bytes, size_t pos) {
  return std::all_of(bytes.begin() + static_cast<std::ptrdiff_t>(pos), bytes.end(), [](char c) { return c == 0; });
}

// The frame's version from its magic (of which a torn header may hold only
// a prefix: version 2 is then assumed), or 0 when it is no frame's.
int frame_version(const std::string& bytes, size_t pos) {
  size_t n = std::min<size_t>(bytes.size() - pos, 4);
  if (bytes.compare(pos, n, kMagicV2, n) == 0) return 2;
  if (bytes.compare(pos, n, kMagicV1, n) == 0) return 1;
  return 0;
}

// Whether the bytes at `pos` are the start of a magic followed only by
// zeros: a header a power cut tore in a preallocated file.
bool magic_cut(const std::string& bytes, size_t pos) {
  size_t n = 0;
  while (n < 4 && pos + n < bytes.size() && bytes[pos + n] != 0) ++n;
  return n > 0 && n < 4 && (bytes.compare(pos, n, kMagicV2, n) == 0 || bytes.compare(pos, n, kMagicV1, n) == 0) &&
         zeros_from(bytes, pos + n);
}

// The frame at `pos`, or false with what is wrong in `scan`; `previous` is
// the counters of the last earlier frame that has them.
bool decode_frame(const std::string& bytes, size_t pos, const std::optional<StoredCounters>& previous, TailFrame& frame,
                  TailScan& scan) {
  size_t left = bytes.size() - pos;
  int version = frame_version(bytes, pos);
  if (version == 0 && magic_cut(bytes, pos)) return cut_short(scan, "header cut short");
  if (version == 0) return damaged(scan, "no frame magic");
  if (left < kHeaderBytes) return cut_short(scan, "header cut short");
  uint32_t length = get_u32(bytes, pos + 4);
  if (length > kMaxTailPayloadBytes) return damaged(scan, "frame length " + std::to_string(length) + " too large");
  if (length > left - kHeaderBytes)
    return cut_short(
        scan, "frame cut short (" + std::to_string(left - kHeaderBytes) + " of " + std::to_string(length) + " bytes)");
  std::string payload = bytes.substr(pos + kHeaderBytes, length);
  // A whole frame followed by (at least one, and only) zeros is the last of
  // a preallocated file: wrong, it is the one a power cut tore.
  size_t end = pos + kHeaderBytes + length;
  auto bad = end < bytes.size() && zeros_from(bytes, end) ? cut_short : damaged;
  if (crc32_ieee(payload.data(), payload.size()) != get_u32(bytes, pos + 8)) return bad(scan, "checksum mismatch");
  PayloadReader reader(payload, version, previous);
  if (!reader.read(frame)) return bad(scan, reader.problem());
  return true;
}

}  // namespace

TailScan decode_tail(const std::string& bytes) { return decode_tail(bytes, 0, std::nullopt); }

TailScan decode_tail(const std::string& bytes, size_t from, std::optional<StoredCounters> previous) {
  TailScan scan;
  scan.valid_bytes = std::min(from, bytes.size());
  while (scan.valid_bytes < bytes.size() && !zeros_from(bytes, scan.valid_bytes)) {
    TailFrame frame;
    if (!decode_frame(bytes, scan.valid_bytes, previous, frame, scan)) {
      scan.problem = "frame " + std::to_string(scan.frames.size() + 1) + " at byte " +
                     std::to_string(scan.valid_bytes) + ": " + scan.problem;
      return scan;
    }
    uint32_t length = get_u32(bytes, scan.valid_bytes + 4);
    scan.valid_bytes += kHeaderBytes + length;
    if (frame.counters) previous = frame.counters;
    scan.frames.push_back(std::move(frame));
  }
  return scan;
}

}  // namespace energy
