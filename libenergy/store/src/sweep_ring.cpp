// The sweep ring (sweep_ring.h): its file, the sampler's put, the readers'
// since, the next start's take_leftover, and the live-sweeps registry.
#include "energy/sweep_ring.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

#include "energy/tick_path.h"
#include "energy/unique_fd.h"

namespace energy {
namespace {

constexpr char kMagic[8] = {'E', 'N', 'R', 'G', 'R', 'I', 'N', 'G'};
constexpr uint32_t kVersion = 1;
constexpr size_t kRingHeaderBytes = 128;
constexpr size_t kRecordHead = 24;  // seq, t_ns, wall_ns
constexpr size_t kValueBytes = 24;  // power_uw, voltage_mv, current_ma, err, padding
constexpr size_t kMaxFileBytes = 64u << 20;
constexpr uint64_t kBusy = ~uint64_t{0};
// Header offsets.
constexpr size_t kOffVersion = 8, kOffHeaderBytes = 12, kOffRails = 16, kOffCapacity = 20, kOffRecordBytes = 24,
                 kOffBootId = 32, kBootIdBytes = 40, kOffSignature = 72, kOffWritten = 80;

size_t record_bytes_for(size_t rails) { return kRecordHead + kValueBytes * rails; }

// FNV-1a: the rails' signature in 8 bytes (a changed rail set is told
// apart; this is not a defence against a crafted file, which only root
// could write in energyd's runtime directory).
uint64_t signature_hash(const std::string& s) {
  uint64_t h = 14695981039346656037ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

std::string kernel_boot_id() {
  std::FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "re");
  if (!f) return "";
  char buf[64] = {};
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  std::string id(buf, n);
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id.size() < kBootIdBytes ? id : "";
}

template <typename T>
T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Relaxed atomic access to the shared mapping's fields (8- or 4-byte
// aligned): the seq of each record orders them.
template <typename T>
void store_field(unsigned char* p, T v) {
  __atomic_store_n(reinterpret_cast<T*>(p), v, __ATOMIC_RELAXED);
}
template <typename T>
T load_field(const unsigned char* p) {
  return __atomic_load_n(reinterpret_cast<const T*>(p), __ATOMIC_RELAXED);
}

Sample decode_record(const unsigned char* r, size_t rails, bool atomic) {
  Sample s;
  auto i64 = [&](size_t off) { return atomic ? load_field<int64_t>(r + off) : load<int64_t>(r + off); };
  auto i32 = [&](size_t off) { return atomic ? load_field<int32_t>(r + off) : load<int32_t>(r + off); };
  s.t_ns = i64(8);
  s.wall_ns = i64(16);
  s.values.resize(rails);
  for (size_t i = 0; i < rails; ++i) {
    size_t off = kRecordHead + kValueBytes * i;
    s.values[i] = RailValue{i64(off), i32(off + 8), i32(off + 12), i32(off + 16)};
  }
  return s;
}

std::mutex& registry_mu() {
  static std::mutex mu;
  return mu;
}
std::map<std::string, LiveSweepSource>& registry() {
  static std::map<std::string, LiveSweepSource> sources;
  return sources;
}

}  // namespace

SweepRing::SweepRing(std::string path, size_t rails, size_t capacity)
    : path_(std::move(path)), rails_(rails), capacity_(capacity), record_bytes_(record_bytes_for(rails)) {}

SweepRing::~SweepRing() {
  if (map_) ::munmap(map_, bytes_);
}

Status SweepRing::memory_backed(const std::string& dir) {
  struct statfs fs {};
  if (::statfs(dir.c_str(), &fs) != 0) return errno_error("cannot look at the file system of " + dir);
  auto type = static_cast<unsigned long>(fs.f_type);
  if (type == TMPFS_MAGIC || type == RAMFS_MAGIC) return ok_status();
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%lx", type);
  return make_error(ErrorCode::kUnsupported,
                    dir + " is not on a memory file system (tmpfs or ramfs; its type is " + hex + ")");
}

Result<std::unique_ptr<SweepRing>> SweepRing::create(const std::string& path, size_t rails, size_t capacity,
                                                     const std::string& signature) {
  if (rails == 0 || capacity == 0) return make_error(ErrorCode::kInvalid, "a sweep ring needs rails and a capacity");
  size_t bytes = kRingHeaderBytes + capacity * record_bytes_for(rails);
  if (bytes > kMaxFileBytes)
    return make_error(ErrorCode::kInvalid, "a sweep ring of " + std::to_string(bytes) + " bytes is over 64 MiB");
  auto slash = path.find_last_of('/');
  auto st = memory_backed(slash == std::string::npos || slash == 0 ? std::string("/") : path.substr(0, slash));
  if (!st) return st.error();
  std::unique_ptr<SweepRing> ring(new SweepRing(path, rails, capacity));
  std::string fresh = path + ".new";
  UniqueFd fd(::open(fresh.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) return errno_error("cannot create the sweep ring " + fresh);
  if (::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0) {
    auto e = errno_error("cannot size the sweep ring " + fresh);
    ::unlink(fresh.c_str());
    return e;
  }
  void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
  if (m == MAP_FAILED) {
    auto e = errno_error("cannot map the sweep ring " + fresh);
    ::unlink(fresh.c_str());
    return e;
  }
  ring->map_ = static_cast<unsigned char*>(m);
  ring->bytes_ = bytes;
  std::memset(ring->map_, 0, bytes);  // every page now exists: a put never allocates one
  ring->locked_ = ::mlock(ring->map_, bytes) == 0;
  unsigned char* h = ring->map_;
  std::memcpy(h, kMagic, sizeof kMagic);
  auto u32 = [&](size_t off, size_t v) {
    auto x = static_cast<uint32_t>(v);
    std::memcpy(h + off, &x, sizeof x);
  };
  u32(kOffVersion, kVersion);
  u32(kOffHeaderBytes, kRingHeaderBytes);
  u32(kOffRails, rails);
  u32(kOffCapacity, capacity);
  u32(kOffRecordBytes, ring->record_bytes_);
  std::string boot = kernel_boot_id();
  boot.copy(reinterpret_cast<char*>(h + kOffBootId), kBootIdBytes - 1);  // the field is zeros: ends with one
  uint64_t sig = signature_hash(signature);
  std::memcpy(h + kOffSignature, &sig, sizeof sig);
  if (::rename(fresh.c_str(), path.c_str()) != 0) {
    auto e = errno_error("cannot put the sweep ring in place at " + path);
    ::unlink(fresh.c_str());
    return e;
  }
  return ring;
}

ENERGY_TICK_PATH unsigned char* SweepRing::record(uint64_t n) const {
  return map_ + kRingHeaderBytes + static_cast<size_t>(n % capacity_) * record_bytes_;
}

ENERGY_TICK_PATH void SweepRing::put(const Sample& s) {
  uint64_t n = written_;
  unsigned char* r = record(n);
  __atomic_store_n(reinterpret_cast<uint64_t*>(r), kBusy, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  store_field<int64_t>(r + 8, s.t_ns);
  store_field<int64_t>(r + 16, s.wall_ns);
  for (size_t i = 0; i < rails_; ++i) {
    unsigned char* v = r + kRecordHead + kValueBytes * i;
    // A sweep always has every rail's value; one missing is a failed read, never a zero.
    RailValue value = i < s.values.size() ? s.values[i] : RailValue{0, 0, 0, ENODATA};
    store_field<int64_t>(v, value.power_uw);
    store_field<int32_t>(v + 8, value.voltage_mv);
    store_field<int32_t>(v + 12, value.current_ma);
    store_field<int32_t>(v + 16, value.err);
  }
  __atomic_store_n(reinterpret_cast<uint64_t*>(r), n + 1, __ATOMIC_RELEASE);
  __atomic_store_n(reinterpret_cast<uint64_t*>(map_ + kOffWritten), n + 1, __ATOMIC_RELEASE);
  written_ = n + 1;
}

void SweepRing::stamp(int64_t boot, std::vector<int64_t> rail_ids) {
  std::lock_guard<std::mutex> lock(stamp_mu_);
  boot_ = boot;
  rail_ids_ = std::move(rail_ids);
}

// Newest first, while the records are whole and newer than after_ns; then
// put oldest first. A record overwritten or half written while it is read
// (its seq changed) ends the walk.
LiveSweeps SweepRing::since(int64_t after_ns) const {
  LiveSweeps out;
  {
    std::lock_guard<std::mutex> lock(stamp_mu_);
    out.boot = boot_;
    out.rail_ids = rail_ids_;
  }
  if (out.boot == 0) return out;
  uint64_t w = __atomic_load_n(reinterpret_cast<const uint64_t*>(map_ + kOffWritten), __ATOMIC_ACQUIRE);
  bool reached = false;
  uint64_t n = w;
  for (; n > 0 && w - n < capacity_; --n) {
    const unsigned char* r = record(n - 1);
    uint64_t s1 = __atomic_load_n(reinterpret_cast<const uint64_t*>(r), __ATOMIC_ACQUIRE);
    if (s1 != n) break;
    Sample s = decode_record(r, rails_, true);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(reinterpret_cast<const uint64_t*>(r), __ATOMIC_RELAXED) != s1) break;
    if (s.t_ns <= after_ns) {
      reached = true;
      break;
    }
    out.sweeps.push_back(std::move(s));
  }
  // Every sweep after after_ns is here when the walk met an older one, or
  // reached the ring's first record; otherwise some were overwritten.
  if (!reached && n != 0) out.sweeps.clear();
  std::reverse(out.sweeps.begin(), out.sweeps.end());
  return out;
}

RingLeftover SweepRing::take_leftover(const std::string& path, size_t rails, const std::string& signature) {
  RingLeftover out;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!fd) {
    if (errno != ENOENT) out.dropped_why = "the sweep ring " + path + " cannot be opened: " + std::strerror(errno);
    return out;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || static_cast<size_t>(st.st_size) < kRingHeaderBytes ||
      static_cast<size_t>(st.st_size) > kMaxFileBytes) {
    out.dropped_why = "the sweep ring " + path + " is not a ring file (not a regular file of 128 B to 64 MiB)";
    return out;
  }
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    ssize_t r = ::pread(fd.get(), &bytes[got], bytes.size() - got, static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  if (got != bytes.size()) {
    out.dropped_why = "the sweep ring " + path + " could not be read whole";
    return out;
  }
  const auto* h = reinterpret_cast<const unsigned char*>(bytes.data());
  auto u32 = [&](size_t off) { return static_cast<size_t>(load<uint32_t>(h + off)); };
  size_t capacity = u32(kOffCapacity), file_rails = u32(kOffRails), rec = u32(kOffRecordBytes);
  if (std::memcmp(h, kMagic, sizeof kMagic) != 0 || u32(kOffVersion) != kVersion ||
      u32(kOffHeaderBytes) != kRingHeaderBytes || rec != record_bytes_for(file_rails) || capacity == 0 ||
      bytes.size() != kRingHeaderBytes + capacity * rec) {
    out.dropped_why = "the sweep ring " + path + " is damaged (its header does not describe its size)";
    return out;
  }
  uint64_t w = load<uint64_t>(h + kOffWritten);
  std::vector<Sample> sweeps;
  for (uint64_t n = w > capacity ? w - capacity : 0; n < w; ++n) {
    const unsigned char* r = h + kRingHeaderBytes + static_cast<size_t>(n % capacity) * rec;
    if (load<uint64_t>(r) != n + 1) continue;  // the oldest, overwritten when the process died
    Sample s = decode_record(r, file_rails, false);
    if (!sweeps.empty() && s.t_ns <= sweeps.back().t_ns) {
      out.dropped_why = "the sweep ring " + path + " is damaged (its sweeps go back in time)";
      out.dropped = static_cast<int64_t>(w - n);
      break;
    }
    sweeps.push_back(std::move(s));
  }
  std::string boot(reinterpret_cast<const char*>(h + kOffBootId), kBootIdBytes);
  boot.resize(std::strlen(boot.c_str()));
  std::string here = kernel_boot_id();
  if (boot.empty() || boot != here) {
    out.dropped_why = "the sweep ring " + path + " is from another boot of the kernel" +
                      (here.empty() ? std::string(" (this boot's id cannot be read)") : "");
    out.dropped = static_cast<int64_t>(sweeps.size());
    return out;
  }
  if (rails != 0 && (file_rails != rails || load<uint64_t>(h + kOffSignature) != signature_hash(signature))) {
    out.dropped_why = "the sweep ring " + path + " holds sweeps of other rails";
    out.dropped = static_cast<int64_t>(sweeps.size());
    return out;
  }
  out.sweeps = std::move(sweeps);
  return out;
}

void register_live_sweeps(const std::string& db_path, LiveSweepSource source) {
  std::lock_guard<std::mutex> lock(registry_mu());
  registry()[db_path] = std::move(source);
}

void unregister_live_sweeps(const std::string& db_path) {
  std::lock_guard<std::mutex> lock(registry_mu());
  registry().erase(db_path);
}

LiveSweeps live_sweeps_after(const std::string& db_path, int64_t after_ns) {
  LiveSweepSource source;
  {
    std::lock_guard<std::mutex> lock(registry_mu());
    auto it = registry().find(db_path);
    if (it == registry().end()) return {};
    source = it->second;
  }
  return source(after_ns);
}

}  // namespace energy
