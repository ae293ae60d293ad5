#include "writer.h"

#include <spdlog/spdlog.h>

namespace energy::daemon {

StorageWriter::StorageWriter(std::unique_ptr<Store> store, int64_t boot, std::vector<int64_t> rail_ids,
                             std::chrono::milliseconds flush_interval, size_t max_queued_samples)
    : store_(std::move(store)),
      boot_(boot),
      rail_ids_(std::move(rail_ids)),
      flush_interval_(flush_interval),
      max_queued_samples_(max_queued_samples) {}

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
  if (queued_samples_ >= max_queued_samples_) {
    // Drop the oldest sample, never a mark: marks were acknowledged to nobody yet
    // but a user waits on each of them.
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      if (std::holds_alternative<Sample>(*it)) {
        queue_.erase(it);
        --queued_samples_;
        ++stats_.dropped_samples;
        break;
      }
    }
  }
  queue_.emplace_back(sample);
  ++queued_samples_;
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
  s.queued = static_cast<int64_t>(queued_samples_);
  return s;
}

void StorageWriter::loop() {
  auto next_flush = std::chrono::steady_clock::now() + flush_interval_;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait_until(lock, next_flush, [this] { return stopping_ || mark_waiting_; });
    bool last = stopping_;
    std::deque<Item> batch;
    batch.swap(queue_);
    queued_samples_ = 0;
    mark_waiting_ = false;
    lock.unlock();
    bool ok = flush(batch);
    lock.lock();
    if (!ok) {  // put the batch back in front of newer items; retried next time
      for (auto it = batch.rbegin(); it != batch.rend(); ++it) {
        if (std::holds_alternative<Sample>(*it)) ++queued_samples_;
        queue_.push_front(std::move(*it));
      }
    }
    if (last) break;
    next_flush = std::chrono::steady_clock::now() + flush_interval_;
  }
}

// Writes one batch in one transaction; completions run after the commit.
bool StorageWriter::flush(std::deque<Item>& batch) {
  if (batch.empty()) return true;
  std::vector<std::pair<MarkOp*, RunRecord>> marks;
  Status st = write_batch(batch, marks);
  std::lock_guard<std::mutex> lock(mu_);
  if (!st) {
    ++stats_.failed_commits;
    stats_.last_error = st.error().describe();
    spdlog::warn("storage: cannot commit {} queued items: {}; will retry", batch.size(), stats_.last_error);
    (void)store_->rollback();  // ends the failed transaction; nothing of it was stored
    return false;
  }
  ++stats_.commits;
  stats_.last_error.clear();
  for (auto& item : batch) {
    if (std::holds_alternative<Sample>(item)) ++stats_.samples_written;
  }
  for (auto& [op, rec] : marks) op->done(rec);
  return true;
}

Status StorageWriter::write_batch(std::deque<Item>& batch, std::vector<std::pair<MarkOp*, RunRecord>>& marks) {
  auto st = store_->begin();
  if (!st) return st;
  for (auto& item : batch) {
    if (auto* s = std::get_if<Sample>(&item)) st = store_->append(boot_, *s, rail_ids_);
    if (auto* m = std::get_if<MarkOp>(&item)) st = write_mark(*m, marks);
    if (!st) return st;
  }
  return store_->commit();
}

Status StorageWriter::write_mark(MarkOp& op, std::vector<std::pair<MarkOp*, RunRecord>>& marks) {
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
  marks.emplace_back(&op, rec);
  return ok_status();
}

}  // namespace energy::daemon
