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
#include "sweep_tail_format.h"

namespace energy {
namespace {

using codec::put_signed;
using codec::put_varint;
using tail_format::kMagicV2;
using tail_format::kMaxErrno;
using tail_format::RailPrev;

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

// A delta that cannot overflow: the decoder checks the sum the same way.
bool delta(int64_t now, int64_t prev, int64_t& out) { return !__builtin_sub_overflow(now, prev, &out); }

Error invalid(const std::string& what) { return make_error(ErrorCode::kInvalid, "sweep tail frame: " + what); }

void put_bytes(std::string& out, const std::string& text) {
  put_varint(out, text.size());
  out += text;
}

void put_double(std::string& out, double v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
}

bool same_identity(const StoredCounters& a, const StoredCounters& b) {
  if (a.counters_id != b.counters_id || a.created_wall_ns != b.created_wall_ns) return false;
  if (a.energy_uj.size() != b.energy_uj.size()) return false;
  for (size_t i = 0; i < a.energy_uj.size(); ++i) {
    if (a.energy_uj[i].first != b.energy_uj[i].first) return false;
  }
  return true;
}

// Kind 0: none; 1: whole; 2: the values only, the id, start and labels
// being those of `previous` (the last earlier frame of the file with counters).
void put_counters(std::string& out, const std::optional<StoredCounters>& c, const StoredCounters* previous) {
  uint64_t kind = !c ? 0 : previous && same_identity(*c, *previous) ? 2 : 1;
  put_varint(out, kind);
  if (kind == 0) return;
  if (kind == 1) {
    put_bytes(out, c->counters_id);
    put_signed(out, c->created_wall_ns);
    put_varint(out, c->energy_uj.size());
  }
  for (const auto& [label, uj] : c->energy_uj) {
    if (kind == 1) put_bytes(out, label);
    put_double(out, uj);
  }
}

Status check_frame(const TailFrame& frame) {
  if (frame.boot <= 0) return invalid("boot row id must be > 0, got " + std::to_string(frame.boot));
  if (frame.rail_ids.size() > kMaxTailRails) return invalid("more than " + std::to_string(kMaxTailRails) + " rails");
  for (int64_t id : frame.rail_ids) {
    if (id <= 0) return invalid("rail row id must be > 0, got " + std::to_string(id));
  }
  for (size_t i = 0; i < frame.sweeps.size(); ++i) {
    if (frame.sweeps[i].values.size() != frame.rail_ids.size())
      return invalid("sweep " + std::to_string(i) + " has a different rail count");
    for (const auto& v : frame.sweeps[i].values) {
      if (v.err < 0 || uint64_t(v.err) > kMaxErrno)
        return invalid("sweep " + std::to_string(i) + " has errno " + std::to_string(v.err) + " out of range");
    }
  }
  if (frame.counters) return validate_counters(*frame.counters, "sweep tail frame");
  return ok_status();
}

// Whether every valid reading's power is voltage x current (a rail without
// a power file): its power is then not written, as in a chunk.
bool power_derived(const std::vector<Sample>& sweeps) {
  for (const auto& s : sweeps) {
    for (const auto& v : s.values) {
      if (v.err == 0 && v.power_uw != int64_t{v.voltage_mv} * v.current_ma) return false;
    }
  }
  return true;
}

// The failed rails (their index and errno), then the valid ones' deltas.
bool put_values(std::string& out, const Sample& s, std::vector<RailPrev>& prev, bool derived) {
  size_t failed = 0;
  for (const auto& v : s.values) failed += v.err != 0 ? 1 : 0;
  put_varint(out, failed);
  for (size_t r = 0; r < s.values.size(); ++r) {
    if (s.values[r].err == 0) continue;
    put_varint(out, r);
    put_varint(out, static_cast<uint64_t>(s.values[r].err));
  }
  for (size_t r = 0; r < s.values.size(); ++r) {
    const RailValue& v = s.values[r];
    int64_t dp = 0;
    if (v.err != 0) continue;
    if (!derived && !delta(v.power_uw, prev[r].power_uw, dp)) return false;
    put_signed(out, int64_t{v.voltage_mv} - prev[r].voltage_mv);
    put_signed(out, int64_t{v.current_ma} - prev[r].current_ma);
    if (!derived) put_signed(out, dp);
    prev[r] = RailPrev{v.power_uw, v.voltage_mv, v.current_ma};
  }
  return true;
}

// Stamps: the first sweep's t_ns, the second's step from it, then each
// step's change from the step before (a steady period codes in a byte or
// two); wall_ns - t_ns as its change from the previous sweep's.
Status put_sweeps(std::string& out, const std::vector<Sample>& sweeps, bool derived) {
  put_varint(out, sweeps.size());
  std::vector<RailPrev> prev(sweeps.empty() ? 0 : sweeps[0].values.size());
  int64_t prev_t = 0, prev_step = 0, prev_offset = 0;
  for (size_t i = 0; i < sweeps.size(); ++i) {
    const Sample& s = sweeps[i];
    int64_t step = 0, offset = 0, doff = 0;
    if (s.t_ns <= prev_t) return invalid("sweep " + std::to_string(i) + " is not after the previous one");
    if (!delta(s.t_ns, prev_t, step) || !delta(s.wall_ns, s.t_ns, offset) || !delta(offset, prev_offset, doff))
      return invalid("sweep " + std::to_string(i) + " has stamps out of range");
    put_signed(out, step - prev_step);  // both > 0: no overflow
    put_signed(out, doff);
    prev_t = s.t_ns;
    prev_step = i == 0 ? 0 : step;
    prev_offset = offset;
    if (!put_values(out, s, prev, derived)) return invalid("sweep " + std::to_string(i) + " has a power out of range");
  }
  return ok_status();
}

Result<std::string> encode_payload(const TailFrame& frame, const StoredCounters* previous) {
  auto st = check_frame(frame);
  if (!st) return make_error(ErrorCode::kInvalid, st.error().message);
  std::string out;
  out.reserve(64 + frame.sweeps.size() * (4 + 3 * frame.rail_ids.size()));  // a steady sweep's deltas: a byte each
  put_varint(out, static_cast<uint64_t>(frame.boot));
  put_varint(out, frame.rail_ids.size());
  for (int64_t id : frame.rail_ids) put_varint(out, static_cast<uint64_t>(id));
  bool derived = power_derived(frame.sweeps);
  put_varint(out, derived ? 1 : 0);
  put_counters(out, frame.counters, previous);
  st = put_sweeps(out, frame.sweeps, derived);
  if (!st) return st.take_error();
  return out;
}

}  // namespace

uint32_t crc32_ieee(const char* data, size_t size) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) c = kCrcTable[(c ^ static_cast<unsigned char>(data[i])) & 0xff] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

