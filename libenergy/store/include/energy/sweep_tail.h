// Sweep tail: an append-only file of the sweeps the database does not hold
// yet (issue 16, docs/PERFORMANCE.md "Observer cost"). The storage writer is
// meant to commit only sealed chunks to SQLite and to keep the open chunk's
// sweeps here: one frame per flush interval, written in place with pwrite
// into the file's preallocated space (in the
// kernel once append() returns: a kill -9 loses none of it) and synced on
// the power-loss window's schedule (sync()); at the next open the frames are
// read back, the sweeps the store lacks replayed, and the file reset.
//
// Format, little-endian: per frame the magic "ETL2", the payload's length
// (u32) and CRC-32 (u32, IEEE), then the payload: varints of the store's
// boot row id, the rail count and each rail's row id; a varint 1 when every
// valid reading's power is voltage x current (a rail without a power file:
// power is then not written, as in a chunk), else 0; the energy counters as
// of the frame's last sweep (a varint kind: 0 none; 1 whole: the id and each
// label as a varint length and bytes, created_wall_ns as a zigzag varint,
// the rail count, per rail its label and its microjoules as the 8 bytes of
// an IEEE double; 2 values only: the microjoules, the id, start and labels
// being those of the last earlier frame of the file that has counters); the
// sweep count, then per sweep the zigzag varints of the first sweep's t_ns,
// the second's step from it, each later step's change from the step before,
// and the change of wall_ns - t_ns; the count of failed rails and each
// one's index (increasing) and errno; then per valid rail the zigzag deltas
// of voltage_mv, current_ma (and power_uw unless derived) against the
// rail's previous valid reading in the frame.
//
// A frame decodes on its own except for counters of kind 2, which need the
// frame that set them: an earlier frame of the same file, which the decoder
// has read whenever it reads this one (it decodes a prefix, and a file
// starts with kind 1 after every open or reset). Issue 16: a simulated Orin
// Nano (3 rails, 100 ms) appends about 180 bytes a second instead of about
// 300 (docs/PERFORMANCE.md).
//
// Version 1 frames ("ETL1", written before 2026-11-27's smaller frames) are
// still decoded, so a tail an older energyd left is replayed after an
// upgrade: their sweeps hold per rail the errno (0: valid) and then the
// deltas of power_uw, voltage_mv and current_ma; t_ns as its step from the
// previous sweep (the first from 0); counters of kind 0 or 1 only.
//
// The decoder trusts nothing: a frame whose magic, length, checksum or
// content is wrong ends the valid prefix, and what was wrong is said (a
// power cut leaves a torn last frame; anything else is damage). Zeros from
// a frame boundary to the end of the file are the end of the data (the
// preallocated space of SweepTailFile), not damage. A torn last frame is
// one cut short by the end of the file, or, in a preallocated file, a whole
// frame whose checksum or content is wrong followed only by zeros (a power
// cut between syncs can leave any of its pages unwritten).
//
// Units: t_ns CLOCK_BOOTTIME and wall_ns CLOCK_REALTIME of the sweep, as in
// sample.h. Thread-safety: pure functions; a SweepTailFile belongs to one
// thread (the storage writer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "energy/result.h"
#include "energy/sample.h"
#include "energy/store.h"
#include "energy/unique_fd.h"

