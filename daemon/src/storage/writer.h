// StorageWriter: moves samples and marks from memory into the Store on its
// own thread, in batched transactions, so that an fsync that takes a second
// delays no tick.
//
// Samples go into a Chunker (the raw tier's format). Every flush interval
// the sweeps drained go to the sweep tail (sweep_tail.h) with one pwrite:
// from then on a kill -9 loses none of them, and readers see them
// (store.h). With a sweep ring (sweep_ring.h, on the runtime directory's
// tmpfs), the sampler's thread puts each sweep there as it queues it, which
// a kill -9 does not lose, and readers take the sweeps newer than the tail
// from it; the tail is then written only when it is synced (every
// checkpoint_interval, or when wake_sweeps are queued, or for a mark): one
// wake-up of this thread per checkpoint instead of one a second (issue 16).
// The sweeps a killed process left in the ring come back at the first
// open (use_ring's leftover), after those the tail and database hold.
// The database gets a transaction only for what needs one: the chunks
// closed since the last commit (about once a minute), marks, writes and
// board context rows; the open chunk is not rewritten every second (issue
// 16: that rewrite was 1.3 GB a day of writes). A commit that closes
// chunks is synced, and the tail is then replaced by one frame of the open
// chunk's sweeps. The tail is fsynced every checkpoint_interval before
// the WAL is checkpointed (the power-loss window), and before every synced
// commit, so the database never holds counters the tail cannot back. When
// the tail cannot be opened or written, the writer falls back to rewriting
// the open chunk at every flush, as before. A clean stop commits the open
// chunk and removes the tail. A mark is committed together with every sample before it, and
// its completion runs only after the commit and its line in the marks
// journal (store_guard.h): an acknowledged mark is on disk twice, so its
// loss from the database is found and undone at the next open.
// If the database refuses a transaction, no sweep is lost yet: the closed
// chunks stay pending and the next flush retries them; the marks in it are
// refused (kStorage), since nobody should wait on a disk that may stay full.
// Pending
// chunks are bounded; beyond the bound the oldest are dropped and their
// sweeps counted.
//
// Retention (StoreTiers::apply_retention) runs on the same thread: a pass starts
// every retention_interval and proceeds in bounded steps of a few chunks, at
// most retention_slice per loop turn, so a flush is never delayed by more.
// A completed pass measures the footprint that status shows at most every
// footprint_interval.
// "Now" for retention is the newest sweep's time (the sampler's clocks).
//
// Board context rows (ContextLog) ride in the same transactions.
//
// The energy counters (energy_counters.h), when set, count each sweep in
// push_sample under the queue's lock; the flush drains the queue and takes
// the counters' snapshot under that lock at once, and stores the snapshot
// in the transaction of the drained sweeps. Every commit thus holds counters
// that count exactly the sweeps committed (a sweep dropped to the pending
// bound is counted but not stored: the counters keep the energy measured).
// At the first open the stored counters (StoreSession::counters) are
// continued; later reopens keep the counters in memory, which are the truth.
//
// Thread-safety: push_* and stats from any thread; start/stop from the owner.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "context_log.h"
#include "context_poller.h"
#include "energy/chunker.h"
#include "energy/store.h"
#include "energy/sweep_ring.h"
#include "energy/sweep_tail.h"
#include "energy_counters.h"
#include "log_limit.h"
#include "sampler.h"

