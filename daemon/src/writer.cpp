#include "writer.h"

#include <spdlog/spdlog.h>

namespace energy::daemon {

StorageWriter::StorageWriter(std::unique_ptr<Store> store, int64_t boot, std::vector<ChunkRail> rails,
                             std::vector<RailCursor> resume, WriterOptions options)
    : store_(std::move(store)),
      boot_(boot),
      options_(options),
      chunker_(boot, std::move(rails), options.chunk_sweeps, std::move(resume)) {}

StorageWriter::~StorageWriter() { stop(); }

void StorageWriter::start() { thread_ = std::thread([this] { loop(); }); }

void StorageWriter::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

void StorageWriter::push_sample(const Sample& sample) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.emplace_back(sample);
}

void StorageWriter::push_mark(MarkOp op) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.emplace_back(std::move(op));
    mark_waiting_ = true;
  }
  cv_.notify_one();
}

WriterStats StorageWriter::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  WriterStats s = stats_;
  for (const auto& item : queue_) s.queued += std::holds_alternative<Sample>(item) ? 1 : 0;
  return s;
}

void StorageWriter::loop() {
  auto next_flush = std::chrono::steady_clock::now() + options_.flush_interval;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait_until(lock, next_flush, [this] { return stopping_ || mark_waiting_; });
    bool last = stopping_;
    std::deque<Item> batch;
    batch.swap(queue_);
    mark_waiting_ = false;
    lock.unlock();
    absorb(batch);
    if (flush()) maybe_checkpoint(last);
    lock.lock();
    if (last) break;
    next_flush = std::chrono::steady_clock::now() + options_.flush_interval;
  }
}

// Samples go into the chunker (never lost to a failed commit); marks wait
// in order behind the samples that preceded them.
void StorageWriter::absorb(std::deque<Item>& batch) {
  for (auto& item : batch) {
    if (auto* s = std::get_if<Sample>(&item)) {
      chunker_.add(*s);
      ++uncommitted_sweeps_;
      for (auto& c : chunker_.take_closed()) pending_.push_back(std::move(c));
    }
    if (auto* m = std::get_if<MarkOp>(&item)) marks_.push_back(std::move(*m));
  }
  bound_pending();
}

void StorageWriter::bound_pending() {
  int64_t dropped = 0;
  while (pending_.size() > options_.max_pending_chunks) {
    dropped += pending_.front().sweeps;
    pending_.erase(pending_.begin());
  }
  if (dropped == 0) return;
  uncommitted_sweeps_ -= dropped;
  std::lock_guard<std::mutex> lock(mu_);
  stats_.dropped_samples += dropped;
}

// One transaction: pending chunks, the open chunk, then marks in order.
bool StorageWriter::flush() {
  if (uncommitted_sweeps_ == 0 && marks_.empty() && pending_.empty()) return true;
  std::vector<std::pair<MarkOp*, RunRecord>> done;
  Status st = write_pending(done);
  std::lock_guard<std::mutex> lock(mu_);
  if (!st) {
    (void)store_->rollback();  // ends the failed transaction; nothing of it was stored
    ++stats_.failed_commits;
    if (stats_.last_error != st.error().describe()) {
      spdlog::warn("storage: cannot commit ({}); keeping data in memory and retrying", st.error().describe());
    }
    stats_.last_error = st.error().describe();
    return false;
  }
  if (!stats_.last_error.empty()) spdlog::info("storage: writing again");
  ++stats_.commits;
  stats_.last_error.clear();
  stats_.samples_written += uncommitted_sweeps_;
  uncommitted_sweeps_ = 0;
  pending_.clear();
  for (auto& [op, rec] : done) op->done(rec);
  marks_.clear();
  return true;
}

// Samples are synced at checkpoints; a transaction that carries a mark syncs
// its WAL at commit, because someone is told the mark is stored.
Status StorageWriter::write_pending(std::vector<std::pair<MarkOp*, RunRecord>>& done) {
  auto st = store_->set_durability(marks_.empty() ? Store::Durability::kBatched : Store::Durability::kSynced);
  if (!st) return st;
  st = store_->begin();
  if (!st) return st;
  for (const auto& c : pending_) {
    st = store_->put_chunk(c);
    if (!st) return st;
  }
  st = store_->put_chunk(chunker_.open_chunk());
  if (!st) return st;
  for (auto& m : marks_) {
    st = write_mark(m, done);
    if (!st) return st;
  }
  return store_->commit();
}

// A clean stop always checkpoints, so nothing waits in the WAL.
void StorageWriter::maybe_checkpoint(bool force) {
  auto now = std::chrono::steady_clock::now();
  if (now - last_checkpoint_ < options_.checkpoint_interval && !force) return;
  last_checkpoint_ = now;
  auto st = store_->checkpoint();
  if (!st) spdlog::warn("storage: checkpoint failed ({}); will retry", st.error().describe());
}

Status StorageWriter::write_mark(MarkOp& op, std::vector<std::pair<MarkOp*, RunRecord>>& done) {
  RunRecord rec = op.run;
  rec.boot = boot_;
  if (op.kind == MarkOp::Kind::kStart) {
    auto id = store_->insert_run(rec);
    if (!id) return id.take_error();
    rec.id = *id;
  } else {
    auto st = store_->finish_run(rec.id, rec.stop_ns.value_or(0), rec.stop_wall_ns.value_or(0), RunState::kStopped);
    if (!st) return st;
    rec.state = RunState::kStopped;
  }
  done.emplace_back(&op, rec);
  return ok_status();
}

}  // namespace energy::daemon
