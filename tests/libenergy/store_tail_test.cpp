// The sweep tail in the Store: a writer's open replays a dead writer's tail
// once (sweeps and counters), leaves a live writer's alone, keeps the valid
// prefix of a damaged one; a reader's queries see the tail's sweeps.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../time_units.h"
#include "energy/chunker.h"
#include "energy/store.h"
#include "energy/sweep_tail.h"
#include "temp_store.h"
#include "version1_tail.h"

namespace energy {
namespace {

class StoreTail : public TempStoreTest {
 protected:
  void SetUp() override {
    TempStoreTest::SetUp();
    if (HasFatalFailure()) return;
    auto boot = store_->ensure_boot("boot-a", 0);
    auto ids = store_->ensure_rails(two_test_rails(2));
    ASSERT_TRUE(boot.ok() && ids.ok());
    boot_ = *boot;
    ids_ = *ids;
  }

  // Sweep i: 100 ms apart, power rising with i (so every window differs).
  static Sample sweep(int64_t i) {
    int32_t ma = static_cast<int32_t>(800 + 10 * i);
    return Sample{
        (1000 + 100 * i) * kMs, (1000 + 100 * i) * kMs, {RailValue{0, 5000, ma, 0}, RailValue{0, 5000, 200, 0}}};
  }
  static std::vector<Sample> sweeps(int64_t from, int64_t to) {
    std::vector<Sample> out;
    for (int64_t i = from; i < to; ++i) out.push_back(sweep(i));
    return out;
  }
  static StoredCounters counters(double uj) { return StoredCounters{"00000000000000aa", 1, {{"VDD_IN", uj}}}; }

  // Sweeps [0, n) committed as the writer commits a closed chunk.
  void store_chunk(int64_t n) {
    Chunker chunker({ChunkRail{0}, ChunkRail{0}}, 600, {});
    for (const auto& s : sweeps(0, n)) chunker.add(s);
    ASSERT_TRUE(store_->begin().ok());
    ASSERT_TRUE(store_->readings().put_chunk(boot_, ids_, chunker.open_chunk()).ok());
    ASSERT_TRUE(store_->commit().ok());
  }
  void append(SweepTailFile& tail, int64_t from, int64_t to, double uj) {
    ASSERT_TRUE(tail.append(TailFrame{boot_, ids_, sweeps(from, to), counters(uj)}).ok());
  }
  // After a replay: the store holds `samples` sweeps and the counters of `uj`.
  void expect_replayed(int64_t samples, double uj) {
    auto n = store_->readings().sample_count();
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, samples);
    auto c = store_->counters().get();
    ASSERT_TRUE(c.ok() && c->has_value());
    EXPECT_EQ((*c)->energy_uj, counters(uj).energy_uj);
  }
  // Energy of rail 0 over [sweep a, sweep b] from one Chunker over every sweep.
  static double truth_uj(int64_t a, int64_t b) {
    Chunker all({ChunkRail{0}, ChunkRail{0}}, b + 1, {});  // one chunk
    for (const auto& s : sweeps(0, b + 1)) all.add(s);
    auto rs = decode_rail_chunk(all.open_chunk().times, all.open_chunk().rails[0], 0);
    return rs.ok() ? (*rs)[static_cast<size_t>(b)].cum_uj - (*rs)[static_cast<size_t>(a)].cum_uj : -1;
  }
  std::unique_ptr<Store> reader() {
    auto r = Store::open(path(), StoreRole::kReader, 1000);
    EXPECT_TRUE(r.ok());
    return r.ok() ? std::move(r).value() : nullptr;
  }

  int64_t boot_ = 0;
  std::vector<int64_t> ids_;
};

TEST_F(StoreTail, ReplayStoresWhatTheDatabaseLacksWithTheLastCountersOnceOnly) {
  store_chunk(10);
  {
    auto tail = SweepTailFile::open(store_->tail_path());
    ASSERT_TRUE(tail.ok());
    append(*tail, 5, 15, 100);  // overlaps the stored chunk, as after a kill between commit and rewrite
    append(*tail, 15, 25, 250);
  }  // the writer is gone: no lock
  reopen();
  EXPECT_TRUE(store_->losses().empty());
  EXPECT_FALSE(std::filesystem::exists(store_->tail_path()));
  expect_replayed(25, 250);
  auto e = store_->readings().energy_uj(boot_, ids_[0], {sweep(2).t_ns, sweep(22).t_ns});
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_NEAR(**e, truth_uj(2, 22), 1e-6);
  reopen();
  auto again = store_->readings().sample_count();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 25);
}