namespace energy::daemon {

// A run to open or close. `done` runs on the writer thread after the commit
// with the stored record (id filled in) or the storage error.
// kStop also stores, in the same transaction: the run's tags when
// `store_tags` (mark.stop merged some in), and what `clocks` returns for the
// stopped run (its clock pins and events, JSON) when set. `clocks` runs on
// the writer thread.
struct MarkOp {
  enum class Kind { kStart, kStop };
  Kind kind = Kind::kStart;
  RunRecord run;  // kStart: name, tags, start times; kStop: id, stop times
  std::function<void(Result<RunRecord>)> done;
  bool store_tags = false;
  bool store_items = false;  // kStop: mark.stop gave the run's items (run.items)
  bool store_start = false;  // kStop: the run's start moved after it was stored (RunManager::start_at_reply)
  std::function<std::string(const RunRecord&)> clocks;
};

// A write other than samples and marks (the sweep verbs). `apply` runs on
// the writer thread inside the transaction of everything queued before it,
// after that transaction's marks; an error it returns is the database's and
// fails the whole transaction (marks and writes in it are refused), so
// `apply` must check before it writes and keep refusals to itself. `done`
// runs on the writer thread after the commit, which is synced as a mark's
// is, with ok, or with the error that failed it.
struct StoreWrite {
  std::function<Status(Store&)> apply;
  std::function<void(const Status&)> done;
};

struct RetentionStats {
  int64_t passes = 0;                  // retention passes completed
  int64_t steps = 0;                   // transactions of retention work
  int64_t raw_chunks_downsampled = 0;  // totals since start
  int64_t second_rows_downsampled = 0;
  int64_t minute_rows_deleted = 0;
  int64_t context_rows_deleted = 0;  // board context aged out with the 1 s tier
  int64_t errors = 0;
  std::string last_error;         // empty while healthy
  bool over_budget = false;       // the last pass could not get under the budget
  int64_t budget_bytes_used = 0;  // what the budget counts, after the last step
  // Measured at the first completed pass, then at most every
  // footprint_interval: its queries read every row of the tiers.
  std::optional<StoreFootprint> footprint;
  std::optional<std::chrono::steady_clock::time_point> footprint_at;
  int64_t footprints = 0;  // footprints measured since start
};

struct WriterStats {
  int64_t samples_written = 0;  // sweeps committed
  int64_t commits = 0;
  int64_t queued = 0;           // sweeps received but not yet committed
  int64_t dropped_samples = 0;  // sweeps lost to the pending bound
  int64_t failed_commits = 0;
  int64_t context_rows_written = 0;  // board context change rows committed (context_log.h)
  int64_t context_rows_pending = 0;
  int64_t context_rows_dropped = 0;
  int64_t recovered_samples = 0;  // sweeps a killed energyd left in the sweep ring, stored at the first open
  std::string ring_path;          // the sweep ring (sweep_ring.h); empty: none, ring_off says why
  size_t ring_capacity = 0;
  bool ring_locked = false;  // its pages are locked in memory
  std::string ring_off;
  bool open = false;                // the database is open
  std::string last_error;           // empty while healthy
  std::vector<StorageLoss> losses;  // found at start (store_guard.h; the sweep ring), oldest first, at most 32
  RetentionStats retention;
};

// What opening the database yields: the store, this boot's row, the rails'
// rows (parallel to the sampler's rails), where their running energy stands,
// and runs of this boot that are still open.
struct StoreSession {
  std::unique_ptr<Store> store;
  int64_t boot = 0;
  std::vector<int64_t> rail_ids;
  std::vector<ChunkRail> rails;
  std::vector<RailCursor> resume;
  std::vector<RunRecord> open_runs;
  std::optional<StoredCounters> counters;  // the stored energy counters, if any
};
using StoreOpener = std::function<Result<StoreSession>()>;

struct WriterOptions {
  std::chrono::milliseconds flush_interval{1000};
  int64_t chunk_sweeps = 600;       // sweeps per raw-tier chunk (1 min at 100 ms)
  size_t max_pending_chunks = 240;  // closed chunks kept while the database refuses writes
  // With the sweep tail: closed chunks held (in memory and in the tail)
  // before they are committed together; a mark, a write or context rows
  // take them along sooner. Each commit costs about 21 pages whatever it
  // holds, each chunk about 3 more (docs/PERFORMANCE.md, issue 16).
  size_t seal_chunks = 15;
  std::chrono::milliseconds checkpoint_interval{10000};  // the power-loss window for samples
  std::chrono::milliseconds reopen_interval{5000};       // retry period while the database cannot be opened
  int consecutive_failures_before_reopen = 5;            // failed commits before the database is reopened
  RetentionPolicy retention;                             // store.h; the daemon fills it from its config
  std::chrono::milliseconds retention_interval{60000};   // how often a retention pass starts
  std::chrono::milliseconds retention_slice{50};         // most time spent on retention per loop turn
  // How often a completed pass also measures the footprint (the status
  // figures of each tier). Its queries scan every tier's rows: 22-28 ms
  // with 7 days of raw chunks of 3 rails (storage_bench BM_Footprint), which
  // once a minute would cost more than the sampling (issue 16).
  std::chrono::milliseconds footprint_interval{3600000};
};

class StorageWriter final : public SampleSink, public ContextSink {
 public:
  // `opener` runs on the writer thread at start and again whenever the
  // database must be (re)opened; `on_open` then receives the open runs.
  StorageWriter(StoreOpener opener, std::function<void(std::vector<RunRecord>)> on_open, WriterOptions options);
  ~StorageWriter() override;

