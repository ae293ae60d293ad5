// SweepRing: the newest sweeps, in a file on a memory file system (tmpfs:
// energyd's runtime directory, /run/energyd), written by the sampler's
// thread with plain stores into a shared mapping (issue 16).
//
// Why: a sweep must survive a kill -9 about as soon as it is taken. The
// sweep tail (sweep_tail.h) gave that by a pwrite every flush interval,
// which cost the storage thread a wake-up a second. The ring costs no
// system call and no wake-up: the file outlives the process (not a reboot
// or a power cut; the tail's syncs every checkpoint_interval cover those),
// so the storage thread writes the tail only when it syncs it, and the next
// start takes what the tail and the database lack from the ring
// (take_leftover). Readers in the daemon take the sweeps newer than the
// tail from the ring (LiveSweeps), so queries see the newest sweep.
//
// The file: a 128-byte header (magic, version, rails, capacity, record
// size, the kernel's boot id, a signature of the rails, the count of
// records written), then `capacity` records of 24 + 24 x rails bytes
// (seq, t_ns, wall_ns, then per rail power_uw, voltage_mv, current_ma,
// err). Record n (from 0) lives in slot n % capacity and carries seq n + 1
// once written; while it is being written its seq is all ones, so a reader
// (or a kill -9 in the middle) never takes a half-written record. The file
// never leaves the machine: native byte order.
//
// Thread-safety: put from one thread (the sampler's); since, stamp and the
// accessors from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "energy/result.h"
#include "energy/sample.h"

namespace energy {

// What a previous process left in a ring file, and why any of it is not
// usable (a different boot or rail set, damage): empty `dropped_why` and
// no sweeps when there was no file.
struct RingLeftover {
  std::vector<Sample> sweeps;  // oldest first
  std::string dropped_why;     // non-empty: the file's sweeps were not taken (named and counted)
  int64_t dropped = 0;
};

// Sweeps newer than a reader's, with the database rows they belong to.
struct LiveSweeps {
  int64_t boot = 0;  // 0: none
  std::vector<int64_t> rail_ids;
  std::vector<Sample> sweeps;  // oldest first
};

class SweepRing {
 public:
  SweepRing(const SweepRing&) = delete;
  SweepRing& operator=(const SweepRing&) = delete;
  ~SweepRing();

  // A fresh ring at `path` (replacing any file there), mapped, its pages
  // touched and, where the limit allows, locked, so a put never faults.
  // Refused (kUnsupported) when the directory is not on a memory file
  // system: the kernel would write the ring's pages to a disk every 30 s.
  // `signature` names the rails (a ring of other rails is not taken).
  static Result<std::unique_ptr<SweepRing>> create(const std::string& path, size_t rails, size_t capacity,
                                                   const std::string& signature);
  // The sweeps in the ring file at `path` left by a process that is gone,
  // when the file is of this kernel boot and these rails; reads only.
  // `rails` 0 takes the sweeps of whatever rails (to inspect a file).
  static RingLeftover take_leftover(const std::string& path, size_t rails, const std::string& signature);
  // Whether `dir` is on tmpfs or ramfs; the error says what it is on.
  static Status memory_backed(const std::string& dir);

  // The sampler's thread: one sweep, no system call.
  void put(const Sample& s);
  // The database rows the sweeps belong to, once the writer has opened it;
  // readers take sweeps only for these.
  void stamp(int64_t boot, std::vector<int64_t> rail_ids);
  // The ring's sweeps newer than `after_ns`, oldest first, with the rows
  // stamped (boot 0: not stamped yet, no sweeps). None either when the
  // ring no longer holds every sweep after `after_ns` (it has wrapped past
  // it): a reader then keeps what the tail gives rather than a gap.
  LiveSweeps since(int64_t after_ns) const;

  const std::string& path() const { return path_; }
  size_t capacity() const { return capacity_; }
  bool locked() const { return locked_; }  // mlock succeeded
  size_t bytes() const { return bytes_; }

 private:
  SweepRing(std::string path, size_t rails, size_t capacity);
  unsigned char* record(uint64_t n) const;

  std::string path_;
  size_t rails_;
  size_t capacity_;
  size_t record_bytes_;
  size_t bytes_ = 0;
  unsigned char* map_ = nullptr;
  bool locked_ = false;
  uint64_t written_ = 0;  // put's thread only
  mutable std::mutex stamp_mu_;
  int64_t boot_ = 0;  // under stamp_mu_
  std::vector<int64_t> rail_ids_;
};

// The sweeps newer than the sweep tail, for readers of a database in this
// process (store_tail.cpp): the writer registers its ring under the
// database's path while it runs (SweepRing::since).
using LiveSweepSource = std::function<LiveSweeps(int64_t after_ns)>;
void register_live_sweeps(const std::string& db_path, LiveSweepSource source);
void unregister_live_sweeps(const std::string& db_path);
// Nothing (boot 0) when no source is registered for `db_path`.
LiveSweeps live_sweeps_after(const std::string& db_path, int64_t after_ns);

}  // namespace energy
