// StorageWriter driven directly on a database in a temporary directory:
// batched transactions at the flush interval, a mark committed together
// with every sample before it, stop flushing what is queued, and storage
// errors: a database that cannot be opened or refuses transactions loses
// no sweep (within the bound), refuses marks, and catches up once it works.
#include "writer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

#include <stdlib.h>

#include "../libenergy/temp_store.h"
#include "../time_units.h"
#include "store_session.h"

namespace energy::daemon {
namespace {

using core_test::eventually;
using core_test::open_test_session;
using std::chrono::milliseconds;

class WriterTest : public ::testing::Test {
 protected:
  WriterTest() {
    rails_ = two_test_rails(2);
    path_ = dir_.path() + "/energy.db";
  }

  // An opener that fails while `refuse_open_` is set and hands out bad rail
  // ids (every transaction is refused) while `refuse_commit_` is set.
  StoreOpener opener() {
    return [this]() -> Result<StoreSession> {
      ++opens_;
      if (refuse_open_) return make_error(ErrorCode::kStorage, "test: the disk is gone");
      auto s = open_test_session(path_, rails_);
      if (s && refuse_commit_) s->rail_ids.push_back(999);  // one id more than the chunks' rails
      return s;
    };
  }
  std::unique_ptr<StorageWriter> writer(WriterOptions o) {
    return std::make_unique<StorageWriter>(
        opener(), [this](const std::vector<RunRecord>& runs) { opened_runs_ = static_cast<int>(runs.size()); }, o);
  }
  static WriterOptions slow_flush() {
    WriterOptions o;
    o.flush_interval = milliseconds(3'600'000);  // never comes in a test: only marks and stop commit
    o.chunk_sweeps = 4;
    return o;
  }
  // Flushes to the tail every 5 ms; commits when two chunks of 4 have closed.
  static WriterOptions tail_flush() {
    WriterOptions o = slow_flush();
    o.flush_interval = milliseconds(5);
    o.seal_chunks = 2;
    return o;
  }
  Sample sample(int64_t i) const {
    return Sample{(1000 + i * 100) * kMs,
                  (5000 + i * 100) * kMs,
                  {RailValue{5'000'000, 5000, 1000, 0}, RailValue{1'000'000, 5000, 200, 0}}};
  }
  void push(StorageWriter& w, int64_t from, int64_t n) {
    for (int64_t i = from; i < from + n; ++i) w.push_sample(sample(i));
  }
  // Pushes a start mark and waits for its completion.
  Result<RunRecord> mark(StorageWriter& w, const std::string& name) {
    auto promise = std::make_shared<std::promise<Result<RunRecord>>>();
    MarkOp op;
    op.run.name = name;
    op.run.start_ns = 1 * kMs;
    op.done = [promise](Result<RunRecord> r) { promise->set_value(std::move(r)); };
    w.push_mark(std::move(op));
    return promise->get_future().get();
  }
  // Pushes a write and waits for its completion; `answer` gets what apply said.
  Status write(StorageWriter& w, std::function<Status(Store&)> apply) {
    auto promise = std::make_shared<std::promise<Status>>();
    w.push_write(StoreWrite{std::move(apply), [promise](const Status& st) { promise->set_value(st); }});
    return promise->get_future().get();
  }
  // The counters the database holds (a reader: what a kill -9 would leave).
  std::optional<StoredCounters> stored_counters() {
    auto reader = Store::open(path_, StoreRole::kReader, 1000);
    if (!reader) return std::nullopt;
    auto c = (*reader)->counters().get();
    EXPECT_TRUE(c.ok()) << c.error().describe();
    return c ? *c : std::nullopt;
  }
  // The store's own energy of `label` over [sample(from), sample(to)].
  double store_energy_uj(const std::string& label, int64_t from, int64_t to) {
    auto reader = Store::open(path_, StoreRole::kReader, 1000);
    if (!reader) return -1;
    auto rails = (*reader)->rails();
    if (!rails) return -1;
    for (const auto& r : *rails) {
      if (r.label != label) continue;
      auto e = (*reader)->readings().energy_uj(1, r.id, EnergyWindow{sample(from).t_ns, sample(to).t_ns});
      return e && e->has_value() ? **e : -1;
    }
    return -1;
  }
  std::vector<CounterRail> counter_rails() const { return {{"VDD_IN", 0}, {"VDD_SOC", 0}}; }
  int64_t stored_sweeps() {
    auto reader = Store::open(path_, StoreRole::kReader, 1000);
    if (!reader) return -1;
    auto n = (*reader)->readings().sample_count();
    return n ? *n : -1;
  }