  // Tries to open the database now, on the caller's thread, before start();
  // returns the open runs of this boot, or nothing if it could not be opened
  // (the writer thread then keeps trying).
  std::optional<std::vector<RunRecord>> open_now();
  // Counts every sweep into `counters` and stores them with each commit;
  // call before open_now() and start(). `counters` outlives the writer.
  void count_with(EnergyCounters& counters);
  // Puts every sweep into `ring` as it is queued, and writes the tail only
  // at checkpoints (above); `leftover`: the sweeps a killed process left in
  // the ring (its file's, taken before `ring` replaced it), stored at the
  // first open after what the database holds. `wake_sweeps`: the queued
  // sweeps that wake the writer before a checkpoint (the ring must hold
  // more: those taken while the writer works). Before open_now() and start().
  void use_ring(std::shared_ptr<SweepRing> ring, std::vector<Sample> leftover, size_t wake_sweeps);
  // The queued sweeps that wake the writer before a checkpoint with a ring
  // (use_ring's wake_sweeps): a checkpoint interval's, but at most 2048 and
  // at most 6144 rail readings (so a board of many rails at a short period
  // holds less in the queue and the ring; issue 16's RSS), though never
  // fewer than 2048 ms of sweeps (the writer wakes at most about every 2 s
  // for them; at 1 ms that is the 2048 sweeps of before, where 2000
  // measured 0.4 MB more RSS on a TX2: docs/PERFORMANCE.md).
  static size_t ring_wake_sweeps(int64_t period_ms, int64_t checkpoint_interval_ms, size_t rails);
  // Why there is no ring (for `status`); the tail is then written every flush interval.
  void note_no_ring(std::string why);
  // A loss found outside the database (a sweep ring that could not be
  // taken): logged once and listed with the store's in `status`.
  void note_loss(StorageLoss loss);
  void start();
  void stop();  // flushes everything still queued
  void push_sample(const Sample& sample) override;
  // Board context change rows; stored with the next transaction (a mark's
  // commit holds every row pushed before the mark).
  void push_context(std::vector<ContextChange> changes) override;
  void push_mark(MarkOp op);
  void push_write(StoreWrite write);
  WriterStats stats() const;
  // The energy counters (count_with) with every sweep pushed so far
  // counted, those still queued included; empty without count_with.
  CountersSnapshot counters_now() const;

 private:
  // One queued item. Marks and writes (272 and 64 bytes, a few a minute)
  // are boxed, so an item stays small (docs/PERFORMANCE.md, "The RSS at
  // 1 ms, and the release build"). Sweeps are not items: they are staged
  // (StagedSweeps). A mark or a write is committed with every sweep
  // drained with it, so with every sweep pushed before it.
  using Item = std::variant<std::unique_ptr<MarkOp>, std::vector<ContextChange>, std::unique_ptr<StoreWrite>>;
  // Samples whose readings' buffers are kept for the next sweeps (writer
  // thread only). Each absorbed sweep becomes a Sample, and a copy of it
  // goes to the open chunk's sweeps (the tail after a chunk closes): two
  // vectors a sweep, a malloc and a free each: a fifth of this thread's
  // instructions at 100 ms (docs/PERFORMANCE.md "Kernel or user space").
  // Taken from here they reuse the buffers of the sweeps the tail took
  // and of the chunk that closed. At most kKeepBytes are kept: a chunk's
  // 600 sweeps and a checkpoint's 100 on 3 rails (112 bytes each), so at
  // 100 ms nothing is allocated a sweep; on 12 rails some are.
  class SpareSamples {
   public:
    static constexpr size_t kKeepBytes = size_t{80} * 1024;
    Sample take(int64_t t_ns, int64_t wall_ns, const RailValue* values, size_t rails);
    void give(std::vector<Sample>& used);  // and empties it

