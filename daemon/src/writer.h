// StorageWriter: moves samples and marks from memory into the Store on its
// own thread, in batched transactions, so that an fsync that takes a second
// delays no tick.
//
// Samples are committed every flush interval. A mark is committed together
// with every sample before it, and its completion runs only after the
// commit: an acknowledged mark is on disk. If the database refuses a batch,
// the items stay queued (bounded; the oldest samples beyond the bound are
// dropped and counted) and the batch is retried on the next flush.
//
// Thread-safety: push_* and stats from any thread; start/stop from the owner.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "energy/store.h"
#include "sampler.h"

namespace energy::daemon {

// A run to open or close. `done` runs on the writer thread after the commit
// with the stored record (id filled in) or the storage error.
struct MarkOp {
  enum class Kind { kStart, kStop };
  Kind kind = Kind::kStart;
  RunRecord run;  // kStart: name, tags, start times; kStop: id, stop times
  std::function<void(Result<RunRecord>)> done;
};

struct WriterStats {
  int64_t samples_written = 0;
  int64_t commits = 0;
  int64_t queued = 0;
  int64_t dropped_samples = 0;
  int64_t failed_commits = 0;
  std::string last_error;  // empty while healthy
};

class StorageWriter final : public SampleSink {
 public:
  StorageWriter(std::unique_ptr<Store> store, int64_t boot, std::vector<int64_t> rail_ids,
                std::chrono::milliseconds flush_interval, size_t max_queued_samples);
  ~StorageWriter() override;

  void start();
  void stop();  // flushes everything still queued
  void push_sample(const Sample& sample) override;
  void push_mark(MarkOp op);
  WriterStats stats() const;
  int64_t boot() const { return boot_; }

 private:
  using Item = std::variant<Sample, MarkOp>;
  void loop();
  bool flush(std::deque<Item>& batch);
  Status write_batch(std::deque<Item>& batch, std::vector<std::pair<MarkOp*, RunRecord>>& marks);
  Status write_mark(MarkOp& op, std::vector<std::pair<MarkOp*, RunRecord>>& marks);

  std::unique_ptr<Store> store_;
  int64_t boot_;
  std::vector<int64_t> rail_ids_;
  std::chrono::milliseconds flush_interval_;
  size_t max_queued_samples_;
  std::thread thread_;

  mutable std::mutex mu_;  // guards the members below
  std::condition_variable cv_;
  std::deque<Item> queue_;
  size_t queued_samples_ = 0;
  bool mark_waiting_ = false;
  bool stopping_ = false;
  WriterStats stats_;
};

}  // namespace energy::daemon
