// The sweep tail in the Store (sweep_tail.h): replayed into chunks when a
// writer opens the database, read as live chunks by a reader's queries.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>

#include "energy/store.h"
#include "energy/sweep_ring.h"
#include "energy/sweep_tail.h"
#include "energy/sysroot.h"
#include "sqlite.h"
#include "tail_counters.h"

namespace energy {
namespace {

// Replayed sweeps are grouped as the writer groups them (WriterOptions::chunk_sweeps).
constexpr int64_t kTailChunkSweeps = 600;

bool same_rails(const TailFrame& f, int64_t boot, const std::vector<int64_t>& rail_ids) {
  return f.boot == boot && f.rail_ids == rail_ids;
}

// `n` bytes of the file from `from` (fewer at its end).
Result<std::string> read_at(int fd, const std::string& path, size_t from, size_t n) {
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd, &out[got], n - got, static_cast<off_t>(from + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno_error("cannot read the sweep tail " + path);
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  out.resize(got);
  return out;
}

// The file's bytes from `from` (a frame boundary) to the end of its frames,
// or to the end of the file: a preallocated tail is mostly zeros after its
// frames, so it is read in pieces, doubling, until the frames decoded from
// them end before the piece does (at zeros or at damage).
Result<std::string> read_frames(int fd, const std::string& path, size_t from, size_t file_size,
                                const std::optional<StoredCounters>& previous) {
  size_t want = 16u << 10;
  while (true) {
    size_t n = std::min({want, file_size - from, kMaxTailFileBytes});
    auto bytes = read_at(fd, path, from, n);
    if (!bytes || bytes->size() < want || from + bytes->size() >= file_size) return bytes;
    TailScan scan = decode_tail(*bytes, 0, previous);
    bool ran_out = scan.problem.empty() ? scan.valid_bytes == bytes->size() : scan.torn;
    if (!ran_out) return bytes;
    want *= 2;
  }
}

}  // namespace

// The newest chunk's last sweep: a boot's chunks do not overlap, so that is
// the newest stored sweep, found through the (boot, t_first_ns) index.
Result<std::optional<int64_t>> StoreReadings::stored_last_ns(int64_t boot) {
  auto st = db_->prepare("SELECT t_last_ns FROM chunks WHERE boot = ?1 ORDER BY t_first_ns DESC LIMIT 1");
  if (!st) return st.take_error();
  auto r = st->bind(1, boot).step();
  if (!r) return r.take_error();
  if (*r != sql::StepResult::kRow || st->null_at(0)) return std::optional<int64_t>();
  return std::optional<int64_t>(st->int_at(0));
}

// The rails' power units and labels, for live chunks of (boot, rails).
Result<StoreReadings::LiveChunks> StoreReadings::live_rails(int64_t boot, const std::vector<int64_t>& rail_ids) {
  LiveChunks out{boot, rail_ids, {}, {}, {}, {}};
  for (int64_t id : rail_ids) {
    auto st = db_->prepare("SELECT power_unit_uw, label FROM rails WHERE id = ?1");
    if (!st) return st.take_error();
    auto r = st->bind(1, id).step();
    if (!r) return r.take_error();
    if (*r != sql::StepResult::kRow)
      return make_error(ErrorCode::kNotFound, "rail " + std::to_string(id) + " is not in the database");
    out.units.push_back(st->int_at(0));
    out.labels.push_back(st->text_at(1));
  }
  return out;
}

// The frames' sweeps of (boot, rails) newer than the stored ones, chunked
// from the stored running energy on, as the writer's Chunker would have.
Result<StoreReadings::LiveChunks> StoreReadings::chunks_from_tail(const std::vector<TailFrame>& frames, int64_t boot,
                                                                  const std::vector<int64_t>& rail_ids,
                                                                  std::optional<LiveCursor>* keep) {
  auto out = live_rails(boot, rail_ids);
  if (!out) return out.take_error();
  std::vector<TailFrame> group;
  for (const auto& f : frames) {
    if (same_rails(f, boot, rail_ids)) group.push_back(f);
  }
  auto last = stored_last_ns(boot);
  if (!last) return last.take_error();
  auto sweeps = sweeps_to_replay(group, boot, last->value_or(0));
  if (sweeps.empty() && !keep) return out;
  auto resume = resume_cursors(boot, rail_ids);
  if (!resume) return resume.take_error();
  std::vector<ChunkRail> rails;
  for (int64_t u : out->units) rails.push_back(ChunkRail{u});
  Chunker chunker(std::move(rails), kTailChunkSweeps, std::move(resume).value());
  for (const auto& s : sweeps) chunker.add(s);
  out->chunks = chunker.take_closed();
  if (keep) {
    int64_t newest = sweeps.empty() ? last->value_or(0) : sweeps.back().t_ns;
    *keep = LiveCursor{0, 0, std::move(chunker), newest, last->value_or(0), last_counters(frames)};
    if (!keep->value().chunker.empty()) out->chunks.push_back(keep->value().chunker.open_chunk());
    return out;
  }
  if (!chunker.empty()) out->chunks.push_back(chunker.open_chunk());
  return out;
}

// Writer, at open: the tail of a daemon that is gone goes into chunks (and
// its counters with them) in one synced transaction, then the file is
// removed. A tail a live writer holds (a reopen of the same daemon) is left
// alone. A torn last frame is what a power cut leaves mid-append and is no
// loss; damage is reported and the file kept aside.
Status Store::replay_tail() {
  UniqueFd fd(::open(tail_path().c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!fd && errno == ENOENT) return ok_status();
  if (!fd) return errno_error("cannot open the sweep tail " + tail_path());
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) return ok_status();  // its writer is alive
  for (const auto& loss : losses_) {
    if (loss.kind != "database_replaced") continue;
    set_tail_aside("belongs to the database that is gone and was not replayed");
    return ok_status();
  }
  auto bytes = read_tail_file(tail_path());
  if (!bytes) return bytes.take_error();
  TailScan scan = decode_tail(*bytes);
  auto st = replay_frames(scan.frames);
  if (!st) {
    set_tail_aside("could not be replayed (" + st.error().describe() + ")");
    return ok_status();
  }
  if (!scan.problem.empty() && !scan.torn) {
    set_tail_aside("is damaged (" + scan.problem + "); the " + std::to_string(scan.frames.size()) +
                   " frames before it were replayed");
    return ok_status();
  }
  if (::unlink(tail_path().c_str()) != 0) return errno_error("cannot remove the replayed sweep tail " + tail_path());
  return ok_status();
}

Status Store::replay_frames(const std::vector<TailFrame>& frames) {
  if (frames.empty()) return ok_status();
  auto st = set_durability(Durability::kSynced);
  if (st) st = begin();
  for (size_t i = 0; st && i < frames.size(); ++i) {
    if (i > 0 && same_rails(frames[i], frames[i - 1].boot, frames[i - 1].rail_ids)) continue;
    auto live = readings_.chunks_from_tail(frames, frames[i].boot, frames[i].rail_ids);
    if (!live) st = live.take_error();
    for (size_t c = 0; st && c < live->chunks.size(); ++c)
      st = readings_.put_chunk(live->boot, live->rail_ids, live->chunks[c]);
  }
  auto counters = last_counters(frames);
  if (st && counters) st = counters_.put(*counters);
  if (st) st = commit();
  if (!st) (void)rollback();
  auto back = set_durability(Durability::kBatched);
  return st ? back : st;
}

void Store::set_tail_aside(const std::string& why) {
  auto stamp = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch());
  std::string aside = tail_path() + ".damaged-" + std::to_string(stamp.count());
  bool kept = std::rename(tail_path().c_str(), aside.c_str()) == 0;
  losses_.push_back({"tail_damaged",
                     "the sweep tail " + tail_path() + " " + why + "; the sweeps in the rest of it are lost" +
                         (kept ? "; kept as " + aside : "; it could not be moved aside and was left in place"),
                     kept ? std::vector<std::string>{aside} : std::vector<std::string>{}});
}

// Reader: the tail as it stands, less what the database already holds.
//
// The tail file is read first, then the database is asked what it holds,
// in one snapshot that the query's own statements share. A commit of
// sealed chunks removes their sweeps from the tail only after it lands
// (the writer rewrites the file then), so every sweep the file lacked was
// already in the database when the snapshot was taken: none is missed.
// Sweeps both hold (a commit between the two reads) are taken from the
// database only: live_ holds the sweeps after its newest stored one. When
// that has moved since live_ was chunked, live_ is read afresh, from the
// whole file and before a new snapshot.
//
// A tail unchanged since the last refresh (same inode, size and mtime: the
// writer writes frames in place, which changes the mtime, grows the
// preallocated file now and then, or replaces the file after a commit) is
// not read again; one with frames added is read from where the last
// refresh stopped (its zeros after the frames are the end of the data).
struct StoreReadings::TailRead {
  enum class Kind {
    kUnchanged,  // as when live_ was read
    kAppended,   // frames appended to live_'s file: `scan`, from live_cursor_'s bytes on
    kWhole,      // the whole file: `scan`
    kNone,       // no tail file
  };
  Kind kind = Kind::kUnchanged;
  std::string key;  // the file's inode, size and mtime when it was looked at
  uint64_t ino = 0;
  TailScan scan;
};

Result<StoreReadings::Snapshot> StoreReadings::refresh_live() {
  if (!reader_) return Snapshot();
  for (;;) {
    auto read = read_tail();
    if (!read) return read.take_error();
    auto snapshot = open_snapshot();
    if (!snapshot) return snapshot.take_error();
    auto applied = apply_tail(*read);
    if (!applied) return applied.take_error();
    if (!*applied) {
      // Once at most: without live_, the file is read whole, which applies.
      drop_live();
      continue;  // the snapshot closes before the file is read again
    }
    auto ring = add_ring_sweeps();
    if (!ring) return ring.take_error();
    return std::move(snapshot).value();
  }
}

Result<StoreReadings::Snapshot> StoreReadings::open_snapshot() {
  auto st = db_->prepare("SAVEPOINT live_read");  // prepared once, as the queries are
  if (!st) return st.take_error();
  auto done = st->run();
  if (!done) return done.take_error();
  return Snapshot(this);
}

// A read-only savepoint's release does not fail short of a broken
// connection; if it does, the rollback still ends the read transaction.
void StoreReadings::close_snapshot() {
  auto st = db_->prepare("RELEASE live_read");
  if (st && st->run()) return;
  (void)db_->exec("ROLLBACK TO live_read");
  (void)db_->exec("RELEASE live_read");
}

StoreReadings::Snapshot::~Snapshot() {
  if (owner_ != nullptr) owner_->close_snapshot();
}

void StoreReadings::drop_live() {
  live_.reset();
  live_cursor_.reset();
  live_key_.clear();
}

Result<StoreReadings::TailRead> StoreReadings::read_tail() const {
  TailRead out;
  struct stat st {};
  if (::stat(tail_path().c_str(), &st) == 0) {
    out.key = std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) +
              ":" + std::to_string(st.st_mtim.tv_nsec);
  }
  if (!out.key.empty() && out.key == live_key_) return out;
  auto fd = open_regular_file(tail_path(), "the sweep tail " + tail_path(), FileAccess::kRead);
  if (!fd && fd.error().sys_errno == ENOENT) {
    out.kind = TailRead::Kind::kNone;
    return out;
  }
  if (!fd) return fd.take_error();
  if (::fstat(fd->get(), &st) != 0) return errno_error("cannot stat the sweep tail " + tail_path());
  out.ino = static_cast<uint64_t>(st.st_ino);
  // Frames appended to the file live_ was read from: only the new bytes.
  if (live_ && live_cursor_ && live_cursor_->ino == out.ino && static_cast<size_t>(st.st_size) >= live_cursor_->bytes) {
    const LiveCursor& c = *live_cursor_;
    auto fresh = read_frames(fd->get(), tail_path(), c.bytes, static_cast<size_t>(st.st_size), c.counters);
    if (!fresh) return fresh.take_error();
    out.kind = TailRead::Kind::kAppended;
    out.scan = decode_tail(*fresh, 0, c.counters);
    return out;
  }
  auto bytes = read_all(fd->get(), "the sweep tail " + tail_path(), kMaxTailFileBytes);
  if (!bytes) return bytes.take_error();
  out.kind = TailRead::Kind::kWhole;
  out.scan = decode_tail(*bytes);
  return out;
}

