#include "energy/chunker.h"

#include <algorithm>
#include <cstdint>

namespace energy {

Chunker::Chunker(std::vector<ChunkRail> rails, int64_t max_sweeps, std::vector<RailCursor> resume)
    : max_sweeps_(max_sweeps) {
  for (size_t i = 0; i < rails.size(); ++i) {
    RailBuf b;
    b.rail = rails[i];
    if (i < resume.size()) b.cursor = resume[i];
    b.first = RailCursor{};
    bufs_.push_back(std::move(b));
  }
}

// The running energy integrates exactly the power a reader will decode.
void Chunker::add_value(RailBuf& b, int64_t t_ns, const RailValue& v) {
  codec::Reading r{v.voltage_mv, v.current_ma, v.power_uw, v.err};
  b.readings.push_back(r);
  if (v.err != 0) {
    ++b.failed;
    return;
  }
  int64_t p = codec::stored_power_uw(r, b.rail.power_unit_uw);
  if (b.cursor.has_last) b.cursor.cum_uj += trapezoid_uj(b.cursor.last_t_ns, b.cursor.last_power_uw, t_ns, p);
  b.cursor = RailCursor{true, t_ns, p, b.cursor.cum_uj};
  if (!b.first.has_last) b.first = b.cursor;
  b.min_p = b.valid == 0 ? p : std::min(b.min_p, p);
  b.max_p = b.valid == 0 ? p : std::max(b.max_p, p);
  ++b.valid;
}

bool Chunker::add(const Sample& s) {
  int64_t t = to_stored_ns(s.t_ns);
  int64_t offset = s.wall_ns - t;
  bool stepped = !times_us_.empty() && std::llabs(offset - wall_offset_ns_) > kWallStepNs;
  bool closing = !times_us_.empty() && (stepped || static_cast<int64_t>(times_us_.size()) >= max_sweeps_);
  if (closing) close();
  if (times_us_.empty()) wall_offset_ns_ = offset;
  times_us_.push_back(t / 1000);
  for (size_t i = 0; i < bufs_.size() && i < s.values.size(); ++i) add_value(bufs_[i], t, s.values[i]);
  return closing;
}

Chunk Chunker::build() const {
  Chunk c;
  c.sweeps = static_cast<int64_t>(times_us_.size());
  c.t_first_ns = times_us_.empty() ? 0 : times_us_.front() * 1000;
  c.t_last_ns = times_us_.empty() ? 0 : times_us_.back() * 1000;
  c.wall_offset_ns = wall_offset_ns_;
  c.times = codec::encode_times_us(times_us_);
  for (const auto& b : bufs_) {
    RailChunk r;
    r.data = codec::encode_readings(b.readings, b.rail.power_unit_uw);
    r.first = b.first;
    r.last = b.cursor;
    r.valid = b.valid;
    r.failed = b.failed;
    r.min_power_uw = b.min_p;
    r.max_power_uw = b.max_p;
    c.rails.push_back(std::move(r));
  }
  return c;
}

void Chunker::close() {
  closed_.push_back(build());
  times_us_.clear();
  for (auto& b : bufs_) {
    b.readings.clear();
    b.first = RailCursor{};
    b.valid = b.failed = b.min_p = b.max_p = 0;
  }
}

Chunk Chunker::open_chunk() const { return build(); }

std::vector<Chunk> Chunker::take_closed() {
  std::vector<Chunk> out;
  out.swap(closed_);
  return out;
}

std::vector<RailCursor> Chunker::cursors() const {
  std::vector<RailCursor> out;
  for (const auto& b : bufs_) out.push_back(b.cursor);
  return out;
}

namespace {

// Stored stamps are CLOCK_BOOTTIME microseconds: never negative, and in
// nanoseconds they must fit int64 (so differences between them cannot
// overflow either). Anything else is a damaged chunk.
constexpr int64_t kMaxStoredUs = INT64_MAX / 1000;

Status check_times(const std::vector<int64_t>& times_us) {
  for (int64_t t : times_us) {
    if (t < 0 || t > kMaxStoredUs) {
      return make_error(ErrorCode::kStorage, "corrupt chunk: time " + std::to_string(t) + " us out of range");
    }
  }
  return ok_status();
}

}  // namespace

Result<std::vector<StoredReading>> decode_rail_chunk(const std::string& times, const RailChunk& rail,
                                                     int64_t power_unit_uw) {
  auto ts = codec::decode_times_us(times);
  if (!ts) return ts.take_error();
  if (auto st = check_times(*ts); !st) return st.take_error();
  auto rs = codec::decode_readings(rail.data, power_unit_uw);
  if (!rs) return rs.take_error();
  if (ts->size() != rs->size()) {
    return make_error(ErrorCode::kStorage, "corrupt chunk: " + std::to_string(ts->size()) + " times but " +
                                               std::to_string(rs->size()) + " readings");
  }
  std::vector<StoredReading> out;
  out.reserve(ts->size());
  RailCursor cur{false, 0, 0, rail.first.cum_uj};
  for (size_t i = 0; i < ts->size(); ++i) {
    StoredReading sr{(*ts)[i] * 1000, (*rs)[i], 0};
    if (sr.reading.err == 0) {
      if (cur.has_last) cur.cum_uj += trapezoid_uj(cur.last_t_ns, cur.last_power_uw, sr.t_ns, sr.reading.power_uw);
      cur = RailCursor{true, sr.t_ns, sr.reading.power_uw, cur.cum_uj};
    }
    sr.cum_uj = cur.cum_uj;
    out.push_back(sr);
  }
  return out;
}

}  // namespace energy