Result<std::string> encode_tail_frame(const TailFrame& frame, const StoredCounters* previous) {
  auto payload = encode_payload(frame, previous);
  if (!payload) return payload.take_error();
  if (payload->size() > kMaxTailPayloadBytes)
    return invalid("more than " + std::to_string(kMaxTailPayloadBytes) + " bytes");
  std::string out;
  out.reserve(12 + payload->size());
  out.append(kMagicV2, 4);
  put_u32(out, static_cast<uint32_t>(payload->size()));
  put_u32(out, crc32_ieee(payload->data(), payload->size()));
  out += *payload;
  return out;
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

namespace {

// The file's valid frames end at the write offset; anything after them but
// zeros (the preallocated space) is refused rather than written over.
Result<int64_t> valid_end(int fd, const std::string& path) {
  if (::lseek(fd, 0, SEEK_SET) < 0) return errno_error("cannot seek in the sweep tail " + path);
  auto bytes = read_all(fd, "the sweep tail " + path, kMaxTailFileBytes);
  if (!bytes) return bytes.take_error();
  TailScan scan = decode_tail(*bytes);
  if (!scan.problem.empty())
    return make_error(ErrorCode::kInvalid, "the sweep tail " + path + " cannot be appended to: " + scan.problem);
  return static_cast<int64_t>(scan.valid_bytes);
}

// Sets the file's size to `bytes`, the new part allocated and reading as
// zeros (fallocate, or glibc's emulation where the file system lacks it).
Status preallocate(int fd, int64_t from, int64_t bytes, const std::string& path) {
  int e = ::posix_fallocate(fd, static_cast<off_t>(from), static_cast<off_t>(bytes - from));
  if (e == 0) return ok_status();
  errno = e;
  return errno_error("cannot preallocate " + std::to_string(bytes) + " bytes for the sweep tail " + path);
}

}  // namespace

Result<SweepTailFile> SweepTailFile::open(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600));
  if (!fd && errno == ENXIO) return make_error(ErrorCode::kInvalid, "the sweep tail " + path + " is a FIFO");
  if (!fd) return errno_error("cannot open the sweep tail " + path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return errno_error("cannot stat the sweep tail " + path);
  if (!S_ISREG(st.st_mode)) return make_error(ErrorCode::kInvalid, "the sweep tail " + path + " is not a regular file");
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0)
    return make_error(ErrorCode::kState, "the sweep tail " + path + " is in use by another writer", errno);
  auto end = valid_end(fd.get(), path);
  if (!end) return end.take_error();
  int64_t allocated = static_cast<int64_t>(st.st_size);
  if (allocated < kTailAllocBytes) {
    auto grown = preallocate(fd.get(), allocated, kTailAllocBytes, path);
    if (!grown) return grown.take_error();
    allocated = kTailAllocBytes;
  }
  return SweepTailFile(path, std::move(fd), *end, allocated);
}