  // Whether every one of the first n sweeps of `sweep` is stored with its
  // own time and power on both rails (a reader: the tail's sweeps and the
  // chunks); `why` says what differed.
  bool stored_exactly(const std::function<Sample(int64_t)>& sweep, int64_t n, std::string& why) {
    auto reader = Store::open(path_, StoreRole::kReader, 1000);
    if (!reader) return (why = reader.error().describe()), false;
    auto rails = (*reader)->rails();
    if (!rails || rails->size() != 2) return (why = "not two rails"), false;
    for (size_t r = 0; r < 2; ++r) {
      const std::string& label = (*rails)[r].label;
      auto points =
          (*reader)->readings().rail_points(1, (*rails)[r].id, EnergyWindow{sweep(0).t_ns, sweep(n - 1).t_ns});
      if (!points) return (why = points.error().describe()), false;
      if (points->size() != static_cast<size_t>(n))
        return (why = label + ": " + std::to_string(points->size()) + " points"), false;
      for (int64_t i = 0; i < n; ++i) {
        const auto& p = (*points)[static_cast<size_t>(i)];
        if (p.t_ns != sweep(i).t_ns || p.power_uw != sweep(i).values[r].power_uw)
          return (why = label + " sweep " + std::to_string(i) + ": " + std::to_string(p.t_ns) + " ns, " +
                        std::to_string(p.power_uw) + " uW"),
                 false;
      }
    }
    return true;
  }

