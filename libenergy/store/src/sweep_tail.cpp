#include "energy/sweep_tail.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <limits>

#include "energy/codec.h"
#include "energy/sysroot.h"

namespace energy {
namespace {

using codec::get_varint;
using codec::put_varint;
using codec::unzigzag;
using codec::zigzag;

constexpr char kMagic[4] = {'E', 'T', 'L', '1'};
constexpr size_t kHeaderBytes = 12;              // magic, length, checksum
constexpr uint64_t kMaxErrno = 4095;             // the kernel's errno range (MAX_ERRNO)
constexpr size_t kMaxTailFileBytes = 64u << 20;  // read_tail_file's bound
constexpr size_t kMinSweepBytes = 2;             // a sweep's two stamp deltas, at least a byte each

constexpr std::array<uint32_t, 256> make_crc_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<uint32_t, 256> kCrcTable = make_crc_table();

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t get_u32(const std::string& in, size_t pos) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{static_cast<unsigned char>(in[pos + static_cast<size_t>(i)])} << (8 * i);
  return v;
}

void put_signed(std::string& out, int64_t v) { put_varint(out, zigzag(v)); }

// A delta that cannot overflow: the decoder checks the sum the same way.
bool delta(int64_t now, int64_t prev, int64_t& out) { return !__builtin_sub_overflow(now, prev, &out); }

// The last valid reading of each rail, which the next one is coded against.
struct RailPrev {
  int64_t power_uw = 0;
  int64_t voltage_mv = 0;
  int64_t current_ma = 0;
};

bool put_value(std::string& out, const RailValue& v, RailPrev& prev) {
  if (v.err < 0) return false;
  put_varint(out, static_cast<uint64_t>(v.err));
  if (v.err != 0) return true;
  int64_t dp = 0;
  if (!delta(v.power_uw, prev.power_uw, dp)) return false;
  put_signed(out, dp);
  put_signed(out, int64_t{v.voltage_mv} - prev.voltage_mv);
  put_signed(out, int64_t{v.current_ma} - prev.current_ma);
  prev = RailPrev{v.power_uw, v.voltage_mv, v.current_ma};
  return true;
}

Error invalid(const std::string& what) { return make_error(ErrorCode::kInvalid, "sweep tail frame: " + what); }

void put_bytes(std::string& out, const std::string& text) {
  put_varint(out, text.size());
  out += text;
}

void put_counters(std::string& out, const std::optional<StoredCounters>& c) {
  put_varint(out, c ? 1 : 0);
  if (!c) return;
  put_bytes(out, c->counters_id);
  put_signed(out, c->created_wall_ns);
  put_varint(out, c->energy_uj.size());
  for (const auto& [label, uj] : c->energy_uj) {
    put_bytes(out, label);
    uint64_t bits = 0;
    std::memcpy(&bits, &uj, sizeof bits);
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  }
}

Status check_frame(const TailFrame& frame) {
  if (frame.boot <= 0) return invalid("boot row id must be > 0, got " + std::to_string(frame.boot));
  if (frame.rail_ids.size() > kMaxTailRails) return invalid("more than " + std::to_string(kMaxTailRails) + " rails");
  for (int64_t id : frame.rail_ids) {
    if (id <= 0) return invalid("rail row id must be > 0, got " + std::to_string(id));
  }
  if (frame.counters) return validate_counters(*frame.counters, "sweep tail frame");
  return ok_status();
}

Status put_sweeps(std::string& out, const std::vector<Sample>& sweeps, size_t rails) {
  put_varint(out, sweeps.size());
  std::vector<RailPrev> prev(rails);
  int64_t prev_t = 0, prev_offset = 0;
  for (size_t i = 0; i < sweeps.size(); ++i) {
    const Sample& s = sweeps[i];
    int64_t dt = 0, offset = 0, doff = 0;
    if (s.values.size() != rails) return invalid("sweep " + std::to_string(i) + " has a different rail count");
    if (s.t_ns <= prev_t) return invalid("sweep " + std::to_string(i) + " is not after the previous one");
    if (!delta(s.t_ns, prev_t, dt) || !delta(s.wall_ns, s.t_ns, offset) || !delta(offset, prev_offset, doff))
      return invalid("sweep " + std::to_string(i) + " has stamps out of range");
    put_signed(out, dt);
    put_signed(out, doff);
    prev_t = s.t_ns;
    prev_offset = offset;
    for (size_t r = 0; r < rails; ++r) {
      if (!put_value(out, s.values[r], prev[r]))
        return invalid("sweep " + std::to_string(i) + " rail " + std::to_string(r) + " is out of range");
    }
  }
  return ok_status();
}

Result<std::string> encode_payload(const TailFrame& frame) {
  auto st = check_frame(frame);
  if (!st) return make_error(ErrorCode::kInvalid, st.error().message);
  std::string out;
  put_varint(out, static_cast<uint64_t>(frame.boot));
  put_varint(out, frame.rail_ids.size());
  for (int64_t id : frame.rail_ids) put_varint(out, static_cast<uint64_t>(id));
  put_counters(out, frame.counters);
  st = put_sweeps(out, frame.sweeps, frame.rail_ids.size());
  if (!st) return st.take_error();
  return out;
}

// Reads a payload; each step says what it found wrong in `problem`.
class PayloadReader {
 public:
  explicit PayloadReader(const std::string& in) : in_(in) {}
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
  bool read_counters(std::optional<StoredCounters>& out);
  bool read_header(TailFrame& frame, uint64_t& count);
  bool read_sweep(Sample& s, size_t index);
  bool read_value(RailValue& v, RailPrev& prev);