Result<bool> StoreReadings::apply_tail(const TailRead& read) {
  using Kind = TailRead::Kind;
  if (read.kind == Kind::kNone) {
    drop_live();
    return true;
  }
  if (live_ && live_cursor_ && read.kind != Kind::kWhole) {
    auto last = stored_last_ns(live_->boot);
    if (!last) return last.take_error();
    if (last->value_or(0) != live_cursor_->stored_last_ns) return false;
  }
  if (read.kind == Kind::kUnchanged) return true;
  if (read.kind == Kind::kAppended) {
    LiveCursor& c = *live_cursor_;
    for (const auto& f : read.scan.frames) {
      if (!same_rails(f, live_->boot, live_->rail_ids)) return false;
    }
    std::vector<const std::vector<Sample>*> batches;
    for (const auto& f : read.scan.frames) {
      batches.push_back(&f.sweeps);
      if (f.counters) c.counters = f.counters;
    }
    chunk_live(batches);
    c.bytes += read.scan.valid_bytes;
    live_key_ = read.key;
    return true;
  }
  drop_live();
  if (read.scan.frames.empty()) return true;
  const TailFrame& newest = read.scan.frames.back();
  std::optional<LiveCursor> cursor;
  auto live = chunks_from_tail(read.scan.frames, newest.boot, newest.rail_ids, &cursor);
  if (!live) return live.take_error();
  auto boot_id = boot_id_of(live->boot);
  if (!boot_id) return boot_id.take_error();
  live->boot_id = std::move(boot_id).value();
  live_ = std::move(live).value();
  live_cursor_ = std::move(cursor);
  live_cursor_->ino = read.ino;
  live_cursor_->bytes = read.scan.valid_bytes;
  live_key_ = read.key;
  return true;
}

