#include "writer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <pthread.h>
#include <spdlog/spdlog.h>

#include "energy/durable_file.h"
#include "energy/tick_path.h"

namespace energy::daemon {

StorageWriter::StorageWriter(StoreOpener opener, std::function<void(std::vector<RunRecord>)> on_open,
                             WriterOptions options)
    : opener_(std::move(opener)), on_open_(std::move(on_open)), options_(options) {}

StorageWriter::~StorageWriter() { stop(); }

void StorageWriter::start() {
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "store");
    loop();
  });
}

void StorageWriter::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

void StorageWriter::count_with(EnergyCounters& counters) { counters_ = &counters; }

// Queued under the lock; the drain counts it (drain()). With a ring the
// sweep goes there first (plain stores, sweep_ring.h); the writer is woken
// only when wake_sweeps are queued (short periods).
ENERGY_TICK_PATH void StorageWriter::push_sample(const Sample& sample) {
  if (ring_) ring_->put(sample);
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    staged_.add(sample);
    if (ring_ && ++queued_sweeps_ == wake_sweeps_) wake = mark_waiting_ = true;
  }
  if (wake) cv_.notify_one();
}

ENERGY_TICK_PATH void StorageWriter::StagedSweeps::add(const Sample& s) {
  heads.push_back(Head{s.t_ns, s.wall_ns, s.values.size()});
  values.insert(values.end(), s.values.begin(), s.values.end());
}

void StorageWriter::StagedSweeps::move_into(std::deque<Sample>& out, SpareSamples& spares) {
  const RailValue* v = values.data();
  for (const Head& h : heads) {
    out.push_back(spares.take(h.t_ns, h.wall_ns, v, h.rails));
    v += h.rails;
  }
  heads.clear();
  values.clear();
  if (heads.capacity() * sizeof(Head) + values.capacity() * sizeof(RailValue) > kKeepBytes) {
    heads.shrink_to_fit();
    values.shrink_to_fit();
  }
}

Sample StorageWriter::SpareSamples::take(int64_t t_ns, int64_t wall_ns, const RailValue* values, size_t rails) {
  if (spare_.empty()) return Sample{t_ns, wall_ns, std::vector<RailValue>(values, values + rails)};
  Sample s = std::move(spare_.back());
  spare_.pop_back();
  bytes_ -= sizeof(Sample) + s.values.capacity() * sizeof(RailValue);
  s.t_ns = t_ns;
  s.wall_ns = wall_ns;
  s.values.assign(values, values + rails);
  return s;
}

void StorageWriter::SpareSamples::give(std::vector<Sample>& used) {
  for (auto& s : used) {
    const size_t bytes = sizeof(Sample) + s.values.capacity() * sizeof(RailValue);
    if (s.values.capacity() == 0 || bytes_ + bytes > kKeepBytes) continue;
    bytes_ += bytes;
    spare_.push_back(std::move(s));
  }
  used.clear();
}

size_t StorageWriter::ring_wake_sweeps(int64_t period_ms, int64_t checkpoint_interval_ms, size_t rails) {
  constexpr int64_t kMaxSweeps = 2048, kMaxReadings = 6144, kMinWaitMs = 2048;
  const int64_t period = std::max<int64_t>(period_ms, 1);
  const int64_t per_checkpoint = checkpoint_interval_ms / period + 1;
  const int64_t by_memory =
      std::max(kMinWaitMs / period, kMaxReadings / std::max<int64_t>(1, static_cast<int64_t>(rails)));
  return static_cast<size_t>(std::max<int64_t>(1, std::min({per_checkpoint, kMaxSweeps, by_memory})));
}

void StorageWriter::use_ring(std::shared_ptr<SweepRing> ring, std::vector<Sample> leftover, size_t wake_sweeps) {
  ring_ = std::move(ring);
  leftover_ = std::move(leftover);
  wake_sweeps_ = std::max<size_t>(1, wake_sweeps);
  std::lock_guard<std::mutex> lock(mu_);
  stats_.ring_path = ring_->path();
  stats_.ring_capacity = ring_->capacity();
  stats_.ring_locked = ring_->locked();
  stats_.ring_off.clear();
}