namespace energy {

// The largest sweep tail file energyd reads (read_tail_file's bound, and its allocation's).
inline constexpr size_t kMaxTailFileBytes = 64u << 20;

// One flush interval's sweeps, of one boot, each with the same rails.
struct TailFrame {
  int64_t boot = 0;               // the store's boot row id (> 0)
  std::vector<int64_t> rail_ids;  // the rails' row ids (> 0), parallel to each sweep's values
  std::vector<Sample> sweeps;
  // The energy counters counting every sweep up to this frame's last (the
  // database's and the tail's): stored when the tail is replayed, so the
  // stored counters keep counting exactly the stored sweeps.
  std::optional<StoredCounters> counters;
};

// Bounds the decoder holds a frame to (a flush interval of 1 ms sweeps over
// a minute is 60,000 sweeps; a board has at most a few dozen rails).
inline constexpr uint32_t kMaxTailPayloadBytes = 16u << 20;
inline constexpr uint64_t kMaxTailRails = 256;

// The frame's bytes; kInvalid when a sweep's value count differs from the
// rail count, a stamp is not after the previous one, a row id is not > 0, an
// errno is outside 0..4095 or the counters fail validate_counters.
// `previous`: the counters of the last frame before this one in the same
// file that has counters (nullptr when none or unknown); when this frame's
// have the same id, start and labels, only their values are written.
Result<std::string> encode_tail_frame(const TailFrame& frame, const StoredCounters* previous = nullptr);

struct TailScan {
  std::vector<TailFrame> frames;  // the valid prefix, in file order
  size_t valid_bytes = 0;         // length of the valid prefix
  // Empty when every byte decoded; else what is wrong at valid_bytes
  // ("frame 3 at byte 812: checksum mismatch").
  std::string problem;
  // True when the bad part is the torn last frame a power cut during an
  // append leaves (see above), not damaged content.
  bool torn = false;
};

// Decodes a tail file's bytes.
TailScan decode_tail(const std::string& bytes);
// Decodes the frames from byte `from` on (a frame boundary), `previous`
// being the counters of the last frame before it that has counters (a
// reader extending what it read before). valid_bytes counts from byte 0.
TailScan decode_tail(const std::string& bytes, size_t from, std::optional<StoredCounters> previous);

// The sweeps of `boot` in `frames` stamped after `stored_up_to_ns` (the
// newest sweep the store holds for that boot; 0 when none), in time order,
// each once: replaying the same tail twice adds nothing the second time.
std::vector<Sample> sweeps_to_replay(const std::vector<TailFrame>& frames, int64_t boot, int64_t stored_up_to_ns);

// CRC-32 (IEEE 802.3, reflected), as zlib's crc32().
uint32_t crc32_ieee(const char* data, size_t size);

// The space a tail file is given at open (issue 16): about 20 minutes of a
// 3-rail board's frames at 100 ms.
inline constexpr int64_t kTailAllocBytes = 256 << 10;

// The tail file, open for appending. Errors name the path.
//
// Preallocated (issue 16): the file keeps a fixed size, allocated with
// fallocate (reads as zeros, no data written for it), and frames are written
// in place with pwrite at the end of the valid ones. An append thus changes
// neither the file's size nor its block map (except the first write into an
// allocated block), and sync() flushes the frames' pages and the mtime,
// no size. The end of the data is where the frames end (the rest is zeros), as
// decode_tail finds it; i_size says nothing about it. A file that fills
// grows by doubling, up to read_tail_file's 64 MiB bound.
class SweepTailFile {
 public:
  // Creates the file if missing (mode 0600); never follows a symlink. Holds
  // an exclusive flock while open (kState when another holder has it), so
  // Store::open never replays the tail of a writer that is alive. Frames
  // already in the file are kept and appended after; a file holding
  // anything else after them but zeros is refused (kInvalid). A file
  // smaller than kTailAllocBytes is extended to it.
  static Result<SweepTailFile> open(const std::string& path);

  // Writes the whole frame with pwrite at the end of the frames (retried on
  // EINTR and short writes), first growing the allocation if the frame does
  // not fit. kIo on failure; a partial frame is then in the file, and the
  // next open's decode reports it torn.
  Status append(const TailFrame& frame);
  // fsync: every frame appended so far survives a power cut. fsync, not
  // fdatasync, although only the frames' pages need to reach the disk: it
  // also writes the inode's new mtime, which fdatasync leaves dirty, so the
  // inode never stays dirty past the kernel's 30 s expiry and its flusher
  // does not write the tail's page between syncs (issue 16: about 27 pages
  // in 16 minutes, 11 MB a day, docs/PERFORMANCE.md).
  Status sync();
  // Empties the file and preallocates it again (after its sweeps are in a
  // synced commit).
  Status reset();
  // The bytes of frames in the file (where the next append writes).
  int64_t size_bytes() const { return size_; }
  // The file's size: its frames and the zeros after them.
  int64_t allocated_bytes() const { return allocated_; }
  const std::string& path() const { return path_; }

 private:
  SweepTailFile(std::string path, UniqueFd fd, int64_t size, int64_t allocated)
      : path_(std::move(path)), fd_(std::move(fd)), size_(size), allocated_(allocated) {}
  Status make_room(size_t bytes);
  std::string path_;
  UniqueFd fd_;
  int64_t size_ = 0;
  int64_t allocated_ = 0;
  // The counters of the last frame appended with counters; none after open
  // and reset (the next frame's are then written whole).
  std::optional<StoredCounters> last_counters_;
};

// The tail file's bytes; an empty string when it does not exist. Anything
// but a regular file, or a file over 64 MiB, is a kInvalid error naming it.
Result<std::string> read_tail_file(const std::string& path);

}  // namespace energy