  core_test::TempDir dir_;
  std::string path_;
  std::vector<RailInfo> rails_;
  std::atomic<bool> refuse_open_{false};
  std::atomic<bool> refuse_commit_{false};
  std::atomic<int> opens_{0};
  std::atomic<int> opened_runs_{-1};
};

// How many queued sweeps wake the writer with a ring: a checkpoint
// interval's (10 s) on the issue's 3-rail board, capped at 2048 sweeps and
// at 6144 rail readings, never under 2048 ms of sweeps.
TEST(RingWakeSweeps, ACheckpointsSweepsCappedBySweepsAndReadingsButNeverUnderAbout2s) {
  EXPECT_EQ(StorageWriter::ring_wake_sweeps(100, 10000, 3), 101u);   // a checkpoint's
  EXPECT_EQ(StorageWriter::ring_wake_sweeps(10, 10000, 3), 1001u);   // a checkpoint's
  EXPECT_EQ(StorageWriter::ring_wake_sweeps(1, 10000, 3), 2048u);    // at most 2048
  EXPECT_EQ(StorageWriter::ring_wake_sweeps(100, 10000, 12), 101u);  // 1212 readings: a checkpoint's
  EXPECT_EQ(StorageWriter::ring_wake_sweeps(10, 10000, 12), 512u);   // 6144 readings of 12 rails
  EXPECT_EQ(StorageWriter::ring_wake_sweeps(1, 10000, 12), 2048u);   // never under 2048 ms
  EXPECT_EQ(StorageWriter::ring_wake_sweeps(2, 10000, 64), 1024u);
  EXPECT_EQ(StorageWriter::ring_wake_sweeps(100, 1000, 3), 11u);  // a short checkpoint interval
  EXPECT_EQ(StorageWriter::ring_wake_sweeps(0, 0, 0), 1u);        // nonsense in, still one
}

TEST_F(WriterTest, SamplesWaitForTheNextCommitAndAMarkCommitsEverySampleBeforeIt) {
  auto w = writer(slow_flush());
  w->start();
  push(*w, 0, 10);  // two closed chunks of 4 and an open one of 2
  EXPECT_TRUE(eventually([&] { return w->stats().open; }));
  EXPECT_EQ(w->stats().commits, 0);
  EXPECT_EQ(w->stats().queued, 10);
  auto rec = mark(*w, "first");
  ASSERT_TRUE(rec.ok()) << rec.error().describe();
  EXPECT_GT(rec->id, 0);
  EXPECT_EQ(rec->name, "first");
  auto st = w->stats();
  EXPECT_EQ(st.commits, 1);
  EXPECT_EQ(st.samples_written, 10);
  EXPECT_EQ(st.queued, 0);
  EXPECT_EQ(stored_sweeps(), 10);  // acknowledged: already in the database
  w->stop();
}

// Every flush interval the sweeps go to the sweep tail, where readers see
// them; the database gets a commit only once seal_chunks chunks have closed.
TEST_F(WriterTest, TheFlushIntervalWritesTheTailAndTheDatabaseGetsOnlyClosedChunksTogether) {
  auto w = writer(tail_flush());
  w->start();
  push(*w, 0, 6);
  ASSERT_TRUE(eventually([&] { return w->stats().samples_written == 6; }));
  EXPECT_EQ(w->stats().commits, 0);  // one chunk of 4 closed: held in the tail
  EXPECT_EQ(stored_sweeps(), 6);     // a reader sees the tail's sweeps
  push(*w, 6, 3);
  ASSERT_TRUE(eventually([&] { return w->stats().samples_written == 9 && w->stats().commits == 1; }));
  EXPECT_EQ(stored_sweeps(), 9);
  w->stop();
  EXPECT_EQ(w->stats().commits, 2);  // the clean stop commits the open chunk
  EXPECT_EQ(stored_sweeps(), 9);
  EXPECT_FALSE(std::filesystem::exists(path_ + "-tail"));
}

TEST_F(WriterTest, StopFlushesEverythingStillQueued) {
  auto w = writer(slow_flush());
  w->start();
  push(*w, 0, 7);
  w->stop();
  EXPECT_EQ(w->stats().samples_written, 7);
  EXPECT_EQ(w->stats().commits, 1);
  EXPECT_EQ(stored_sweeps(), 7);
}

// The sampler's sweeps are staged back to back (StorageWriter::StagedSweeps);
// 5000 sweeps are 360 KiB, beyond what a staging set keeps after a drain,
// so the sets are dropped and grown again. Every reading must come back
// where it was pushed, across a drain in the middle (a mark's).
TEST_F(WriterTest, SweepsStagedBeyondTheKeptCapacityComeBackExactlyAndInOrder) {
  WriterOptions o = slow_flush();
  o.chunk_sweeps = 500;
  auto w = writer(o);
  w->start();
  constexpr int64_t kSweeps = 5000;
  auto varied = [](int64_t i) {
    return Sample{(5000 + i * 100) * kMs,
                  (5000 + i * 100) * kMs,
                  {RailValue{1'000'000 + (i % 7) * 100'000, 5000, 200 + static_cast<int32_t>(i % 7) * 20, 0},
                   RailValue{2'000'000 + (i % 5) * 10'000, 5000, 400 + static_cast<int32_t>(i % 5) * 2, 0}}};
  };
  for (int64_t i = 0; i < kSweeps / 2; ++i) w->push_sample(varied(i));
  ASSERT_TRUE(mark(*w, "middle").ok());
  for (int64_t i = kSweeps / 2; i < kSweeps; ++i) w->push_sample(varied(i));
  w->stop();
  EXPECT_EQ(stored_sweeps(), kSweeps);
  std::string why;
  EXPECT_TRUE(stored_exactly(varied, kSweeps, why)) << why;
}

// Absorbed sweeps take the buffers of sweeps the tail has taken and of
// chunks that closed (StorageWriter::SpareSamples). In batches, each
// appended to the tail before the next comes, and with a chunk closing
// every 4 sweeps, each reading must still be the one pushed: in what a
// reader sees while the writer runs (the tail's sweeps and the committed
// chunks) and after the stop.
TEST_F(WriterTest, SweepsKeepTheirOwnReadingsWhenTheirBuffersAreReused) {
  auto w = writer(tail_flush());
  w->start();
  auto varied = [](int64_t i) {
    return Sample{(5000 + i * 100) * kMs,
                  (5000 + i * 100) * kMs,
                  {RailValue{5000 * (200 + i), 5000, 200 + static_cast<int32_t>(i), 0},  // power = V x I, as stored
                   RailValue{5000 * (600 - i), 5000, 600 - static_cast<int32_t>(i), 0}}};
  };
  constexpr int64_t kBatch = 5, kBatches = 9;
  constexpr int64_t kSweeps = kBatch * kBatches;
  // A fresh reader after each batch, while the writer commits and rewrites
  // its tail, sees each sweep once (store_tail.cpp's snapshot), and each
  // reading is the one pushed.
  std::string why;
  for (int64_t b = 0; b < kBatches; ++b) {
    for (int64_t i = b * kBatch; i < (b + 1) * kBatch; ++i) w->push_sample(varied(i));
    ASSERT_TRUE(eventually([&] { return w->stats().samples_written == (b + 1) * kBatch; })) << "batch " << b;
    EXPECT_TRUE(stored_exactly(varied, (b + 1) * kBatch, why)) << "running, batch " << b << ": " << why;
  }
  EXPECT_GE(w->stats().commits, 1);  // chunks closed (their buffers came back) and were committed
  w->stop();
  EXPECT_TRUE(stored_exactly(varied, kSweeps, why)) << "stopped: " << why;
}

TEST_F(WriterTest, OpenNowOpensOnTheCallersThreadAndReturnsThisBootsOpenRuns) {
  {
    auto w = writer(slow_flush());
    w->start();
    ASSERT_TRUE(mark(*w, "left-open").ok());
    w->stop();
  }
  auto w = writer(slow_flush());
  auto runs = w->open_now();
  ASSERT_TRUE(runs.has_value());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ(runs->front().name, "left-open");
  EXPECT_TRUE(w->stats().open);
  refuse_open_ = true;
  auto w2 = writer(slow_flush());
  EXPECT_FALSE(w2->open_now().has_value());
  EXPECT_FALSE(w2->stats().open);
}

TEST_F(WriterTest, WhileTheDatabaseCannotBeOpenedMarksAreRefusedAndSweepsWait) {
  refuse_open_ = true;
  WriterOptions o = slow_flush();
  o.flush_interval = milliseconds(5);
  o.reopen_interval = milliseconds(0);
  auto w = writer(o);
  w->start();
  push(*w, 0, 5);
  auto rec = mark(*w, "refused");
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.error().code, ErrorCode::kStorage);
  EXPECT_NE(rec.error().describe().find("the disk is gone"), std::string::npos) << rec.error().describe();
  EXPECT_FALSE(w->stats().open);
  EXPECT_NE(w->stats().last_error.find("the disk is gone"), std::string::npos);
  EXPECT_EQ(opened_runs_, -1);
  refuse_open_ = false;
  ASSERT_TRUE(eventually([&] { return w->stats().samples_written == 5; }));
  EXPECT_TRUE(w->stats().open);
  EXPECT_TRUE(w->stats().last_error.empty());
  EXPECT_EQ(opened_runs_, 0);  // on_open ran once the database opened
  w->stop();
  EXPECT_EQ(stored_sweeps(), 5);
}

TEST_F(WriterTest, SweepsBeyondThePendingBoundAreDroppedOldestFirstAndCounted) {
  refuse_open_ = true;
  WriterOptions o = slow_flush();
  o.flush_interval = milliseconds(5);
  o.reopen_interval = milliseconds(0);
  o.max_pending_chunks = 1;  // with chunk_sweeps 4: at most 4 sweeps wait for the database
  auto w = writer(o);
  w->start();
  push(*w, 0, 10);
  ASSERT_TRUE(eventually([&] { return w->stats().dropped_samples == 6; }));
  refuse_open_ = false;
  ASSERT_TRUE(eventually([&] { return w->stats().samples_written == 4; }));
  w->stop();
  EXPECT_EQ(w->stats().dropped_samples, 6);
  auto reader = Store::open(path_, StoreRole::kReader, 1000);
  ASSERT_TRUE(reader.ok());
  auto last = (*reader)->readings().last_sample_ns(1);
  ASSERT_TRUE(last.ok() && last->has_value());
  EXPECT_EQ(**last, sample(9).t_ns);  // the newest were kept
}

TEST_F(WriterTest, ARefusedTransactionKeepsItsSweepsRefusesItsMarkAndIsRetriedAfterAReopen) {
  refuse_commit_ = true;
  WriterOptions o = slow_flush();
  o.consecutive_failures_before_reopen = 2;
  o.reopen_interval = milliseconds(0);
  auto w = writer(o);
  w->start();
  push(*w, 0, 6);
  auto first = mark(*w, "during-failure");  // failure 1: refused, not acknowledged as stored
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(w->stats().failed_commits, 1);
  EXPECT_EQ(w->stats().samples_written, 0);
  EXPECT_TRUE(w->stats().open);
  ASSERT_FALSE(mark(*w, "still-failing").ok());               // failure 2: the database is closed for a reopen
  EXPECT_TRUE(eventually([&] { return !w->stats().open; }));  // right after the mark's refusal
  refuse_commit_ = false;
  push(*w, 6, 1);
  auto ok = mark(*w, "after-reopen");
  ASSERT_TRUE(ok.ok()) << ok.error().describe();
  auto st = w->stats();
  EXPECT_EQ(st.samples_written, 7);  // the refused transactions' sweeps were not lost
  EXPECT_EQ(st.failed_commits, 2);
  EXPECT_TRUE(st.last_error.empty());
  EXPECT_EQ(opens_, 2);
  w->stop();
  EXPECT_EQ(stored_sweeps(), 7);
  auto reader = Store::open(path_, StoreRole::kReader, 1000);
  ASSERT_TRUE(reader.ok());
  auto open = (*reader)->runs().in_state(RunState::kOpen);
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 1u);  // the refused marks left nothing behind
  EXPECT_EQ(open->front().name, "after-reopen");
}

TEST_F(WriterTest, AStopMarkStoresTheStopItsTagsAndItsClocks) {
  auto w = writer(slow_flush());
  w->start();
  push(*w, 0, 3);
  auto started = mark(*w, "job");
  ASSERT_TRUE(started.ok());
  push(*w, 3, 3);
  auto promise = std::make_shared<std::promise<Result<RunRecord>>>();
  MarkOp op;
  op.kind = MarkOp::Kind::kStop;
  op.run = *started;
  op.run.stop_ns = sample(5).t_ns;
  op.run.stop_wall_ns = sample(5).wall_ns;
  op.run.tags_json = R"({"result":"ok"})";
  op.store_tags = true;
  op.clocks = [](const RunRecord& r) { return R"({"clock_pins":[],"run":)" + std::to_string(r.id) + "}"; };
  op.done = [promise](Result<RunRecord> r) { promise->set_value(std::move(r)); };
  w->push_mark(std::move(op));
  auto stopped = promise->get_future().get();
  ASSERT_TRUE(stopped.ok()) << stopped.error().describe();
  EXPECT_EQ(stopped->state, RunState::kStopped);
  EXPECT_EQ(w->stats().samples_written, 6);
  w->stop();
  auto reader = Store::open(path_, StoreRole::kReader, 1000);
  ASSERT_TRUE(reader.ok());
  auto rec = (*reader)->runs().by_id(started->id);
  ASSERT_TRUE(rec.ok() && rec->has_value());
  EXPECT_EQ((*rec)->state, RunState::kStopped);
  EXPECT_EQ((*rec)->stop_ns, sample(5).t_ns);
  EXPECT_EQ((*rec)->tags_json, R"({"result":"ok"})");
  ASSERT_TRUE((*rec)->clocks_json.has_value());
  EXPECT_EQ(*(*rec)->clocks_json, R"({"clock_pins":[],"run":)" + std::to_string(started->id) + "}");
}

// Counted under the queue's lock, snapshotted with the drain: whatever is
// committed, the stored counters count exactly the committed sweeps, which
// is what a kill -9 leaves.
TEST_F(WriterTest, TheStoredCountersCountExactlyTheCommittedSweeps) {
  EnergyCounters counters(counter_rails(), 42);
  EnergyCounters committed(counter_rails(), 0);  // the same sweeps as the commit, counted apart
  auto w = writer(slow_flush());
  w->count_with(counters);
  w->start();
  push(*w, 0, 10);
  for (int64_t i = 0; i < 10; ++i) committed.count(sample(i));
  ASSERT_TRUE(mark(*w, "commit").ok());
  push(*w, 10, 5);  // counted, not yet committed
  auto at_commit = stored_counters();
  ASSERT_TRUE(at_commit.has_value());
  EXPECT_EQ(at_commit->counters_id, counters.snapshot().counters_id);
  EXPECT_EQ(at_commit->created_wall_ns, 42);
  ASSERT_EQ(at_commit->energy_uj.size(), 2u);
  auto want = committed.snapshot();
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(at_commit->energy_uj[i].first, want.labels[i]);
    EXPECT_DOUBLE_EQ(at_commit->energy_uj[i].second, want.energy_uj[i]) << want.labels[i];
  }
  // 9 intervals of 100 ms at 5 W and 1 W, as the store integrates them.
  EXPECT_NEAR(at_commit->energy_uj[0].second, 4.5e6, 1e-3);
  EXPECT_NEAR(at_commit->energy_uj[0].second, store_energy_uj("VDD_IN", 0, 9), 1e-3);
  EXPECT_NEAR(at_commit->energy_uj[1].second, store_energy_uj("VDD_SOC", 0, 9), 1e-3);
  // energy.counters counts the 5 sweeps still queued too: 5 more intervals at 5 W.
  EXPECT_NEAR(w->counters_now().energy_uj[0] - at_commit->energy_uj[0].second, 2.5e6, 1e-3);
  w->stop();  // a clean stop stores the rest
  auto at_stop = stored_counters();
  ASSERT_TRUE(at_stop.has_value());
  EXPECT_DOUBLE_EQ(at_stop->energy_uj[0].second, counters.snapshot().energy_uj[0]);
  EXPECT_NEAR(at_stop->energy_uj[0].second, store_energy_uj("VDD_IN", 0, 14), 1e-3);
}

TEST_F(WriterTest, TheFirstOpenContinuesTheStoredCountersWithoutTheDowntime) {
  StoredCounters before;
  {
    EnergyCounters counters(counter_rails(), 42);
    auto w = writer(slow_flush());
    w->count_with(counters);
    w->start();
    push(*w, 0, 11);  // 1 s: 5 J, 1 J
    w->stop();
    before = to_stored(counters.snapshot());
  }
  EnergyCounters counters(counter_rails(), 99);
  auto w = writer(slow_flush());
  w->count_with(counters);
  ASSERT_TRUE(w->open_now().has_value());
  auto s = counters.snapshot();
  EXPECT_EQ(s.counters_id, before.counters_id);
  EXPECT_EQ(s.created_wall_ns, 42);
  EXPECT_DOUBLE_EQ(s.energy_uj[0], before.energy_uj[0].second);
  w->start();
  push(*w, 100, 11);  // 89 sweeps later: the gap adds nothing; 1 s more
  w->stop();
  auto after = stored_counters();
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->counters_id, before.counters_id);
  EXPECT_NEAR(after->energy_uj[0].second, 10e6, 1e-3);
  EXPECT_NEAR(after->energy_uj[1].second, 2e6, 1e-3);
}

// A ring on /dev/shm for the writer's sweeps (sweep_ring.h).
class RingDir {
 public:
  RingDir() {
    char tmpl[] = "/dev/shm/energyd-writer-test-XXXXXX";
    if (::mkdtemp(tmpl) != nullptr) path_ = tmpl;
  }
  ~RingDir() {
    if (!path_.empty()) std::filesystem::remove_all(path_);
  }
  std::shared_ptr<SweepRing> make(size_t capacity) {
    auto r = SweepRing::create(path_ + "/sweep-ring", 2, capacity, "two rails");
    EXPECT_TRUE(r.ok()) << r.error().describe();
    return r.ok() ? std::shared_ptr<SweepRing>(std::move(r).value()) : nullptr;
  }