void StorageWriter::note_no_ring(std::string why) {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.ring_off = std::move(why);
}

void StorageWriter::push_context(std::vector<ContextChange> changes) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.emplace_back(std::move(changes));
}

void StorageWriter::push_mark(MarkOp op) {
  auto boxed = std::make_unique<MarkOp>(std::move(op));  // allocated before the lock the sampler takes
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.emplace_back(std::move(boxed));
    mark_waiting_ = true;
  }
  cv_.notify_one();
}

void StorageWriter::push_write(StoreWrite write) {
  auto boxed = std::make_unique<StoreWrite>(std::move(write));
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.emplace_back(std::move(boxed));
    mark_waiting_ = true;  // someone waits for it, as for a mark
  }
  cv_.notify_one();
}

std::vector<EnergyCounters::SweepView> StorageWriter::StagedSweeps::views() const {
  std::vector<EnergyCounters::SweepView> out;
  out.reserve(heads.size());
  const RailValue* v = values.data();
  for (const Head& h : heads) {
    out.push_back(EnergyCounters::SweepView{h.t_ns, v, h.rails});
    v += h.rails;
  }
  return out;
}

CountersSnapshot StorageWriter::counters_now() const {
  if (counters_ == nullptr) return {};  // never counting (no count_with)
  std::lock_guard<std::mutex> lock(mu_);
  return counters_->snapshot_with(staged_.views());
}

WriterStats StorageWriter::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  WriterStats s = stats_;
  s.queued += static_cast<int64_t>(staged_.heads.size());
  return s;
}

void StorageWriter::loop() {
  ensure_open();  // unless open_now() succeeded; before any item, so early marks find the database
  auto next_flush = next_wake(std::chrono::steady_clock::now());
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait_until(lock, next_flush, [this] { return stopping_ || mark_waiting_; });
    bool last = stopping_;
    std::deque<Item> batch = drain();
    mark_waiting_ = false;
    lock.unlock();
    absorb(batch);
    bool was_open = store_ != nullptr;
    bool open = ensure_open();
    if (open && !was_open) absorb_again();
    final_flush_ = last;
    if (open && flush()) {
      maybe_checkpoint(last);
      maybe_retain(last);
    }
    lock.lock();
    if (last) break;
    next_flush = next_wake(std::chrono::steady_clock::now());
  }
}

// Every flush interval; with a ring and a tail, at the next checkpoint
// (the tail is written when it is synced), sooner only while a retention
// pass has steps left or the database waits to be opened.
std::chrono::steady_clock::time_point StorageWriter::next_wake(std::chrono::steady_clock::time_point now) const {
  auto soon = now + options_.flush_interval;
  if (!ring_ || !tail_ || !store_ || retention_running_) return soon;
  return std::max(soon, last_checkpoint_ + options_.checkpoint_interval);
}

// Under mu_: the queue, and the counters as of its last sweep. The
// drained sweeps are counted here, on the writer's thread, in one batch
// (not one by one on the sampler's; issue 16): under the lock, so
// counters_now() finds every sweep either counted or still staged, and
// the snapshot the commit stores counts exactly the sweeps drained.
std::deque<StorageWriter::Item> StorageWriter::drain() {
  std::deque<Item> batch;
  batch.swap(queue_);
  std::swap(drained_, staged_);  // drained_ was emptied by the last absorb: the sampler fills it next
  queued_sweeps_ = 0;
  if (counters_) {
    for (const auto& sweep : drained_.views()) counters_->count(sweep);
    counted_ = counters_->snapshot();
  }
  return batch;
}

// Right after an open in the loop, which came after this turn's drain: the
// queue is drained again, so the snapshot the commit stores was taken after
// the first open continued the stored counters (and counts what it stores).
void StorageWriter::absorb_again() {
  std::deque<Item> more;
  {
    std::lock_guard<std::mutex> lock(mu_);
    more = drain();
  }
  absorb(more);
}