  const std::string& in_;
  size_t rails_ = 0;
  size_t pos_ = 0;
  int64_t prev_t_ = 0;
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

bool PayloadReader::read_counters(std::optional<StoredCounters>& out) {
  uint64_t present = 0, n = 0;
  if (!get(present, "counters flag")) return false;
  if (present > 1) return fail("bad counters flag");
  if (present == 0) return true;
  StoredCounters c;
  int64_t created = 0;
  if (!read_text(c.counters_id, "counters id") || !get_signed(created, "counters start") || !get(n, "counters rails"))
    return false;
  if (n > kMaxTailRails) return fail("too many counter rails");
  c.created_wall_ns = created;
  for (uint64_t i = 0; i < n; ++i) {
    std::string label;
    if (!read_text(label, "counter label")) return false;
    if (in_.size() - pos_ < 8) return fail("counter value cut short");
    uint64_t bits = 0;
    for (size_t b = 0; b < 8; ++b) bits |= uint64_t{static_cast<unsigned char>(in_[pos_ + b])} << (8 * b);
    pos_ += 8;
    double uj = 0;
    std::memcpy(&uj, &bits, sizeof uj);
    c.energy_uj.emplace_back(std::move(label), uj);
  }
  auto st = validate_counters(c, "counters");
  if (!st) return fail(st.error().message);
  out = std::move(c);
  return true;
}

bool PayloadReader::read_header(TailFrame& frame, uint64_t& count) {
  uint64_t rails = 0;
  if (!read_id(frame.boot, "boot id") || !get(rails, "rail count")) return false;
  if (rails > kMaxTailRails) return fail(std::to_string(rails) + " rails is more than a board has");
  rails_ = static_cast<size_t>(rails);
  frame.rail_ids.resize(rails_);
  for (auto& id : frame.rail_ids) {
    if (!read_id(id, "rail id")) return false;
  }
  if (!read_counters(frame.counters) || !get(count, "sweep count")) return false;
  if (count > (in_.size() - pos_) / kMinSweepBytes) return fail("sweep count larger than the frame");
  prev_.assign(rails_, RailPrev{});
  return true;
}

bool PayloadReader::read_value(RailValue& v, RailPrev& prev) {
  uint64_t err = 0;
  if (!get(err, "errno")) return false;
  if (err > kMaxErrno) return fail("errno " + std::to_string(err) + " out of range");
  v.err = static_cast<int32_t>(err);
  if (err != 0) return true;
  int64_t dp = 0, dv = 0, dc = 0, p = 0, mv = 0, ma = 0;
  if (!get_signed(dp, "power") || !get_signed(dv, "voltage") || !get_signed(dc, "current")) return false;
  if (__builtin_add_overflow(prev.power_uw, dp, &p) || __builtin_add_overflow(prev.voltage_mv, dv, &mv) ||
      __builtin_add_overflow(prev.current_ma, dc, &ma))
    return fail("reading overflows");
  constexpr int64_t kLo = std::numeric_limits<int32_t>::min(), kHi = std::numeric_limits<int32_t>::max();
  if (mv < kLo || mv > kHi || ma < kLo || ma > kHi) return fail("voltage or current out of range");
  v.power_uw = p;
  v.voltage_mv = static_cast<int32_t>(mv);
  v.current_ma = static_cast<int32_t>(ma);
  prev = RailPrev{p, mv, ma};
  return true;
}

bool PayloadReader::read_sweep(Sample& s, size_t index) {
  int64_t dt = 0, doff = 0, offset = 0;
  if (!get_signed(dt, "stamp") || !get_signed(doff, "wall offset")) return false;
  if (dt <= 0 || __builtin_add_overflow(prev_t_, dt, &s.t_ns))
    return fail("sweep " + std::to_string(index) + " is not after the previous one");
  if (__builtin_add_overflow(prev_offset_, doff, &offset) || __builtin_add_overflow(s.t_ns, offset, &s.wall_ns))
    return fail("sweep " + std::to_string(index) + " wall clock out of range");
  prev_t_ = s.t_ns;
  prev_offset_ = offset;
  s.values.resize(rails_);
  for (size_t r = 0; r < rails_; ++r) {
    if (!read_value(s.values[r], prev_[r])) return false;
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

// The frame at `pos`, or false with what is wrong in `scan`.
bool decode_frame(const std::string& bytes, size_t pos, TailFrame& frame, TailScan& scan) {
  size_t left = bytes.size() - pos;
  size_t magic = std::min<size_t>(left, 4);
  if (bytes.compare(pos, magic, kMagic, magic) != 0) return damaged(scan, "no frame magic");
  if (left < kHeaderBytes) return cut_short(scan, "header cut short");
  uint32_t length = get_u32(bytes, pos + 4);
  if (length > kMaxTailPayloadBytes) return damaged(scan, "frame length " + std::to_string(length) + " too large");
  if (length > left - kHeaderBytes)
    return cut_short(
        scan, "frame cut short (" + std::to_string(left - kHeaderBytes) + " of " + std::to_string(length) + " bytes)");
  std::string payload = bytes.substr(pos + kHeaderBytes, length);
  if (crc32_ieee(payload.data(), payload.size()) != get_u32(bytes, pos + 8)) return damaged(scan, "checksum mismatch");
  PayloadReader reader(payload);
  if (!reader.read(frame)) return damaged(scan, reader.problem());
  return true;
}

}  // namespace

uint32_t crc32_ieee(const char* data, size_t size) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) c = kCrcTable[(c ^ static_cast<unsigned char>(data[i])) & 0xff] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

Result<std::string> encode_tail_frame(const TailFrame& frame) {
  auto payload = encode_payload(frame);
  if (!payload) return payload.take_error();
  if (payload->size() > kMaxTailPayloadBytes)
    return invalid("more than " + std::to_string(kMaxTailPayloadBytes) + " bytes");
  std::string out(kMagic, 4);
  put_u32(out, static_cast<uint32_t>(payload->size()));
  put_u32(out, crc32_ieee(payload->data(), payload->size()));
  return out + *payload;
}

TailScan decode_tail(const std::string& bytes) {
  TailScan scan;
  while (scan.valid_bytes < bytes.size()) {
    TailFrame frame;
    if (!decode_frame(bytes, scan.valid_bytes, frame, scan)) {
      scan.problem = "frame " + std::to_string(scan.frames.size() + 1) + " at byte " +
                     std::to_string(scan.valid_bytes) + ": " + scan.problem;
      return scan;
    }
    uint32_t length = get_u32(bytes, scan.valid_bytes + 4);
    scan.valid_bytes += kHeaderBytes + length;
    scan.frames.push_back(std::move(frame));
  }
  return scan;
}

std::vector<Sample> sweeps_to_replay(const std::vector<TailFrame>& frames, int64_t boot, int64_t stored_up_to_ns) {
  std::vector<Sample> out;
  int64_t newest = stored_up_to_ns;
  for (const auto& f : frames) {
    if (f.boot != boot) continue;
    for (const auto& s : f.sweeps) {
      if (s.t_ns <= newest) continue;  // stored already, or a frame appended twice
      out.push_back(s);
      newest = s.t_ns;
    }
  }
  return out;
}

Result<SweepTailFile> SweepTailFile::open(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600));
  if (!fd && errno == ENXIO) return make_error(ErrorCode::kInvalid, "the sweep tail " + path + " is a FIFO");
  if (!fd) return errno_error("cannot open the sweep tail " + path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return errno_error("cannot stat the sweep tail " + path);
  if (!S_ISREG(st.st_mode)) return make_error(ErrorCode::kInvalid, "the sweep tail " + path + " is not a regular file");
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0)
    return make_error(ErrorCode::kState, "the sweep tail " + path + " is in use by another writer", errno);
  return SweepTailFile(path, std::move(fd), static_cast<int64_t>(st.st_size));
}

Status SweepTailFile::append(const TailFrame& frame) {
  auto bytes = encode_tail_frame(frame);
  if (!bytes) return bytes.take_error();
  size_t off = 0;
  while (off < bytes->size()) {
    ssize_t n = ::write(fd_.get(), bytes->data() + off, bytes->size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot append to the sweep tail " + path_);
    off += static_cast<size_t>(n);
    size_ += n;
  }
  return ok_status();
}

Status SweepTailFile::sync() {
  if (::fdatasync(fd_.get()) != 0) return errno_error("cannot sync the sweep tail " + path_);
  return ok_status();
}

Status SweepTailFile::reset() {
  if (::ftruncate(fd_.get(), 0) != 0) return errno_error("cannot empty the sweep tail " + path_);
  size_ = 0;
  return ok_status();
}

Result<std::string> read_tail_file(const std::string& path) {
  auto fd = open_regular_file(path, "the sweep tail " + path, FileAccess::kRead);
  if (!fd && fd.error().sys_errno == ENOENT) return std::string();
  if (!fd) return fd.take_error();
  return read_all(fd->get(), "the sweep tail " + path, kMaxTailFileBytes);
}

}  // namespace energy
