// Storage benchmarks (docs/PERFORMANCE.md, "Storage"):
//  - BM_Chunker: CPU per sweep to encode 3, 6 and 9 rails into raw-tier chunks.
//  - BM_BytesPerRailSample: database bytes per stored rail reading for one
//    hour of 100 ms sweeps (counter bytes_per_rail_sample; pages included).
//  - BM_EnergyQuery: latency of one rail's energy over the last 1 h and over
//    30 days of 100 ms sweeps (the running-energy lookup, O(log n)).
// Readings are INA3221-like: 8 mV / 8 mA steps with a random walk around a
// base value (what the simulator produces), generated deterministically.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "energy/chunker.h"
#include "energy/store.h"

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
    for (const auto& c : chunker.take_closed()) (void)store->put_chunk(boot, ids, c);
  }
  (void)store->put_chunk(boot, ids, chunker.open_chunk());
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
    auto e = store->energy_uj(1, 1, {end - span - shift, end - shift});
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_EnergyQuery)->Arg(3600)->Arg(30 * 86400)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace energy

BENCHMARK_MAIN();