 private:
  std::string path_;
};

// With a ring the flush interval no longer writes the tail: the writer
// sleeps until the checkpoint, or until wake_sweeps are queued, while a
// reader takes the ring's sweeps.
TEST_F(WriterTest, WithARingTheTailWaitsForWakeSweepsAndReadersTakeTheRingsSweeps) {
  RingDir dir;
  auto ring = dir.make(64);
  ASSERT_TRUE(ring);
  WriterOptions o = slow_flush();
  o.flush_interval = milliseconds(5);  // without the ring: a tail write every 5 ms
  o.checkpoint_interval = milliseconds(3'600'000);
  auto w = writer(o);
  w->use_ring(ring, {}, 8);
  ASSERT_TRUE(w->open_now().has_value());
  w->start();
  push(*w, 0, 5);
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(w->stats().samples_written, 0) << "the tail was written before a checkpoint or wake_sweeps";
  EXPECT_EQ(w->stats().ring_path, ring->path());
  register_live_sweeps(path_, [ring](int64_t after) { return ring->since(after); });
  EXPECT_EQ(stored_sweeps(), 5) << "a reader takes the ring's sweeps";
  push(*w, 5, 3);  // 8 queued: the writer wakes
  EXPECT_TRUE(eventually([&] { return w->stats().samples_written == 8; }));
  EXPECT_EQ(stored_sweeps(), 8);
  push(*w, 8, 2);
  EXPECT_TRUE(eventually([&] { return stored_sweeps() == 10; })) << "the ring's newest sweeps after the tail's";
  unregister_live_sweeps(path_);
  EXPECT_EQ(stored_sweeps(), 8) << "without the ring a reader has the tail alone";
  w->stop();
  EXPECT_EQ(stored_sweeps(), 10);
}

// A killed process's ring: its sweeps after those the database holds are
// stored before this process's, counted from the stored readings on.
TEST_F(WriterTest, TheFirstOpenStoresTheLeftoverSweepsAfterThoseTheDatabaseHoldsAndCountsThem) {
  {
    EnergyCounters counters(counter_rails(), 42);
    auto w = writer(slow_flush());
    w->count_with(counters);
    w->start();
    push(*w, 0, 6);
    w->stop();
  }
  RingDir dir;
  auto ring = dir.make(64);
  ASSERT_TRUE(ring);
  std::vector<Sample> leftover;
  for (int64_t i = 3; i < 11; ++i) leftover.push_back(sample(i));  // 3..5 are stored already
  EnergyCounters counters(counter_rails(), 99);
  auto w = writer(slow_flush());
  w->count_with(counters);
  w->use_ring(ring, leftover, 8);
  ASSERT_TRUE(w->open_now().has_value());
  EXPECT_EQ(w->stats().recovered_samples, 5);
  w->start();
  push(*w, 100, 11);  // this process's, after 89 sweeps of downtime
  w->stop();
  EXPECT_EQ(stored_sweeps(), 6 + 5 + 11);
  EXPECT_NEAR(store_energy_uj("VDD_IN", 0, 10), 5e6, 1e-3);  // sweeps 0..10: 1 s at 5 W, no gap
  auto after = stored_counters();
  ASSERT_TRUE(after.has_value());
  EXPECT_NEAR(after->energy_uj[0].second, 10e6, 1e-3) << "1 s before the kill and 1 s after, the downtime not";
  EXPECT_NEAR(after->energy_uj[1].second, 2e6, 1e-3);
}

// The database cannot be opened at start: the sweeps counted meanwhile are
// stored with the stored counters added, in one commit.
TEST_F(WriterTest, SweepsCountedBeforeTheDatabaseOpensAddToTheStoredCounters) {
  std::string id;
  {
    EnergyCounters counters(counter_rails(), 42);
    auto w = writer(slow_flush());
    w->count_with(counters);
    w->start();
    push(*w, 0, 11);
    w->stop();
    id = counters.snapshot().counters_id;
  }
  refuse_open_ = true;
  WriterOptions o = slow_flush();
  o.flush_interval = milliseconds(5);
  o.reopen_interval = milliseconds(0);
  EnergyCounters counters(counter_rails(), 99);
  auto w = writer(o);
  w->count_with(counters);
  w->start();
  push(*w, 100, 11);
  ASSERT_TRUE(eventually([&] { return w->stats().failed_commits > 0; }));
  EXPECT_NE(counters.snapshot().counters_id, id);  // fresh until the database opens
  refuse_open_ = false;
  ASSERT_TRUE(eventually([&] { return w->stats().samples_written == 11; }));
  w->stop();  // the counters ride in the tail until a synced commit: the stop's
  auto stored = stored_counters();
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->counters_id, id);
  EXPECT_NEAR(stored->energy_uj[0].second, 10e6, 1e-3);
  EXPECT_EQ(counters.snapshot().counters_id, id);
}

TEST_F(WriterTest, RetentionPassesRunOnTheWriterThreadAndReportTheFootprint) {
  WriterOptions o = slow_flush();
  o.flush_interval = milliseconds(5);
  o.retention_interval = milliseconds(0);  // a pass at every loop turn that has work
  auto w = writer(o);
  w->start();
  push(*w, 0, 9);
  ASSERT_TRUE(eventually([&] { return w->stats().retention.passes >= 1 && w->stats().samples_written == 9; }));
  auto r = w->stats().retention;
  EXPECT_GE(r.steps, r.passes);
  EXPECT_EQ(r.errors, 0);
  EXPECT_TRUE(r.last_error.empty());
  ASSERT_TRUE(r.footprint.has_value());  // known after a completed pass
  w->stop();
  EXPECT_EQ(stored_sweeps(), 9);  // the newest minutes are never aged out
}

// The footprint's queries read every row of every tier, so a pass measures
// it only at the first completed pass and then once per footprint_interval.
class WriterFootprintTest : public WriterTest {
 protected:
  RetentionStats five_passes(milliseconds footprint_interval) {
    WriterOptions o = slow_flush();
    o.flush_interval = milliseconds(5);
    o.retention_interval = milliseconds(0);
    o.footprint_interval = footprint_interval;
    auto w = writer(o);
    w->start();
    push(*w, 0, 9);
    bool passed = eventually([&] { return w->stats().retention.passes >= 5; });
    w->stop();
    EXPECT_TRUE(passed);
    return w->stats().retention;
  }
};

TEST_F(WriterFootprintTest, EveryCompletedPassMeasuresItWithNoInterval) {
  auto r = five_passes(milliseconds(0));
  ASSERT_TRUE(r.footprint.has_value() && r.footprint_at.has_value());
  EXPECT_GE(r.footprints, 5);
  EXPECT_LE(r.footprints, r.passes);
}

TEST_F(WriterFootprintTest, OnlyTheFirstPassMeasuresItWithinTheInterval) {
  auto r = five_passes(milliseconds(3600000));
  ASSERT_TRUE(r.footprint.has_value() && r.footprint_at.has_value());
  EXPECT_GE(r.passes, 5);
  EXPECT_EQ(r.footprints, 1);
}

}  // namespace
}  // namespace energy::daemon

