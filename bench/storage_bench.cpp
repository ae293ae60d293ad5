// Storage benchmarks (docs/PERFORMANCE.md, "Storage"):
//  - BM_Chunker: CPU per sweep to encode 3, 6 and 9 rails into raw-tier chunks.
//  - BM_BytesPerRailSample: database bytes per stored rail reading for one
//    hour of 100 ms sweeps (counter bytes_per_rail_sample; pages included).
//  - BM_EnergyQuery: latency of one rail's energy over the last 1 h and over
//    30 days of 100 ms sweeps (the running-energy lookup, O(log n)).
//  - BM_TierBytesPerBucket: payload and database bytes per bucket of the 1 s
//    and 1 min tiers (3 rails), and what a day of each tier costs.
//  - BM_RetentionStep: time of one retention step (raw chunks of 3, 9 or 12
//    rails downsampled into 1 s buckets and deleted, one transaction): 8
//    chunks (the step before 2026-11-29) and energyd's step for 3 and 9
//    rails (32 and 10 chunks: retention_units_per_step).
//  - BM_Footprint: the store's footprint (status's figures of each tier)
//    with 1 h, 1 day and 7 days of raw chunks of 3 rails: its queries scan
//    every row. BM_RetentionPassWeek: a steady-state retention pass on 7
//    days of raw data (one chunk a minute into the 1 s tier), the reference
//    (issue 16: the writer measured the footprint after every pass).
//  - BM_RetentionWrites/{0,10,30}/{8,32}: the bytes written by 90 steady-state
//    retention passes (a minute apart, each followed by a checkpoint) on 7
//    days of 3-rail raw data, raw chunks downsampled each as it ages (0) or
//    in batches of 10 or 30 minutes, at most 8 chunks a transaction (energyd's
//    step before 2026-11-29) or 32 (its step for 3 rails since); per chunk
//    and per day.
//  - BM_WeekWrites/{0,1}: the bytes a day on the same week of data with the
//    sweeps' commits as well (a chunk a minute, 15 to a commit), 30-minute
//    batches in steps of 32: freed pages given back after every step (0,
//    energyd's) or kept for the next chunks (1, tried and not kept).
//  - BM_TierEnergyQuery: latency of one rail's energy over 30 days answered
//    by the 1 s tier and by the 1 min tier.
//  - BM_RunsList: what `runs.list` does for 100 and 1000 of 1000 runs spread
//    over a day of 3-rail data: the filtered query, the total rails and each
//    run's summary from the running energy (the daemon adds only JSON).
//  - BM_TailQuery: a reader's energy query over the last minute right after
//    the writer appended a second to the sweep tail, when the tail holds
//    `seal_chunks` (5, 15, 30) closed chunks of 3 rails and half an open
//    one (the reader decodes the whole tail again after each append); 50
//    iterations, so the tail grows by less than a chunk while measured.
//  - BM_RingQuery: the same query and tail, but with the sweep ring
//    (sweep_ring.h) as energyd keeps it on a tmpfs: each second goes into
//    the ring, and into the tail only every 10 s as one frame (the
//    checkpoint), so the reader takes up to 10 s of sweeps from the ring.
//    Compare with BM_TailQuery/15 of the same run (issue 16: queries as
//    fast as before the ring).
// Readings are INA3221-like: 8 mV / 8 mA steps with a random walk around a
// base value (what the simulator produces), generated deterministically.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include <benchmark/benchmark.h>

#include "energy/chunker.h"
#include "energy/run_summary.h"
#include "energy/store.h"
#include "energy/sweep_ring.h"
#include "energy/sweep_tail.h"
#include "proc_io.h"

