// Sweep tail: an append-only file of the sweeps the database does not hold
// yet (issue 16, docs/PERFORMANCE.md "Observer cost"). The storage writer is
// meant to commit only sealed chunks to SQLite and to keep the open chunk's
// sweeps here: one frame per flush interval, written with write(2) (in the
// kernel once append() returns: a kill -9 loses none of it) and synced on
// the power-loss window's schedule (sync()); at the next open the frames are
// read back, the sweeps the store lacks replayed, and the file reset.
//
// Format, little-endian: per frame the magic "ETL1", the payload's length
// (u32) and CRC-32 (u32, IEEE), then the payload: varints of the store's
// boot row id, the rail count and each rail's row id; the energy counters
// as of the frame's last sweep (a varint 0 for none, else 1, the id and
// each label as a varint length and bytes, created_wall_ns as a zigzag
// varint, the rail count, per rail its label and its microjoules as the
// 8 bytes of an IEEE double); the sweep count, then per sweep the
// zigzag deltas of t_ns (against the previous sweep of the frame, the first
// against 0) and of wall_ns - t_ns, and per rail the errno of a failed read
// (0: valid) followed, for a valid reading, by the zigzag deltas of power_uw,
// voltage_mv and current_ma against the rail's previous valid reading in the
// frame. A frame decodes on its own.
//
// The decoder trusts nothing: a frame whose magic, length, checksum or
// content is wrong ends the valid prefix, and what was wrong is said (a
// power cut leaves a torn last frame; anything else is damage).
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
// rail count, a stamp is not after the previous one, a row id is not > 0 or
// the counters fail validate_counters.
Result<std::string> encode_tail_frame(const TailFrame& frame);

struct TailScan {
  std::vector<TailFrame> frames;  // the valid prefix, in file order
  size_t valid_bytes = 0;         // length of the valid prefix
  // Empty when every byte decoded; else what is wrong at valid_bytes
  // ("frame 3 at byte 812: checksum mismatch").
  std::string problem;
  // True when the bad part is a frame cut short at the end of the file
  // (what a power cut during append leaves), not damaged content.
  bool torn = false;
};

// Decodes a tail file's bytes.
TailScan decode_tail(const std::string& bytes);

// The sweeps of `boot` in `frames` stamped after `stored_up_to_ns` (the
// newest sweep the store holds for that boot; 0 when none), in time order,
// each once: replaying the same tail twice adds nothing the second time.
std::vector<Sample> sweeps_to_replay(const std::vector<TailFrame>& frames, int64_t boot, int64_t stored_up_to_ns);

// CRC-32 (IEEE 802.3, reflected), as zlib's crc32().
uint32_t crc32_ieee(const char* data, size_t size);

// The tail file, open for appending. Errors name the path.
class SweepTailFile {
 public:
  // Creates the file if missing (mode 0600); never follows a symlink. Holds
  // an exclusive flock while open (kState when another holder has it), so
  // Store::open never replays the tail of a writer that is alive.
  static Result<SweepTailFile> open(const std::string& path);

  // Writes the whole frame with write(2) (retried on EINTR and short
  // writes). kIo on failure; a partial frame is then at the end of the file
  // and the next open's decode reports it torn.
  Status append(const TailFrame& frame);
  // fdatasync: every frame appended so far survives a power cut.
  Status sync();
  // Empties the file (after its sweeps are in a synced commit).
  Status reset();
  int64_t size_bytes() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  SweepTailFile(std::string path, UniqueFd fd, int64_t size)
      : path_(std::move(path)), fd_(std::move(fd)), size_(size) {}
  std::string path_;
  UniqueFd fd_;
  int64_t size_ = 0;
};

// The tail file's bytes; an empty string when it does not exist. Anything
// but a regular file, or a file over 64 MiB, is a kInvalid error naming it.
Result<std::string> read_tail_file(const std::string& path);

}  // namespace energy