// Reader: the sweeps newer than the tail's, from the sweep ring of the
// writer in this process (sweep_ring.h), when it has one: the writer
// appends to the tail only when it syncs it (every checkpoint_interval),
// and a query still sees the newest sweep. They go into the cursor's
// chunker as the tail's frames would; when those frames come, chunk_live
// skips the sweeps it already holds. Without tail frames of the ring's
// rows (just after a start), live_ starts from the database's newest sweep.
Status StoreReadings::add_ring_sweeps() {
  bool matches = live_ && live_cursor_;
  LiveSweeps fresh = live_sweeps_after(path_, matches ? live_cursor_->newest_ns : INT64_MAX);
  if (fresh.boot == 0) return ok_status();
  matches = matches && live_->boot == fresh.boot && live_->rail_ids == fresh.rail_ids;
  if (!matches) {
    std::optional<LiveCursor> cursor;
    auto live = chunks_from_tail({}, fresh.boot, fresh.rail_ids, &cursor);
    if (!live) return live.take_error();
    fresh = live_sweeps_after(path_, cursor->newest_ns);
    if (fresh.boot != live->boot || fresh.rail_ids != live->rail_ids || fresh.sweeps.empty()) return ok_status();
    auto boot_id = boot_id_of(live->boot);
    if (!boot_id) return boot_id.take_error();
    live->boot_id = std::move(boot_id).value();
    live_ = std::move(live).value();
    live_cursor_ = std::move(cursor);  // ino 0: the tail's first frames are read whole
  }
  if (fresh.sweeps.empty()) return ok_status();
  chunk_live({&fresh.sweeps});
  return ok_status();
}