// Room for `bytes` more: the allocation doubles (one size change, whose
// metadata the next sync flushes), up to what a reader accepts.
Status SweepTailFile::make_room(size_t bytes) {
  int64_t need = size_ + static_cast<int64_t>(bytes);
  if (need <= allocated_) return ok_status();
  const auto limit = static_cast<int64_t>(kMaxTailFileBytes);
  if (need > limit)
    return make_error(ErrorCode::kIo, "the sweep tail " + path_ + " is full (" + std::to_string(limit) + " bytes)");
  int64_t grown = std::min(limit, std::max(need, 2 * allocated_));
  auto st = preallocate(fd_.get(), allocated_, grown, path_);
  if (st) allocated_ = grown;
  return st;
}

Status SweepTailFile::append(const TailFrame& frame) {
  auto bytes = encode_tail_frame(frame, last_counters_ ? &*last_counters_ : nullptr);
  if (!bytes) return bytes.take_error();
  auto room = make_room(bytes->size());
  if (!room) return room;
  std::optional<StoredCounters> previous = std::move(last_counters_);
  last_counters_.reset();  // unknown until the whole frame is written
  size_t off = 0;
  while (off < bytes->size()) {
    ssize_t n = ::pwrite(fd_.get(), bytes->data() + off, bytes->size() - off, static_cast<off_t>(size_));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot append to the sweep tail " + path_);
    off += static_cast<size_t>(n);
    size_ += n;
  }
  if (frame.counters)
    last_counters_ = frame.counters;
  else
    last_counters_ = std::move(previous);
  return ok_status();
}

Status SweepTailFile::sync() {
  if (::fsync(fd_.get()) != 0) return errno_error("cannot sync the sweep tail " + path_);
  return ok_status();
}

Status SweepTailFile::reset() {
  if (::ftruncate(fd_.get(), 0) != 0) return errno_error("cannot empty the sweep tail " + path_);
  size_ = 0;
  allocated_ = 0;
  last_counters_.reset();
  auto st = preallocate(fd_.get(), 0, kTailAllocBytes, path_);
  if (st) allocated_ = kTailAllocBytes;
  return st;
}

Result<std::string> read_tail_file(const std::string& path) {
  auto fd = open_regular_file(path, "the sweep tail " + path, FileAccess::kRead);
  if (!fd && fd.error().sys_errno == ENOENT) return std::string();
  if (!fd) return fd.take_error();
  return read_all(fd->get(), "the sweep tail " + path, kMaxTailFileBytes);
}

}  // namespace energy