// Samples go into the chunker (never lost to a failed commit); marks wait
// in order behind the samples that preceded them.
void StorageWriter::absorb(std::deque<Item>& batch) {
  if (!drained_.heads.empty()) {
    newest_ = Sample{drained_.heads.back().t_ns, drained_.heads.back().wall_ns, {}};
    drained_.move_into(early_, spares_);
  }
  for (auto& item : batch) {
    if (auto* m = std::get_if<std::unique_ptr<MarkOp>>(&item)) marks_.push_back(std::move(**m));
    if (auto* c = std::get_if<std::vector<ContextChange>>(&item)) context_.add(std::move(*c));
    if (auto* w = std::get_if<std::unique_ptr<StoreWrite>>(&item)) writes_.push_back(std::move(**w));
  }
  if (chunker_) absorb_sweeps();
  bound_pending();
}

// Into the chunker, and while there is a tail, into what it is owed.
void StorageWriter::absorb_sweeps() {
  for (auto& s : early_) {
    if (chunker_->add(s)) spares_.give(open_sweeps_);
    if (!tail_) continue;
    open_sweeps_.push_back(spares_.take(s.t_ns, s.wall_ns, s.values.data(), s.values.size()));
    tail_fresh_.push_back(std::move(s));
  }
  uncommitted_sweeps_ += static_cast<int64_t>(early_.size());
  early_.clear();
  for (auto& c : chunker_->take_closed()) pending_.push_back(std::move(c));
}

// Opens the database when it is not open (at most every reopen_interval).
// While it cannot be opened, sweeps wait in memory (bounded) and marks are
// refused: a mark is acknowledged only once it is stored.
bool StorageWriter::ensure_open() {
  if (store_) return true;
  auto now = std::chrono::steady_clock::now();
  if (now < next_open_attempt_) return false;
  next_open_attempt_ = now + options_.reopen_interval;
  auto runs = try_open();
  if (runs) on_open_(std::move(*runs));
  return runs.has_value();
}

std::optional<std::vector<RunRecord>> StorageWriter::open_now() { return try_open(); }

std::optional<std::vector<RunRecord>> StorageWriter::try_open() {
  auto session = opener_();
  if (!session) {
    note_failure(session.error());
    fail_marks(session.error());
    return std::nullopt;
  }
  store_ = std::move(session->store);
  report_losses(store_->losses());
  boot_ = session->boot;
  rail_ids_ = std::move(session->rail_ids);
  // After a reopen the chunker goes on: its running energy and unwritten
  // chunks are the truth; the database's resume point is used only at first.
  if (!chunker_) {
    auto resume = session->resume;
    chunker_.emplace(std::move(session->rails), options_.chunk_sweeps, std::move(session->resume));
    if (counters_ && session->counters) counters_->restore(*session->counters);
    recover_leftover(resume);
  }
  if (ring_) ring_->stamp(boot_, rail_ids_);
  // A tail needs every sweep of the open chunk: it is opened only while the
  // chunker has none (the first open), never in the middle of a chunk.
  if (!tail_ && chunker_->empty()) open_tail();
  auto context = context_.opened(*store_, boot_, newest_ ? newest_->t_ns : 0);
  if (!context)
    spdlog::warn("storage: cannot end the previous daemon's clock polling ({}); ignoring", context.error().describe());
  std::deque<Item> none;
  absorb(none);  // sweeps that waited for the database go into chunks now
  std::lock_guard<std::mutex> lock(mu_);
  stats_.open = true;
  stats_.last_error.clear();
  return std::move(session->open_runs);
}

// The sweeps a killed process had put into the ring but not into the tail
// (those the database holds after the tail's replay are skipped) go before
// every sweep of this process, and into the counters from the stored
// readings on, as that process would have counted them.
void StorageWriter::recover_leftover(const std::vector<RailCursor>& resume) {
  if (leftover_.empty()) return;
  auto last = store_->readings().last_sample_ns(boot_);
  if (!last) {
    report_losses({{"ring_unstored",
                    std::to_string(leftover_.size()) +
                        " sweeps a killed energyd left in the sweep ring are lost: " + last.error().describe(),
                    {}}});
    leftover_.clear();
    return;
  }
  std::vector<Sample> fresh;
  for (auto& s : leftover_) {
    if (to_stored_ns(s.t_ns) > last->value_or(0)) fresh.push_back(std::move(s));
  }
  leftover_.clear();
  if (fresh.empty()) return;
  if (counters_) counters_->count_recovered(fresh, resume);
  spdlog::info("storage: {} sweeps a killed energyd left in the sweep ring are stored", fresh.size());
  std::lock_guard<std::mutex> lock(mu_);
  stats_.recovered_samples += static_cast<int64_t>(fresh.size());
  early_.insert(early_.begin(), std::make_move_iterator(fresh.begin()), std::make_move_iterator(fresh.end()));
}