TEST_F(StoreTail, ALiveWritersTailIsNotReplayedButReadersSeeIt) {
  store_chunk(10);
  auto tail = SweepTailFile::open(store_->tail_path());
  ASSERT_TRUE(tail.ok());
  append(*tail, 10, 30, 100);
  reopen();  // the live writer holds the lock: its tail stays its own
  auto stored = store_->readings().sample_count();
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(*stored, 10);
  auto r = reader();
  ASSERT_TRUE(r);
  auto last = r->readings().last_sample_ns(boot_);
  ASSERT_TRUE(last.ok() && last->has_value());
  EXPECT_EQ(**last, sweep(29).t_ns);
  auto e = r->readings().energy_uj(boot_, ids_[0], {sweep(3).t_ns, sweep(27).t_ns});
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_NEAR(**e, truth_uj(3, 27), 1e-6);
  auto rows = r->readings().export_boot_readings(boot_, {0, INT64_MAX}, "", 1000);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->size(), 60u);
  EXPECT_EQ(rows->back().t_ns, sweep(29).t_ns);
  auto pts = r->readings().rail_points(boot_, ids_[1], {sweep(12).t_ns, sweep(20).t_ns});
  ASSERT_TRUE(pts.ok());
  EXPECT_EQ(pts->size(), 11u);  // 9 inside and one beyond each edge
}

// A reader reads a grown tail from where it stopped (frames whose counters
// refer to earlier ones included) and a replaced one afresh: its answers
// are those of a reader that reads the whole file.
TEST_F(StoreTail, AReaderReadsWhatWasAppendedSinceAndANewFileAfresh) {
  store_chunk(10);
  auto tail = SweepTailFile::open(store_->tail_path());
  ASSERT_TRUE(tail.ok());
  append(*tail, 10, 20, 100);
  auto r = reader();
  ASSERT_TRUE(r);
  auto expect_energy = [&](int64_t a, int64_t b) {
    auto e = r->readings().energy_uj(boot_, ids_[0], {sweep(a).t_ns, sweep(b).t_ns});
    auto whole = reader()->readings().energy_uj(boot_, ids_[0], {sweep(a).t_ns, sweep(b).t_ns});
    ASSERT_TRUE(e.ok() && e->has_value() && whole.ok() && whole->has_value()) << a << ".." << b;
    EXPECT_DOUBLE_EQ(**e, **whole) << a << ".." << b;
    EXPECT_GT(**e, 0) << a << ".." << b;
  };
  expect_energy(3, 17);
  auto first = r->readings().energy_uj(boot_, ids_[0], {sweep(3).t_ns, sweep(17).t_ns});
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_NEAR(**first, truth_uj(3, 17), 1e-6);
  for (int64_t i = 20; i < 700; i += 10) append(*tail, i, i + 10, static_cast<double>(i));  // a chunk closes
  expect_energy(3, 690);
  append(*tail, 700, 710, 700);
  expect_energy(650, 705);
  auto rows = r->readings().export_boot_readings(boot_, {0, INT64_MAX}, "", 100000);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->size(), 1420u);
  std::string next = store_->tail_path() + ".new";
  {
    auto fresh = SweepTailFile::open(next);
    ASSERT_TRUE(fresh.ok());
    append(*fresh, 10, 720, 720);
  }
  ASSERT_EQ(std::rename(next.c_str(), store_->tail_path().c_str()), 0);
  expect_energy(3, 715);
  auto last = r->readings().last_sample_ns(boot_);
  ASSERT_TRUE(last.ok() && last->has_value());
  EXPECT_EQ(**last, sweep(719).t_ns);
}