   private:
    std::vector<Sample> spare_;
    size_t bytes_ = 0;  // the kept samples and their readings' capacity, in bytes
  };
  // The sweeps pushed since the last drain, back to back in buffers whose
  // capacity is kept: push_sample, on the sampler's thread, appends to them
  // and allocates nothing once they have grown to a drain's worth (a
  // queued copy of each sweep was a malloc on that thread and a free on
  // this one: OBS_ALLOCS=1 bench/observer_syscalls.sh counted 1.08 mallocs
  // a tick, now 0; docs/PERFORMANCE.md "Pages a tick touches"). Two sets
  // alternate: the sampler fills one while the writer turns the other into
  // samples. A set keeps at most kKeepBytes of capacity: a drain's worth at
  // 1 ms (196 KiB of readings on 3 rails, 590 KiB on 12) would otherwise
  // stay allocated twice, against issue 16's 10 MB of RSS; there the
  // sampler grows the set again by doubling, a few allocations per drain.
  struct StagedSweeps {
    static constexpr size_t kKeepBytes = size_t{128} * 1024;
    struct Head {
      int64_t t_ns = 0, wall_ns = 0;
      size_t rails = 0;
    };
    std::vector<Head> heads;
    std::vector<RailValue> values;  // heads[i].rails each, in order
    void add(const Sample& s);
    void move_into(std::deque<Sample>& out, SpareSamples& spares);  // and empties this, keeping up to kKeepBytes
    std::vector<EnergyCounters::SweepView> views() const;           // valid while this is unchanged
  };
  void loop();
  std::deque<Item> drain();
  void absorb_again();
  void absorb(std::deque<Item>& batch);
  bool flush();
  Status write_pending(std::vector<std::pair<MarkOp*, RunRecord>>& done, bool open_chunk);
  Status write_mark(MarkOp& op, std::vector<std::pair<MarkOp*, RunRecord>>& done);
  Status write_stop(const MarkOp& op, RunRecord& rec);
  void bound_pending();
  void maybe_checkpoint(bool force);
  void open_tail();
  bool append_tail();
  Status sync_tail();
  void rewrite_tail();
  void remove_tail();
  std::optional<StoredCounters> tail_counters() const;
  bool needs_commit(bool open_chunk) const;
  std::chrono::steady_clock::time_point next_wake(std::chrono::steady_clock::time_point now) const;
  void recover_leftover(const std::vector<RailCursor>& resume);
  void commit_failed(const Error& e);
  void absorb_sweeps();
  void maybe_retain(bool stopping);
  bool retain_step();
  void note_retention_error(const Error& e);
  void record_retention(const RetentionStep& step, std::optional<StoreFootprint> footprint);
  bool ensure_open();
  std::optional<std::vector<RunRecord>> try_open();
  void fail_marks(const Error& why);
  void report_losses(const std::vector<StorageLoss>& losses);
  void journal_marks(const std::vector<std::pair<MarkOp*, RunRecord>>& done);
  void note_failure(const Error& e);

  StoreOpener opener_;
  std::function<void(std::vector<RunRecord>)> on_open_;
  WriterOptions options_;
  // Writer thread only, from here to thread_:
  std::unique_ptr<Store> store_;
  int64_t boot_ = 0;
  std::vector<int64_t> rail_ids_;
  std::optional<Chunker> chunker_;  // exists once the database has been opened
  std::deque<Sample> early_;        // sweeps received before the database could be opened
  std::chrono::steady_clock::time_point next_open_attempt_{};
  int consecutive_failures_ = 0;
  std::vector<Chunk> pending_;      // closed chunks not yet committed (writer thread only)
  std::deque<MarkOp> marks_;        // marks not yet committed (writer thread only)
  std::deque<StoreWrite> writes_;   // other writes not yet committed (writer thread only)
  ContextLog context_{50'000};      // board context rows not yet committed (writer thread only)
  int64_t uncommitted_sweeps_ = 0;  // writer thread only: sweeps in neither the tail nor the database
  // The sweep tail; none while it cannot be used (the open chunk is then
  // committed at every flush). Writer thread only, as are the members to wal_unsynced_.
  std::optional<SweepTailFile> tail_;
  std::vector<Sample> tail_fresh_;   // absorbed sweeps not yet appended to the tail
  std::vector<Sample> open_sweeps_;  // the open chunk's sweeps (the tail after a chunk closes)
  bool tail_unsynced_ = false;       // appended since the last sync
  bool wal_unsynced_ = false;        // committed since the last checkpoint
  bool final_flush_ = false;         // the flush of stop()
  std::chrono::steady_clock::time_point last_checkpoint_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point next_retention_ = std::chrono::steady_clock::now();
  bool retention_running_ = false;                                       // a pass has started and has steps left
  std::optional<std::chrono::steady_clock::time_point> next_footprint_;  // none: at the next completed pass
  std::optional<Sample> newest_;             // the newest sweep's times: retention's "now" (values unused)
  EnergyCounters* counters_ = nullptr;       // set before start; count() under mu_, by drain()
  std::optional<CountersSnapshot> counted_;  // the counters as of the sweeps drained so far
  std::shared_ptr<SweepRing> ring_;          // set before start; put on the sampler's thread
  std::vector<Sample> leftover_;             // writer thread: the killed process's ring sweeps, until the first open
  size_t wake_sweeps_ = 0;
  StagedSweeps drained_;  // writer thread: the sweeps of the last drain, until absorbed (then empty)
  SpareSamples spares_;   // writer thread
  std::thread thread_;
  SystemClock log_clock_;
  LogLimiter log_limit_{log_clock_, std::chrono::minutes(1)};

  mutable std::mutex mu_;  // guards the members below
  std::condition_variable cv_;
  std::deque<Item> queue_;
  StagedSweeps staged_;  // swapped with drained_ by drain()
  bool mark_waiting_ = false;
  size_t queued_sweeps_ = 0;  // since the last drain (with a ring: wake_sweeps wake the writer)
  bool stopping_ = false;
  WriterStats stats_;
};

}  // namespace energy::daemon