void StorageWriter::note_loss(StorageLoss loss) { report_losses({std::move(loss)}); }

// Each loss is logged once, as an error: nothing recorded is lost silently.
void StorageWriter::report_losses(const std::vector<StorageLoss>& losses) {
  constexpr size_t kMaxKept = 32;
  for (const auto& l : losses) spdlog::error("storage: {}", l.message);
  std::lock_guard<std::mutex> lock(mu_);
  stats_.losses.insert(stats_.losses.end(), losses.begin(), losses.end());
  if (stats_.losses.size() > kMaxKept) stats_.losses.erase(stats_.losses.begin(), stats_.losses.end() - kMaxKept);
}

void StorageWriter::fail_marks(const Error& why) {
  Error e = make_error(ErrorCode::kStorage, "storage unavailable, the mark was not stored: " + why.describe());
  for (auto& m : marks_) m.done(e);
  marks_.clear();
  Error w_e = make_error(ErrorCode::kStorage, "storage unavailable, the write was not stored: " + why.describe());
  for (auto& w : writes_) w.done(w_e);
  writes_.clear();
}

void StorageWriter::note_failure(const Error& e) {
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.failed_commits;
  if (stats_.last_error != e.describe()) {
    auto v = log_limit_.allow("storage.commit");  // an error whose text alternates must not flood either
    if (v.log) spdlog::warn("storage: {}; keeping data in memory and retrying{}", e.describe(), LogLimiter::suffix(v));
  }
  stats_.last_error = e.describe();
}

void StorageWriter::bound_pending() {
  int64_t dropped = 0;
  while (pending_.size() > options_.max_pending_chunks) {
    dropped += pending_.front().sweeps;
    pending_.erase(pending_.begin());
  }
  size_t max_early = options_.max_pending_chunks * static_cast<size_t>(options_.chunk_sweeps);
  while (early_.size() > max_early) {
    early_.pop_front();
    ++dropped;
  }
  if (dropped == 0) return;
  uncommitted_sweeps_ = std::max<int64_t>(0, uncommitted_sweeps_ - dropped);
  std::lock_guard<std::mutex> lock(mu_);
  stats_.dropped_samples += dropped;
}

// The drained sweeps go to the tail; then, when anything needs the
// database, one transaction: pending chunks, the open chunk (without a tail,
// or at stop), context rows, then marks and writes in order.
bool StorageWriter::flush() {
  bool in_tail = append_tail();
  bool open_chunk = !in_tail || final_flush_;
  if (!needs_commit(open_chunk)) return true;
  bool sealing = in_tail && !pending_.empty();
  std::vector<std::pair<MarkOp*, RunRecord>> done;
  Status st = write_pending(done, open_chunk);
  if (!st) {
    commit_failed(st.error());
    return false;
  }
  consecutive_failures_ = 0;
  wal_unsynced_ = true;
  if (sealing && !final_flush_) rewrite_tail();
  if (final_flush_ && tail_) remove_tail();
  journal_marks(done);  // before mu_: an fdatasync must not hold up the sampler's push_sample
  std::lock_guard<std::mutex> lock(mu_);
  if (!stats_.last_error.empty()) spdlog::info("storage: writing again");
  ++stats_.commits;
  stats_.last_error.clear();
  stats_.samples_written += uncommitted_sweeps_;
  uncommitted_sweeps_ = 0;
  context_.committed();
  stats_.context_rows_written = context_.written();
  stats_.context_rows_pending = 0;
  stats_.context_rows_dropped = context_.dropped();
  pending_.clear();
  for (auto& [op, rec] : done) op->done(rec);
  marks_.clear();
  for (auto& w : writes_) w.done(ok_status());
  writes_.clear();
  return true;
}