// The writer commits sealed chunks, then rewrites the tail without their
// sweeps. A reader that read the tail before a commit, and asks after it
// (the old tail grown, then unchanged, then replaced), sees each sweep
// once: from the database when it holds it, else from the tail.
TEST_F(StoreTail, AReaderListsEachSweepOnceAcrossACommitAndTheTailsRewrite) {
  store_chunk(10);
  auto tail = SweepTailFile::open(store_->tail_path());
  ASSERT_TRUE(tail.ok());
  for (int64_t i = 10; i < 700; i += 10) append(*tail, i, i + 10, static_cast<double>(i));
  auto r = reader();
  ASSERT_TRUE(r);
  auto expect_each_once = [&](int64_t n, const char* when) {
    SCOPED_TRACE(when);
    auto count = r->readings().sample_count();
    ASSERT_TRUE(count.ok());
    EXPECT_EQ(*count, n);
    auto rows = r->readings().export_boot_readings(boot_, {0, INT64_MAX}, "", 100000);
    ASSERT_TRUE(rows.ok());
    EXPECT_EQ(rows->size(), static_cast<size_t>(2 * n));
    auto pts = r->readings().rail_points(boot_, ids_[0], {sweep(0).t_ns, sweep(n - 1).t_ns});
    ASSERT_TRUE(pts.ok());
    ASSERT_EQ(pts->size(), static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ((*pts)[static_cast<size_t>(i)].t_ns, sweep(i).t_ns) << i;
    auto e = r->readings().energy_uj(boot_, ids_[0], {sweep(3).t_ns, sweep(n - 2).t_ns});
    ASSERT_TRUE(e.ok() && e->has_value());
    EXPECT_NEAR(**e, truth_uj(3, n - 2), 1e-6);
  };
  expect_each_once(700, "before the commits");
  auto commit = [&](int64_t from, int64_t to) {  // the writer's commit of a sealed chunk
    auto resume = store_->readings().resume_cursors(boot_, ids_);
    ASSERT_TRUE(resume.ok());
    Chunker chunker({ChunkRail{0}, ChunkRail{0}}, 600, *resume);
    for (const auto& s : sweeps(from, to)) chunker.add(s);
    ASSERT_TRUE(store_->begin().ok());
    ASSERT_TRUE(store_->readings().put_chunk(boot_, ids_, chunker.open_chunk()).ok());
    ASSERT_TRUE(store_->commit().ok());
  };
  commit(10, 610);
  append(*tail, 700, 710, 700);
  expect_each_once(710, "after a commit, the old tail grown");
  for (int64_t i = 710; i < 1210; i += 10) append(*tail, i, i + 10, static_cast<double>(i));
  expect_each_once(1210, "the old tail grown again");
  commit(610, 1210);
  expect_each_once(1210, "after a commit, the old tail unchanged");
  std::string next = store_->tail_path() + ".new";
  {
    auto fresh = SweepTailFile::open(next);
    ASSERT_TRUE(fresh.ok());
    append(*fresh, 1210, 1220, 1220);
  }
  ASSERT_EQ(std::rename(next.c_str(), store_->tail_path().c_str()), 0);
  expect_each_once(1220, "after the tail's rewrite");
}

TEST_F(StoreTail, ADamagedTailKeepsItsValidFramesAndIsReportedAndKeptAside) {
  store_chunk(10);
  {
    auto tail = SweepTailFile::open(store_->tail_path());
    ASSERT_TRUE(tail.ok());
    append(*tail, 10, 20, 100);
  }
  {
    FILE* f = std::fopen(store_->tail_path().c_str(), "ab");
    ASSERT_NE(f, nullptr);
    std::fputs("not a frame at all", f);
    std::fclose(f);
  }
  reopen();
  ASSERT_EQ(store_->losses().size(), 1u);
  EXPECT_EQ(store_->losses()[0].kind, "tail_damaged");
  ASSERT_EQ(store_->losses()[0].evidence.size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(store_->losses()[0].evidence[0]));
  auto n = store_->readings().sample_count();
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 20);
}

// In the preallocated file a power cut leaves the last frame's unwritten
// pages as zeros.
TEST_F(StoreTail, ATornLastFrameIsNoLoss) {
  store_chunk(10);
  int64_t end = 0;
  {
    auto tail = SweepTailFile::open(store_->tail_path());
    ASSERT_TRUE(tail.ok());
    append(*tail, 10, 20, 100);
    append(*tail, 20, 30, 200);
    end = tail->size_bytes();
  }
  {
    std::fstream f(store_->tail_path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(end - 5);
    f.write("\0\0\0\0\0", 5);
    ASSERT_TRUE(f.good());
  }
  reopen();
  EXPECT_TRUE(store_->losses().empty());
  expect_replayed(20, 100);
}

// A tail left by energyd before the version 2 frames (version1_tail.h). An
// upgraded energyd replays it.
TEST_F(StoreTail, AVersion1TailFromBeforeTheUpgradeIsReplayed) {
  ASSERT_EQ(boot_, 1);
  ASSERT_EQ(ids_, (std::vector<int64_t>{1, 2}));
  store_chunk(10);
  {
    const std::string bytes = test::version1_tail_bytes();
    FILE* f = std::fopen(store_->tail_path().c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
    std::fclose(f);
  }
  reopen();
  EXPECT_TRUE(store_->losses().empty());
  EXPECT_FALSE(std::filesystem::exists(store_->tail_path()));
  expect_replayed(30, 200);
  auto e = store_->readings().energy_uj(boot_, ids_[0], {sweep(2).t_ns, sweep(27).t_ns});
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_NEAR(**e, truth_uj(2, 27), 1e-6);
}

// A tail the energyd before preallocation left (version 2 frames, the file
// as long as they are, its last frame cut short by a power cut): an
// upgraded energyd replays it.
TEST_F(StoreTail, AnUnpreallocatedTailFromBeforeTheUpgradeIsReplayed) {
  store_chunk(10);
  {
    auto first = encode_tail_frame(TailFrame{boot_, ids_, sweeps(10, 20), counters(100)});
    auto second = encode_tail_frame(TailFrame{boot_, ids_, sweeps(20, 30), counters(200)});
    ASSERT_TRUE(first.ok() && second.ok());
    std::ofstream(store_->tail_path(), std::ios::binary) << *first << second->substr(0, second->size() - 5);
  }
  reopen();
  EXPECT_TRUE(store_->losses().empty());
  EXPECT_FALSE(std::filesystem::exists(store_->tail_path()));
  expect_replayed(20, 100);
}

}  // namespace
}  // namespace energy
