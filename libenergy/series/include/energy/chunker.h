// Chunker: turns sampler sweeps into raw-tier chunks (the storage format).
//
// A chunk covers consecutive sweeps of one boot: their timestamps once
// (microseconds of CLOCK_BOOTTIME, delta-of-delta coded) and, per rail, the
// readings (codec.h) with summary figures. Each rail also carries its running
// energy: the trapezoidal integral of its valid readings since the boot's
// first reading (failed readings are bridged by their valid neighbours, as in
// integrate_power). Storing it at each chunk's edges makes the energy over any
// interval a difference of two running values: O(log n) to look up, one chunk
// decoded per edge.
//
// A chunk is closed when it holds max_sweeps sweeps or the wall clock stepped
// (the wall clock is kept as one offset per chunk, for display only).
//
// Thread-safety: one thread (the storage writer).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "energy/codec.h"
#include "energy/sample.h"

namespace energy {

// Where a rail's running energy stands at its latest valid reading.
struct RailCursor {
  bool has_last = false;
  int64_t last_t_ns = 0;
  int64_t last_power_uw = 0;
  double cum_uj = 0;
};

struct RailChunk {
  std::string data;  // codec::encode_readings
  RailCursor first;  // running energy at the chunk's first valid reading (has_last false: none)
  RailCursor last;   // ... at its last valid reading (carried over when the chunk has none)
  int64_t valid = 0;
  int64_t failed = 0;
  int64_t min_power_uw = 0;  // over valid readings; 0 when none
  int64_t max_power_uw = 0;
};

// Rails are by position (the sampler's rail order); the store maps positions
// to its row ids when it writes, so a chunk survives a reopened database.
struct Chunk {
  int64_t t_first_ns = 0;
  int64_t t_last_ns = 0;
  int64_t sweeps = 0;
  int64_t wall_offset_ns = 0;  // wall = t + offset (display only)
  std::string times;           // codec::encode_times_us
  std::vector<RailChunk> rails;
};

struct ChunkRail {
  int64_t power_unit_uw = 0;  // see codec.h
};

class Chunker {
 public:
  static constexpr int64_t kWallStepNs = 1'000'000;  // a wall/boot offset change beyond this closes the chunk

  Chunker(std::vector<ChunkRail> rails, int64_t max_sweeps, std::vector<RailCursor> resume);

  // Adds one sweep (values parallel to the rails). Returns true when the sweep
  // was added to a fresh chunk because the previous one closed: that one is
  // then available from take_closed().
  bool add(const Sample& sample);
  bool empty() const { return times_us_.empty(); }
  // The open chunk as it stands (rewritten at every flush).
  Chunk open_chunk() const;
  // Chunks closed since the last call.
  std::vector<Chunk> take_closed();
  std::vector<RailCursor> cursors() const;

 private:
  struct RailBuf {
    ChunkRail rail;
    std::vector<codec::Reading> readings;
    RailCursor first;
    RailCursor cursor;
    int64_t valid = 0, failed = 0, min_p = 0, max_p = 0;
  };
  Chunk build() const;
  void close();
  void add_value(RailBuf& buf, int64_t t_ns, const RailValue& v);

  int64_t max_sweeps_;
  std::vector<RailBuf> bufs_;
  std::vector<int64_t> times_us_;
  int64_t wall_offset_ns_ = 0;
  std::vector<Chunk> closed_;
};

// Rounds a boot-time stamp to the microsecond the raw tier keeps.
inline int64_t to_stored_ns(int64_t t_ns) { return (t_ns + 500) / 1000 * 1000; }

// Decodes a rail chunk into its readings with timestamps (ns) and the
// running energy at each valid reading (starting from the chunk's `first`
// cursor, so a chunk decodes on its own).
struct StoredReading {
  int64_t t_ns = 0;
  codec::Reading reading;
  double cum_uj = 0;  // meaningful for valid readings
};
Result<std::vector<StoredReading>> decode_rail_chunk(const std::string& times, const RailChunk& rail,
                                                     int64_t power_unit_uw);

// Trapezoid energy between two readings in uJ.
inline double trapezoid_uj(int64_t t0_ns, int64_t p0_uw, int64_t t1_ns, int64_t p1_uw) {
  return (static_cast<double>(p0_uw) + static_cast<double>(p1_uw)) / 2.0 * static_cast<double>(t1_ns - t0_ns) / 1e9;
}

}  // namespace energy