// Committed marks go to the marks journal before they are acknowledged. A
// journal that cannot be written does not refuse the mark (it is stored);
// it is logged, as its later loss could then go unnoticed.
void StorageWriter::journal_marks(const std::vector<std::pair<MarkOp*, RunRecord>>& done) {
  for (const auto& [op, rec] : done) {
    bool start = op->kind == MarkOp::Kind::kStart;
    auto tags = op->store_tags ? StoreRuns::JournalTags::kRewritten : StoreRuns::JournalTags::kUnchanged;
    auto st = store_->runs().journal_mark(rec, start ? MarkEntry::Op::kStart : MarkEntry::Op::kStop, tags);
    if (st) continue;
    auto v = log_limit_.allow("storage.journal");
    if (v.log)
      spdlog::warn("storage: run {}: {}; the mark is stored, but its loss could go unreported{}", rec.id,
                   st.error().describe(), LogLimiter::suffix(v));
  }
}

// The transaction was refused: nothing of it was stored. Its sweeps stay
// (pending chunks, the chunker, the tail); its marks and writes are refused.
void StorageWriter::commit_failed(const Error& e) {
  (void)store_->rollback();  // ends the failed transaction
  note_failure(make_error(e.code, "cannot commit: " + e.describe()));
  fail_marks(e);  // nobody waits on a disk that may stay full
  if (++consecutive_failures_ >= options_.consecutive_failures_before_reopen) {
    store_.reset();  // the file may have been replaced, remounted or damaged: open it afresh
    consecutive_failures_ = 0;
    std::lock_guard<std::mutex> lock(mu_);
    stats_.open = false;
  }
  std::lock_guard<std::mutex> lock(mu_);
  stats_.context_rows_pending = context_.pending();
  stats_.context_rows_dropped = context_.dropped();
}

bool StorageWriter::needs_commit(bool open_chunk) const {
  bool sweeps = open_chunk && (uncommitted_sweeps_ > 0 || (final_flush_ && !chunker_->empty()));
  size_t seal = tail_ && !final_flush_ ? std::max<size_t>(1, options_.seal_chunks) : 1;
  return sweeps || !marks_.empty() || !writes_.empty() || pending_.size() >= seal || context_.pending() > 0;
}

// Samples are synced at checkpoints; a transaction that carries a mark syncs
// its WAL at commit, because someone is told the mark is stored, and so
// does one that closes chunks (the tail then forgets their sweeps). With a
// tail, the counters ride only in synced commits, after the tail is synced:
// the database's counters then never count a sweep a power cut could take.
Status StorageWriter::write_pending(std::vector<std::pair<MarkOp*, RunRecord>>& done, bool open_chunk) {
  bool synced = !marks_.empty() || !writes_.empty() || (tail_ && !pending_.empty()) || final_flush_;
  auto st = synced && tail_ ? sync_tail() : ok_status();
  if (!st) return st;
  st = store_->set_durability(synced ? Store::Durability::kSynced : Store::Durability::kBatched);
  if (!st) return st;
  st = store_->begin();
  if (!st) return st;
  for (const auto& c : pending_) {
    st = store_->readings().put_chunk(boot_, rail_ids_, c);
    if (!st) return st;
  }
  if (open_chunk) st = store_->readings().put_chunk(boot_, rail_ids_, chunker_->open_chunk());
  if (!st) return st;
  st = context_.write(*store_, boot_);
  if (!st) return st;
  if (counted_ && (synced || !tail_)) {
    st = store_->counters().put(to_stored(*counted_));
    if (!st) return st;
  }
  for (auto& m : marks_) {
    st = write_mark(m, done);
    if (!st) return st;
  }
  for (auto& w : writes_) {
    st = w.apply(*store_);
    if (!st) return st;
  }
  return store_->commit();
}