namespace energy::daemon {
namespace {

// A write that refuses (its own error, kept from the writer) rides in a
// transaction with samples and a mark without failing them; a write that
// meets a database error fails the whole transaction.
TEST_F(WriterTest, AWritesRefusalIsItsOwnAndADatabaseErrorFailsTheTransaction) {
  auto w = writer(slow_flush());
  w->start();
  push(*w, 0, 3);
  int64_t sweep_id = 0;
  ASSERT_TRUE(write(*w, [&](Store& s) -> Status {
                auto created = s.sweeps().create("grid", "{}", 1);
                if (!created) return created.take_error();
                sweep_id = created->id;
                return ok_status();
              }).ok());
  Result<SweepRecord> refused = make_error(ErrorCode::kInternal, "not run");
  ASSERT_TRUE(write(*w, [&](Store& s) -> Status {
                refused = s.sweeps().add_run(SweepRunRecord{sweep_id, 999, 0, 0, SweepRole::kMeasure, {}}, 2);
                return ok_status();
              }).ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kNotFound);
  EXPECT_TRUE(mark(*w, "after").ok());
  Status failed = write(*w, [](Store&) -> Status { return make_error(ErrorCode::kStorage, "test: disk full"); });
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().message.find("disk full"), std::string::npos) << failed.error().message;
  w->stop();
  auto reader = Store::open(path_, StoreRole::kReader, 1000);
  ASSERT_TRUE(reader.ok());
  auto stored = (*reader)->sweeps().by_id(sweep_id);
  ASSERT_TRUE(stored.ok() && stored->has_value()) << "the create was committed";
  EXPECT_EQ(stored_sweeps(), 3);
}

}  // namespace
}  // namespace energy::daemon