namespace energy {
namespace {

constexpr int64_t kPeriodNs = 100'000'000;

class Readings {
 public:
  explicit Readings(size_t rails) : ma_(rails, 800), rng_(42) {}
  Sample next(int64_t i) {
    Sample s;
    s.t_ns = i * kPeriodNs + static_cast<int64_t>(rng_() % 200) * 1000;  // jitter in whole us
    s.wall_ns = s.t_ns + 1'700'000'000'000'000'000;
    for (auto& ma : ma_) {
      ma = std::clamp(ma + 8 * (static_cast<int32_t>(rng_() % 5) - 2), 80, 4000);
      int32_t mv = 4968 + 8 * static_cast<int32_t>(rng_() % 3 == 0);
      s.values.push_back(RailValue{int64_t{mv} * ma, mv, ma, 0});
    }
    return s;
  }

 private:
  std::vector<int32_t> ma_;
  std::mt19937 rng_;
};

std::string temp_db() {
  char tmpl[] = "/tmp/energy-bench-XXXXXX";
  return std::string(::mkdtemp(tmpl)) + "/energyd.db";
}

RailInfo rail_info(size_t i) {
  RailInfo r;
  r.label = "RAIL" + std::to_string(i);
  r.device = "1-0040";
  r.channel = static_cast<int>(i);
  return r;
}

// Writes `sweeps` sweeps of `rails` rails as the daemon's writer does.
std::unique_ptr<Store> fill(const std::string& path, size_t rails, int64_t sweeps) {
  auto store = std::move(Store::open(path, StoreRole::kWriter, 5000)).value();
  int64_t boot = *store->ensure_boot("bench", 0);
  std::vector<RailInfo> infos;
  for (size_t i = 0; i < rails; ++i) infos.push_back(rail_info(i));
  auto ids = *store->ensure_rails(infos);
  Chunker chunker(std::vector<ChunkRail>(rails, ChunkRail{0}), 600, {});
  Readings gen(rails);
  (void)store->begin();
  for (int64_t i = 0; i < sweeps; ++i) {
    chunker.add(gen.next(i));
    for (const auto& c : chunker.take_closed()) (void)store->readings().put_chunk(boot, ids, c);
  }
  (void)store->readings().put_chunk(boot, ids, chunker.open_chunk());
  (void)store->commit();
  (void)store->checkpoint();
  return store;
}

void BM_Chunker(benchmark::State& state) {
  auto rails = static_cast<size_t>(state.range(0));
  Readings gen(rails);
  std::vector<Sample> sweeps;
  for (int64_t i = 0; i < 6000; ++i) sweeps.push_back(gen.next(i));
  Chunker chunker(std::vector<ChunkRail>(rails, ChunkRail{0}), 600, {});
  size_t i = 0;
  for (auto _ : state) {
    chunker.add(sweeps[i++ % sweeps.size()]);
    if (i % 600 == 0) benchmark::DoNotOptimize(chunker.take_closed());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));  // unsigned in benchmark 1.5 (Debian 11)
}
BENCHMARK(BM_Chunker)->Arg(3)->Arg(6)->Arg(9);

void BM_BytesPerRailSample(benchmark::State& state) {
  auto rails = static_cast<size_t>(state.range(0));
  constexpr int64_t kHour = 36'000;
  double bytes = 0;
  for (auto _ : state) {
    std::string path = temp_db();
    auto store = fill(path, rails, kHour);
    store.reset();
    bytes = static_cast<double>(std::filesystem::file_size(path));
    std::filesystem::remove_all(std::filesystem::path(path).parent_path());
  }
  state.counters["bytes_per_rail_sample"] = bytes / static_cast<double>(kHour * static_cast<int64_t>(rails));
  state.counters["mb_per_day"] = bytes * 24 / 1e6;
}
BENCHMARK(BM_BytesPerRailSample)->Arg(3)->Arg(6)->Arg(9)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_EnergyQuery(benchmark::State& state) {
  static std::string path;
  static std::unique_ptr<Store> store;
  constexpr int64_t kThirtyDays = 30LL * 24 * 36'000;
  if (!store) {
    path = temp_db();
    fill(path, 3, kThirtyDays).reset();
    store = std::move(Store::open(path, StoreRole::kReader, 5000)).value();
  }
  int64_t end = (kThirtyDays - 10) * kPeriodNs;
  int64_t span = state.range(0) * 1'000'000'000LL;
  std::mt19937 rng(7);
  for (auto _ : state) {
    int64_t shift = static_cast<int64_t>(rng() % 1000) * 1'000'000;  // a different window each time
    auto e = store->readings().energy_uj(1, 1, {end - span - shift, end - shift});
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_EnergyQuery)->Arg(3600)->Arg(int64_t{30} * 86400)->Unit(benchmark::kMicrosecond);

// Writes `sweeps` sweeps of `period_ns` into a fresh database at `path`.
std::unique_ptr<Store> fill_every(const std::string& path, size_t rails, int64_t sweeps, int64_t period_ns) {
  auto store = std::move(Store::open(path, StoreRole::kWriter, 5000)).value();
  int64_t boot = *store->ensure_boot("bench", 0);
  std::vector<RailInfo> infos;
  for (size_t i = 0; i < rails; ++i) infos.push_back(rail_info(i));
  auto ids = *store->ensure_rails(infos);
  Chunker chunker(std::vector<ChunkRail>(rails, ChunkRail{0}), 600, {});
  Readings gen(rails);
  (void)store->begin();
  for (int64_t i = 0; i < sweeps; ++i) {
    Sample s = gen.next(i);
    s.t_ns = s.t_ns / kPeriodNs * period_ns + s.t_ns % kPeriodNs;
    s.wall_ns = s.t_ns + 1'700'000'000'000'000'000;
    chunker.add(s);
    for (const auto& c : chunker.take_closed()) (void)store->readings().put_chunk(boot, ids, c);
  }
  (void)store->readings().put_chunk(boot, ids, chunker.open_chunk());
  (void)store->commit();
  return store;
}

RetentionNow now_after(int64_t sweeps, int64_t period_ns) {
  int64_t t = sweeps * period_ns;
  return RetentionNow{1, t, t + 1'700'000'000'000'000'000};
}

void retain_all(Store& store, const RetentionPolicy& p, RetentionNow now) {
  for (;;) {
    auto step = store.tiers().apply_retention(p, now);
    if (!step.ok() || !step->more) break;
  }
  (void)store.checkpoint();
}

RetentionPolicy short_policy(int64_t raw_ns, int64_t second_ns) {
  RetentionPolicy p;
  p.raw_retention_ns = raw_ns;
  p.second_retention_ns = second_ns;
  p.disk_budget_bytes = 0;
  return p;
}

double tier_buckets(Store& store, Tier tier, int64_t end_ns) {
  double n = 0;
  auto rails = *store.rails();
  for (const auto& r : rails) n += static_cast<double>(store.tiers().rail_buckets(1, r.id, tier, {0, end_ns})->size());
  return n;
}

int64_t live_bytes(const std::string& path) {
  auto probe = std::move(Store::open(path, StoreRole::kReader, 5000)).value();
  auto f = *probe->tiers().footprint();
  return f.file_bytes - f.free_bytes;
}

// Arg 1: 12 h of 100 ms sweeps, all but the last minutes downsampled into
// 1 s buckets. Arg 2: 4 days of 1 s sweeps downsampled into 1 min buckets.
void BM_TierBytesPerBucket(benchmark::State& state) {
  Tier tier = static_cast<Tier>(state.range(0));
  const int64_t period = tier == Tier::kSecond ? kPeriodNs : 1'000'000'000;
  const int64_t sweeps = tier == Tier::kSecond ? 12 * 36'000 : 4 * 86'400;
  double payload = 0, buckets = 0, on_disk = 0;
  for (auto _ : state) {
    std::string path = temp_db();
    auto store = fill_every(path, 3, sweeps, period);
    int64_t raw_live = live_bytes(path);
    int64_t raw_payload = store->tiers().footprint()->tiers[0].data_bytes;
    auto p = tier == Tier::kSecond ? short_policy(600'000'000'000, 90 * 86'400'000'000'000)
                                   : short_policy(600'000'000'000, 1'200'000'000'000);
    retain_all(*store, p, now_after(sweeps, period));
    auto f = *store->tiers().footprint();
    const auto& t = f.tiers[static_cast<size_t>(tier)];
    buckets = tier_buckets(*store, tier, sweeps * period);
    payload = static_cast<double>(t.data_bytes) / buckets;
    // Database bytes the tier takes: what the raw data took, less what is left of it.
    double raw_left = static_cast<double>(f.tiers[0].data_bytes) / static_cast<double>(raw_payload);
    double other_tier = static_cast<double>(f.tiers[tier == Tier::kSecond ? 2 : 1].data_bytes);
    on_disk =
        (static_cast<double>(f.file_bytes - f.free_bytes) - raw_left * static_cast<double>(raw_live) - other_tier) /
        buckets;
    store.reset();
    std::filesystem::remove_all(std::filesystem::path(path).parent_path());
  }
  double per_day = tier == Tier::kSecond ? 86'400 : 1'440;
  state.counters["payload_bytes_per_bucket"] = payload;
  state.counters["db_bytes_per_bucket"] = on_disk;
  state.counters["mb_per_rail_day"] = on_disk * per_day / 1e6;
  state.counters["buckets"] = buckets;
}
BENCHMARK(BM_TierBytesPerBucket)->Arg(1)->Arg(2)->Iterations(1)->Unit(benchmark::kMillisecond);

// Each iteration: one step that downsamples 8 raw chunks (8 minutes of
// 100 ms sweeps) of every rail into 1 s buckets and deletes them.
void BM_RetentionStep(benchmark::State& state) {
  auto rails = static_cast<size_t>(state.range(0));
  const auto units = static_cast<int>(state.range(1));
  constexpr int64_t kSteps = 60;
  const int64_t sweeps = (kSteps + 2) * units * 600;
  std::string path = temp_db();
  auto store = fill_every(path, rails, sweeps, kPeriodNs);
  (void)store->checkpoint();
  RetentionPolicy p = short_policy(60'000'000'000, 90 * 86'400'000'000'000);
  p.max_units_per_step = units;
  RetentionNow now = now_after(sweeps, kPeriodNs);
  int64_t chunks = 0;
  for (auto _ : state) {
    auto step = store->tiers().apply_retention(p, now);
    if (!step.ok()) state.SkipWithError(step.error().describe().c_str());
    if (step.ok()) chunks += step->raw_chunks_downsampled;
  }
  state.counters["chunks_per_step"] = static_cast<double>(chunks) / static_cast<double>(state.iterations());
  store.reset();
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}
// Args: rails, chunks a step (energyd's: retention_units_per_step).
BENCHMARK(BM_RetentionStep)
    ->Args({3, 8})
    ->Args({9, 8})
    ->Args({12, 8})
    ->Args({3, 32})
    ->Args({9, 10})
    ->Iterations(60)
    ->Unit(benchmark::kMillisecond);

// What the store's footprint (the `status` figures of each tier) costs
// against the raw data kept: Arg hours of 100 ms sweeps of 3 rails. The
// writer computed it at the end of every retention pass, once a minute
// (issue 16).
void BM_Footprint(benchmark::State& state) {
  const int64_t sweeps = state.range(0) * 36'000;
  std::string path = temp_db();
  auto store = fill_every(path, 3, sweeps, kPeriodNs);
  (void)store->checkpoint();
  int64_t rows = 0;
  for (auto _ : state) {
    auto f = store->tiers().footprint();
    if (!f.ok()) {
      state.SkipWithError(f.error().describe().c_str());
      break;
    }
    rows = f->tiers[0].rows;
  }
  state.counters["raw_chunks"] = static_cast<double>(rows);
  store.reset();
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}
BENCHMARK(BM_Footprint)->Arg(1)->Arg(24)->Arg(168)->Iterations(20)->Unit(benchmark::kMillisecond);

// 7 days of 3-rail raw data ending now (and 30 minutes more, already
// downsampled): the steady state of a board that has kept a week (the
// default raw_retention_hours), where each minute one more raw chunk ages
// out. next_minute() moves now a minute on and makes a retention pass, its
// steps until none is left, as energyd's writer does once a minute.
class WeekOfRaw {
 public:
  static constexpr int64_t kMinute = 60'000'000'000;

  WeekOfRaw() : policy_(short_policy(int64_t{168} * 60 * kMinute, int64_t{90} * 1440 * kMinute)) {
    store_ = fill_every(path_, 3, next_sweep_, kPeriodNs);
    now_ = now_after(next_sweep_, kPeriodNs);
    retain_all(*store_, policy_, now_);
  }
  WeekOfRaw(const WeekOfRaw&) = delete;
  WeekOfRaw& operator=(const WeekOfRaw&) = delete;
  ~WeekOfRaw() {
    store_.reset();
    std::filesystem::remove_all(std::filesystem::path(path_).parent_path());
  }

  Store& store() { return *store_; }
  RetentionPolicy& policy() { return policy_; }

  // The raw chunks the pass downsampled, and the steps that took any.
  struct Pass {
    int64_t chunks = 0;
    int64_t steps = 0;
  };
  // The minute's sweeps, as energyd's writer stores them: its chunk waits
  // in the sweep tail until 15 are closed (seal_chunks), then they are
  // committed in one transaction (the bench's first minute puts the last,
  // partly filled chunk of the fill again with its whole minute).
  void write_minute(benchmark::State& state) {
    if (!chunker_) {
      std::vector<RailInfo> infos;
      for (size_t i = 0; i < 3; ++i) infos.push_back(rail_info(i));
      auto ids = store_->ensure_rails(infos);
      if (!ids.ok()) return state.SkipWithError(ids.error().describe().c_str());
      ids_ = *ids;
      chunker_.emplace(std::vector<ChunkRail>(3, ChunkRail{0}), 600, std::vector<RailCursor>{});
    }
    for (int64_t end = next_sweep_ + 600; next_sweep_ < end; ++next_sweep_) chunker_->add(readings_.next(next_sweep_));
    for (auto& c : chunker_->take_closed()) closed_.push_back(std::move(c));
    if (closed_.size() < 15) return;
    bool ok = store_->begin().ok();
    for (const auto& c : closed_) ok = ok && store_->readings().put_chunk(1, ids_, c).ok();
    ok = ok && store_->commit().ok();
    closed_.clear();
    if (!ok) state.SkipWithError("cannot commit the closed chunks");
  }

  Pass next_minute(benchmark::State& state) {
    now_.boot_ns += kMinute;
    now_.wall_ns += kMinute;
    Pass pass;
    for (;;) {
      auto step = store_->tiers().apply_retention(policy_, now_);
      if (!step.ok()) {
        state.SkipWithError(step.error().describe().c_str());
        break;
      }
      pass.chunks += step->raw_chunks_downsampled;
      pass.steps += step->raw_chunks_downsampled > 0 ? 1 : 0;
      if (!step->more) break;
    }
    return pass;
  }

 private:
  std::string path_ = temp_db();
  int64_t next_sweep_ = int64_t{168 * 60 + 30} * 600;
  std::unique_ptr<Store> store_;
  RetentionPolicy policy_;
  RetentionNow now_;
  Readings readings_{3};
  std::optional<Chunker> chunker_;
  std::vector<int64_t> ids_;
  std::vector<Chunk> closed_;
};

// A retention pass as the writer makes one a minute once a week of raw
// data is kept: one raw chunk ages into the 1 s tier each time. The
// reference for BM_Footprint/168 of the same run.
void BM_RetentionPassWeek(benchmark::State& state) {
  WeekOfRaw week;
  int64_t chunks = 0;
  for (auto _ : state) chunks += week.next_minute(state).chunks;
  state.counters["chunks_per_pass"] = static_cast<double>(chunks) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_RetentionPassWeek)->Iterations(20)->Unit(benchmark::kMillisecond);

// Bytes this process has handed to write(2) and pwrite(2) (/proc/self/io
// wchar): SQLite's WAL frames and, at checkpoints, the database pages.
int64_t written_bytes() { return energy::bench::proc_io("self").wchar; }

// What retention writes on a board that has kept a week (issue 16): a
// pass a minute, as energyd's writer makes them, with raw chunks
// downsampled in batches of the argument's minutes
// (RetentionPolicy::raw_batch_ns; 0: each chunk as it ages, as before;
// energyd uses 30). Each pass is followed by a checkpoint, as energyd's
// writer makes one within checkpoint_interval (10 s) of any commit, so
// every page a pass changes is written twice: to the WAL, then to the
// database file. kb_per_chunk: the bytes written (/proc/self/io wchar) over
// 90 passes per chunk downsampled; mb_per_day: 1440 chunks (a chunk ages
// out each minute). The flushes of new readings come on top of it.
void BM_RetentionWrites(benchmark::State& state) {
  WeekOfRaw week;
  week.policy().raw_batch_ns = state.range(0) * WeekOfRaw::kMinute;
  week.policy().max_units_per_step = static_cast<int>(state.range(1));
  int64_t chunks = 0;
  int64_t steps = 0;
  const int64_t before = written_bytes();
  if (before < 0) state.SkipWithError("cannot read wchar from /proc/self/io");
  for (auto _ : state) {
    WeekOfRaw::Pass pass = week.next_minute(state);
    chunks += pass.chunks;
    steps += pass.steps;
    if (!week.store().checkpoint()) state.SkipWithError("checkpoint failed");
  }
  const int64_t after = written_bytes();
  if (after < 0) state.SkipWithError("cannot read wchar from /proc/self/io");
  const auto bytes = static_cast<double>(after - before);
  const auto per_chunk = bytes / static_cast<double>(std::max<int64_t>(chunks, 1));
  state.counters["chunks"] = static_cast<double>(chunks);
  state.counters["steps"] = static_cast<double>(steps);
  state.counters["kb_per_chunk"] = per_chunk / 1e3;
  state.counters["mb_per_day"] = per_chunk * 1440 / 1e6;  // a chunk ages out each minute
}
BENCHMARK(BM_RetentionWrites)
    ->Args({0, 8})
    ->Args({10, 8})
    ->Args({30, 8})
    ->Args({30, 32})
    ->Iterations(90)
    ->Unit(benchmark::kMillisecond);

// What the database takes in a day on a board that has kept a week, the
// sweeps' commits included: each minute a chunk (committed 15 at a time,
// as energyd does with its sweep tail), a retention pass (30-minute
// batches, 32 chunks a step) and a checkpoint. 180 minutes: six batches
// and twelve commits. Arg: 0 gives the pages retention frees back after
// every step (energyd's), 1 keeps them for the next chunks (tried in issue
// 16's session 21: less here, more in the daemon; docs/PERFORMANCE.md).
// wchar, so the kernel's page cache does not matter.
void BM_WeekWrites(benchmark::State& state) {
  WeekOfRaw week;
  week.policy().raw_batch_ns = 30 * WeekOfRaw::kMinute;
  week.policy().max_units_per_step = 32;
  week.policy().keep_free_pages = state.range(0) != 0;
  const int64_t before = written_bytes();
  if (before < 0) state.SkipWithError("cannot read wchar from /proc/self/io");
  int64_t minutes = 0;
  for (auto _ : state) {
    week.write_minute(state);
    week.next_minute(state);
    if (!week.store().checkpoint()) state.SkipWithError("checkpoint failed");
    ++minutes;
  }
  const int64_t after = written_bytes();
  if (after < 0) state.SkipWithError("cannot read wchar from /proc/self/io");
  auto f = week.store().tiers().footprint();
  if (!f.ok()) state.SkipWithError(f.error().describe().c_str());
  const auto per_minute = static_cast<double>(after - before) / static_cast<double>(std::max<int64_t>(minutes, 1));
  state.counters["mb_per_day"] = per_minute * 1440 / 1e6;
  state.counters["free_kb_at_end"] = f.ok() ? static_cast<double>(f->free_bytes) / 1e3 : -1;
}
BENCHMARK(BM_WeekWrites)->Arg(0)->Arg(1)->Iterations(180)->Unit(benchmark::kMillisecond);

// One rail, 31 days of 1 s sweeps, everything older than 12 h downsampled
// into the tier under test; the query spans 30 days ending in that tier.
void BM_TierEnergyQuery(benchmark::State& state) {
  Tier tier = static_cast<Tier>(state.range(0));
  static std::map<Tier, std::unique_ptr<Store>> stores;
  constexpr int64_t kSweeps = int64_t{31} * 86'400;
  constexpr int64_t kSecNs = 1'000'000'000;
  if (!stores[tier]) {
    std::string path = temp_db();
    auto store = fill_every(path, 1, kSweeps, kSecNs);
    int64_t half_day = 43'200 * kSecNs;
    retain_all(*store, short_policy(half_day, tier == Tier::kSecond ? int64_t{40} * 86'400 * kSecNs : half_day),
               now_after(kSweeps, kSecNs));
    store.reset();
    stores[tier] = std::move(Store::open(path, StoreRole::kReader, 5000)).value();
  }
  std::mt19937 rng(7);
  Tier answered = Tier::kRaw;
  for (auto _ : state) {
    int64_t shift = static_cast<int64_t>(rng() % 100'000) * 1'000'000;  // a different window each time
    int64_t end = int64_t{30} * 86'400 * kSecNs + 180 * kSecNs - shift;
    auto e = stores[tier]->readings().energy(1, 1, {end - int64_t{30} * 86'400 * kSecNs, end});
    if (e.ok() && e->has_value()) answered = (*e)->tier;
    benchmark::DoNotOptimize(e);
  }
  if (answered != tier) state.SkipWithError("the query was not answered by the tier under test");
}
BENCHMARK(BM_TierEnergyQuery)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);

void BM_RunsList(benchmark::State& state) {
  static std::string path;
  static std::unique_ptr<Store> store;
  constexpr int64_t kDay = int64_t{24} * 36'000;
  constexpr int64_t kRuns = 1000;
  if (!store) {
    path = temp_db();
    auto writer = fill(path, 3, kDay);
    for (int64_t i = 0; i < kRuns; ++i) {  // a 10 s run every 86.4 s
      RunRecord r;
      r.name = "run" + std::to_string(i % 10);
      r.tags_json = R"({"batch":")" + std::to_string(i % 4) + R"("})";
      r.boot = 1;
      r.start_ns = i * (kDay / kRuns) * kPeriodNs + kPeriodNs / 2;
      r.start_wall_ns = r.start_ns + 1'700'000'000'000'000'000;
      int64_t id = *writer->runs().insert(r);
      (void)writer->runs().finish(id, r.start_ns + 100 * kPeriodNs, r.start_wall_ns + 100 * kPeriodNs,
                                  RunState::kStopped);
    }
    writer.reset();
    store = std::move(Store::open(path, StoreRole::kReader, 5000)).value();
  }
  RunFilter filter;
  filter.limit = state.range(0);
  size_t summarized = 0;
  for (auto _ : state) {
    auto runs = store->runs().find(filter);
    auto total = total_stored_rails(*store);
    summarized = 0;
    for (const auto& r : *runs) {
      auto s = summarize_run(*store, r, *r.stop_ns, *total);
      if (s.ok() && s->energy_j) ++summarized;
    }
  }
  if (summarized != static_cast<size_t>(filter.limit)) state.SkipWithError("a run had no summary");
}
BENCHMARK(BM_RunsList)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

// One flush interval (10 sweeps from sweep `first`) as the writer appends it.
TailFrame tail_second(Readings& gen, int64_t first, const std::vector<int64_t>& ids, double uj) {
  TailFrame f{1, ids, {}, StoredCounters{"0123456789abcdef", 1, {}}};
  for (size_t r = 0; r < ids.size(); ++r) f.counters->energy_uj.emplace_back("RAIL" + std::to_string(r), uj);
  for (int64_t i = first; i < first + 10; ++i) f.sweeps.push_back(gen.next(i));
  return f;
}

void BM_TailQuery(benchmark::State& state) {
  constexpr int64_t kHour = 36'000;
  const int64_t tail_sweeps = (state.range(0) * 2 + 1) * 300;  // seal_chunks and a half chunks of 600
  std::string path = temp_db();
  auto writer = fill(path, 3, kHour);
  auto tail = SweepTailFile::open(writer->tail_path());
  if (!tail.ok()) return state.SkipWithError(tail.error().describe().c_str());
  Readings gen(3);
  std::vector<int64_t> ids = {1, 2, 3};
  int64_t next = kHour;
  for (; next < kHour + tail_sweeps; next += 10)
    (void)tail->append(tail_second(gen, next, ids, static_cast<double>(next)));
  auto reader = std::move(Store::open(path, StoreRole::kReader, 5000)).value();
  bool answered = true;
  for (auto _ : state) {
    state.PauseTiming();
    auto st = tail->append(tail_second(gen, next, ids, static_cast<double>(next)));
    next += 10;
    state.ResumeTiming();
    auto e = reader->readings().energy_uj(1, 1, {(next - 600) * kPeriodNs, (next - 20) * kPeriodNs});
    answered = answered && st.ok() && e.ok() && e->has_value();
  }
  if (!answered) state.SkipWithError("an append failed or the query found no energy");
  state.counters["tail_bytes"] = static_cast<double>(tail->size_bytes());
  reader.reset();
  writer.reset();
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}
BENCHMARK(BM_TailQuery)->Arg(5)->Arg(15)->Arg(30)->Iterations(50)->Unit(benchmark::kMicrosecond);

void BM_RingQuery(benchmark::State& state) {
  constexpr int64_t kHour = 36'000;
  const int64_t tail_sweeps = (state.range(0) * 2 + 1) * 300;
  std::string path = temp_db();
  auto writer = fill(path, 3, kHour);
  auto tail = SweepTailFile::open(writer->tail_path());
  if (!tail.ok()) return state.SkipWithError(tail.error().describe().c_str());
  char ring_dir[] = "/dev/shm/energy-bench-XXXXXX";
  if (::mkdtemp(ring_dir) == nullptr) return state.SkipWithError("cannot make a directory in /dev/shm");
  auto made = SweepRing::create(std::string(ring_dir) + "/sweep-ring", 3, 215, "bench");
  if (!made.ok()) return state.SkipWithError(made.error().describe().c_str());
  std::shared_ptr<SweepRing> ring = std::move(made).value();
  Readings gen(3);
  std::vector<int64_t> ids = {1, 2, 3};
  int64_t next = kHour;
  for (; next < kHour + tail_sweeps; next += 10)
    (void)tail->append(tail_second(gen, next, ids, static_cast<double>(next)));
  ring->stamp(1, ids);
  register_live_sweeps(path, [ring](int64_t after) { return ring->since(after); });
  auto reader = std::move(Store::open(path, StoreRole::kReader, 5000)).value();
  TailFrame checkpoint{1, ids, {}, StoredCounters{"0123456789abcdef", 1, {}}};
  bool answered = true;
  for (auto _ : state) {
    state.PauseTiming();
    TailFrame second = tail_second(gen, next, ids, static_cast<double>(next));
    for (const auto& s : second.sweeps) ring->put(s);
    checkpoint.sweeps.insert(checkpoint.sweeps.end(), second.sweeps.begin(), second.sweeps.end());
    checkpoint.counters = second.counters;
    next += 10;
    if (checkpoint.sweeps.size() >= 100) {  // the checkpoint: the ring's last 10 s into the tail
      answered = answered && tail->append(checkpoint).ok();
      checkpoint.sweeps.clear();
    }
    state.ResumeTiming();
    auto e = reader->readings().energy_uj(1, 1, {(next - 600) * kPeriodNs, (next - 20) * kPeriodNs});
    answered = answered && e.ok() && e->has_value();
  }
  if (!answered) state.SkipWithError("an append failed or the query found no energy");
  unregister_live_sweeps(path);
  reader.reset();
  writer.reset();
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
  std::filesystem::remove_all(ring_dir);
}
BENCHMARK(BM_RingQuery)->Arg(15)->Iterations(50)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace energy

BENCHMARK_MAIN();