// The power-loss window: every checkpoint_interval the tail is synced, then
// the WAL checkpointed (when anything was committed since). A clean stop
// always checkpoints, so nothing waits in the WAL.
void StorageWriter::maybe_checkpoint(bool force) {
  auto now = std::chrono::steady_clock::now();
  if (now - last_checkpoint_ < options_.checkpoint_interval && !force) return;
  last_checkpoint_ = now;
  auto synced = tail_ ? sync_tail() : ok_status();
  if (!synced) {
    auto v = log_limit_.allow("storage.tail");
    if (v.log) spdlog::warn("storage: {}; will retry{}", synced.error().describe(), LogLimiter::suffix(v));
  }
  if (!wal_unsynced_ && !force) return;
  wal_unsynced_ = false;
  auto st = store_->checkpoint();
  if (st) return;
  auto v = log_limit_.allow("storage.checkpoint");
  if (v.log)
    spdlog::warn("storage: checkpoint failed ({}); will retry{}", st.error().describe(), LogLimiter::suffix(v));
}

// A pass starts every retention_interval and goes on, a step (one short
// transaction) at a time, for at most retention_slice per loop turn.
void StorageWriter::maybe_retain(bool stopping) {
  if (stopping || !newest_) return;
  auto now = std::chrono::steady_clock::now();
  if (!retention_running_ && now >= next_retention_) {
    retention_running_ = true;
    next_retention_ = now + options_.retention_interval;
  }
  auto deadline = now + options_.retention_slice;
  while (retention_running_ && std::chrono::steady_clock::now() < deadline) {
    if (!retain_step()) retention_running_ = false;
  }
}

// Returns whether the pass has more steps to take. The database is never
// touched with mu_ held: the sampler's push_sample takes it.
bool StorageWriter::retain_step() {
  auto step = store_->tiers().apply_retention(options_.retention, RetentionNow{boot_, newest_->t_ns, newest_->wall_ns});
  if (!step) {
    note_retention_error(step.error());
    return false;
  }
  std::optional<StoreFootprint> footprint;
  const auto now = std::chrono::steady_clock::now();
  if (!step->more && (!next_footprint_ || now >= *next_footprint_)) {
    auto f = store_->tiers().footprint();
    if (f) {
      footprint = std::move(f).value();
      next_footprint_ = now + options_.footprint_interval;  // a failed one is tried again at the next pass
    }
  }
  record_retention(*step, std::move(footprint));
  wal_unsynced_ = true;
  return step->more;
}

void StorageWriter::note_retention_error(const Error& e) {
  std::lock_guard<std::mutex> lock(mu_);
  RetentionStats& r = stats_.retention;
  ++r.errors;
  if (r.last_error != e.describe())
    spdlog::warn("storage: retention failed ({}); will retry in the next pass", e.describe());
  r.last_error = e.describe();
}

// A step without `more` ends the pass; a footprint, when one was measured,
// comes with it.
void StorageWriter::record_retention(const RetentionStep& step, std::optional<StoreFootprint> footprint) {
  std::lock_guard<std::mutex> lock(mu_);
  RetentionStats& r = stats_.retention;
  ++r.steps;
  r.raw_chunks_downsampled += step.raw_chunks_downsampled;
  r.second_rows_downsampled += step.second_rows_downsampled;
  r.minute_rows_deleted += step.minute_rows_deleted;
  r.context_rows_deleted += step.context_rows_deleted;
  r.budget_bytes_used = step.budget_bytes_used;
  if (step.over_budget && !r.over_budget) {
    spdlog::warn(
        "storage: the database needs more than disk_budget_mb even with every tier shortened; "
        "keeping the newest raw minutes");
  }
  r.over_budget = step.over_budget;
  if (step.more) return;
  ++r.passes;
  r.last_error.clear();
  if (!footprint) return;
  r.footprint = std::move(footprint);
  r.footprint_at = std::chrono::steady_clock::now();
  ++r.footprints;
}

Status StorageWriter::write_mark(MarkOp& op, std::vector<std::pair<MarkOp*, RunRecord>>& done) {
  RunRecord rec = op.run;
  rec.boot = boot_;
  if (op.kind == MarkOp::Kind::kStart) {
    auto id = store_->runs().insert(rec);
    if (!id) return id.take_error();
    rec.id = *id;
  } else {
    auto st = write_stop(op, rec);
    if (!st) return st;
  }
  done.emplace_back(&op, rec);
  return ok_status();
}