// Reader: adds the sweeps of `batches` newer than live_cursor_'s newest to
// live_: its open chunk is rebuilt, its closed ones kept.
void StoreReadings::chunk_live(const std::vector<const std::vector<Sample>*>& batches) {
  LiveCursor& c = *live_cursor_;
  if (!c.chunker.empty()) live_->chunks.pop_back();  // the open chunk, rebuilt below
  for (const auto* sweeps : batches) {
    for (const auto& s : *sweeps) {
      if (s.t_ns <= c.newest_ns) continue;
      c.chunker.add(s);
      c.newest_ns = s.t_ns;
    }
  }
  for (auto& chunk : c.chunker.take_closed()) live_->chunks.push_back(std::move(chunk));
  if (!c.chunker.empty()) live_->chunks.push_back(c.chunker.open_chunk());
}

Result<std::string> StoreReadings::boot_id_of(int64_t boot) {
  auto st = db_->prepare("SELECT boot_id FROM boots WHERE id = ?1");
  if (!st) return st.take_error();
  auto r = st->bind(1, boot).step();
  if (!r) return r.take_error();
  return *r == sql::StepResult::kRow ? st->text_at(0) : std::string();
}

int StoreReadings::live_rail(int64_t boot, int64_t rail_id) const {
  if (!live_ || live_->boot != boot) return -1;
  for (size_t i = 0; i < live_->rail_ids.size(); ++i) {
    if (live_->rail_ids[i] == rail_id) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace energy