// The stop, its merged tags and its clocks, in the mark's transaction: all
// of them are durable once the stop is acknowledged.
Status StorageWriter::write_stop(const MarkOp& op, RunRecord& rec) {
  auto st = store_->runs().finish(rec.id, rec.stop_ns.value_or(0), rec.stop_wall_ns.value_or(0), RunState::kStopped);
  if (!st) return st;
  rec.state = RunState::kStopped;
  if (op.store_start) {
    st = store_->runs().set_start(rec.id, rec.start_ns, rec.start_wall_ns);
    if (!st) return st;
  }
  if (op.store_tags) {
    st = store_->runs().set_tags(rec.id, rec.tags_json);
    if (!st) return st;
  }
  if (op.store_items && rec.items) {
    st = store_->runs().set_items(rec.id, *rec.items);
    if (!st) return st;
  }
  if (!op.clocks) return ok_status();
  rec.clocks_json = op.clocks(rec);
  return store_->runs().set_clocks(rec.id, *rec.clocks_json);
}

}  // namespace energy::daemon

namespace energy::daemon {

// Opened once the database is, while the chunker has no open chunk the
// tail would lack. Without it, the open chunk is committed every flush.
void StorageWriter::open_tail() {
  auto t = SweepTailFile::open(store_->tail_path());
  if (!t) {
    auto v = log_limit_.allow("storage.tail");
    if (v.log)
      spdlog::warn("storage: {}; committing the open chunk at every flush instead{}", t.error().describe(),
                   LogLimiter::suffix(v));
    return;
  }
  tail_ = std::move(t).value();
}

std::optional<StoredCounters> StorageWriter::tail_counters() const {
  if (!counted_) return std::nullopt;
  return to_stored(*counted_);
}

// Returns whether every absorbed sweep is in the tail (in the kernel). A
// failed append gives the tail up: what it holds is replayed, without
// duplicates, at the next start, and the open chunk is committed instead.
bool StorageWriter::append_tail() {
  if (!tail_) return false;
  if (tail_fresh_.empty()) return true;
  // The sweeps are moved into the frame and back (no copy of a second's
  // sweeps, 1,000 at 1 ms, on the heap; the vector keeps its capacity).
  TailFrame frame{boot_, rail_ids_, std::move(tail_fresh_), tail_counters()};
  auto st = tail_->append(frame);
  tail_fresh_ = std::move(frame.sweeps);
  if (!st) {
    spdlog::warn("storage: {}; committing the open chunk at every flush instead", st.error().describe());
    tail_.reset();
    tail_fresh_.clear();
    open_sweeps_.clear();
    return false;
  }
  spares_.give(tail_fresh_);
  tail_unsynced_ = true;
  std::lock_guard<std::mutex> lock(mu_);
  stats_.samples_written += uncommitted_sweeps_;
  uncommitted_sweeps_ = 0;
  return true;
}

Status StorageWriter::sync_tail() {
  if (!tail_unsynced_) return ok_status();
  auto st = tail_->sync();
  if (st) tail_unsynced_ = false;
  return st;
}

// After a synced commit of the closed chunks the tail needs only the open
// chunk's sweeps: a new file with them replaces it (synced and renamed, so
// a crash leaves the old tail or the new one, each enough to replay).
void StorageWriter::rewrite_tail() {
  std::string path = tail_->path(), bytes;
  if (!open_sweeps_.empty()) {
    TailFrame kept{boot_, rail_ids_, std::move(open_sweeps_), tail_counters()};  // moved back: not copied
    auto frame = encode_tail_frame(kept);
    open_sweeps_ = std::move(kept.sweeps);
    if (frame) bytes = std::move(frame).value();
  }
  tail_.reset();  // its lock goes with it; this thread is the only one to open the tail
  auto st = replace_file_durably(path, bytes);
  if (!st)
    spdlog::warn("storage: cannot replace the sweep tail ({}); it keeps its older sweeps", st.error().describe());
  open_tail();
  if (tail_) tail_unsynced_ = false;
}

// At a clean stop, after the open chunk's commit: nothing is left to replay.
void StorageWriter::remove_tail() {
  std::string path = tail_->path();
  tail_.reset();
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    spdlog::warn("storage: cannot remove the sweep tail {} ({}); the next start replays it", path,
                 std::strerror(errno));
}

}  // namespace energy::daemon
