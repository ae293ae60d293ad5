// Board context benchmarks (docs/PERFORMANCE.md, "Board context"):
//  - BM_PollClocksReadDomain / BM_PollClocksProbe: one poll of every clock
//    domain of a simulated AGX Orin (L4T 36: 3 CPU policies and the GPU)
//    with libenergy's read_domain (opens each file by path: cur, min, max,
//    governor, online CPUs, GPU load) against ContextProbe (the current
//    frequency and governor through descriptors kept open, pread at 0).
//  - BM_PollThermalReadThermal / BM_PollThermalProbe: the same for its 9
//    thermal zones.
//  - BM_ContextBytesPerRow: database bytes per stored change row (a day's
//    worth of rows of 5 sources, pages included after a checkpoint).
//  - BM_RunContext: building a run's clocks and thermal sections (the window
//    scan and ContextSummary) for a run of N seconds in which every one
//    of 4 clock domains changed at every 100 ms poll (the worst case).
// The board tree is a static one written by energyd-sim (regular files:
// a read costs what a page-cache read costs, not a sysfs callback).
#include <unistd.h>

#include <filesystem>

#include <benchmark/benchmark.h>

#include "energy/clocks.h"
#include "energy/context_probe.h"
#include "energy/residency.h"
#include "energy/store.h"
#include "harness.h"

namespace energy {
namespace {

constexpr int64_t kPollNs = 100'000'000;

class Board {
 public:
  Board() {
    char tmpl[] = "/var/tmp/energyd-context-bench-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    auto made = testing::run_command(
        {ENERGYD_SIM_BIN, "create", "--board", "jetson-agx-orin", "--l4t", "36", "--root", dir_ + "/board"});
    ok_ = made.exit_code == 0;
    root_ = std::make_unique<SysRoot>(dir_ + "/board");
    inv_ = discover_clocks(*root_);
  }
  ~Board() { std::filesystem::remove_all(dir_); }
  bool ok() const { return ok_ && !inv_.domains.empty(); }
  const SysRoot& root() const { return *root_; }
  const ClockInventory& inventory() const { return inv_; }

 private:
  std::string dir_;
  bool ok_ = false;
  std::unique_ptr<SysRoot> root_;
  ClockInventory inv_;
};

Board& board() {
  static Board b;
  return b;
}

void BM_PollClocksReadDomain(benchmark::State& state) {
  if (!board().ok()) return state.SkipWithError("energyd-sim create failed");
  for (auto _ : state) {
    for (const auto& d : board().inventory().domains) benchmark::DoNotOptimize(read_domain(board().root(), d));
  }
  state.counters["domains"] = static_cast<double>(board().inventory().domains.size());
}
BENCHMARK(BM_PollClocksReadDomain)->Unit(benchmark::kMicrosecond);

void BM_PollClocksProbe(benchmark::State& state) {
  if (!board().ok()) return state.SkipWithError("energyd-sim create failed");
  ContextProbe probe(board().root(), board().inventory());
  for (auto _ : state) {
    for (size_t i = 0; i < probe.domain_count(); ++i) {
      benchmark::DoNotOptimize(probe.read_frequency(i));
      benchmark::DoNotOptimize(probe.read_governor(i));
    }
  }
  state.counters["domains"] = static_cast<double>(probe.domain_count());
}
BENCHMARK(BM_PollClocksProbe)->Unit(benchmark::kMicrosecond);

void BM_PollThermalReadThermal(benchmark::State& state) {
  if (!board().ok()) return state.SkipWithError("energyd-sim create failed");
  for (auto _ : state) benchmark::DoNotOptimize(read_thermal(board().root(), board().inventory().thermal));
  state.counters["zones"] = static_cast<double>(board().inventory().thermal.size());
}
BENCHMARK(BM_PollThermalReadThermal)->Unit(benchmark::kMicrosecond);

void BM_PollThermalProbe(benchmark::State& state) {
  if (!board().ok()) return state.SkipWithError("energyd-sim create failed");
  ContextProbe probe(board().root(), board().inventory());
  for (auto _ : state) {
    for (size_t i = 0; i < probe.zone_count(); ++i) benchmark::DoNotOptimize(probe.read_temperature(i));
  }
  state.counters["zones"] = static_cast<double>(probe.zone_count());
}
BENCHMARK(BM_PollThermalProbe)->Unit(benchmark::kMicrosecond);

struct TempStore {
  TempStore() {
    char tmpl[] = "/var/tmp/energyd-context-db-XXXXXX";
    dir = ::mkdtemp(tmpl);
    store = std::move(Store::open(dir + "/energyd.db", StoreRole::kWriter, 1000)).value();
    boot = *store->ensure_boot("bench", 0);
  }
  ~TempStore() {
    store.reset();
    std::filesystem::remove_all(dir);
  }
  int64_t file_bytes() const {
    std::error_code ec;
    return static_cast<int64_t>(std::filesystem::file_size(dir + "/energyd.db", ec));
  }
  std::string dir;
  std::unique_ptr<Store> store;
  int64_t boot = 0;
};

// Rows as the writer stores them: one transaction a second. Source s
// changes at every poll (a CPU policy under schedutil, the worst case) over
// `seconds` of 100 ms polls, between a few table frequencies.
void write_changes(TempStore& db, int sources, int64_t seconds) {
  std::vector<int64_t> ids;
  ids.reserve(static_cast<size_t>(sources));
  for (int s = 0; s < sources; ++s)
    ids.push_back(*db.store->context().ensure_source(ContextKind::kClock, "cpu" + std::to_string(s * 4)));
  for (int64_t sec = 0; sec < seconds; ++sec) {
    (void)db.store->begin();
    for (int64_t poll = 0; poll < 1'000'000'000 / kPollNs; ++poll) {
      int64_t t = sec * 1'000'000'000 + poll * kPollNs + 37'000;
      for (size_t s = 0; s < ids.size(); ++s) {
        int64_t hz = 729'600'000 + static_cast<int64_t>((poll + static_cast<int64_t>(s)) % 4) * 76'800'000;
        (void)db.store->context().put_row(db.boot, ids[s],
                                          ContextRow{t + static_cast<int64_t>(s) * 1000, ContextValue::of_number(hz)});
      }
    }
    (void)db.store->commit();
  }
  (void)db.store->checkpoint();
}

void BM_ContextBytesPerRow(benchmark::State& state) {
  const int64_t seconds = 3600;
  const int sources = 5;
  double per_row = 0;
  for (auto _ : state) {
    TempStore db;
    int64_t empty = db.file_bytes();
    write_changes(db, sources, seconds);
    per_row = static_cast<double>(db.file_bytes() - empty) / static_cast<double>(seconds * 10 * sources);
  }
  state.counters["bytes_per_row"] = per_row;
  state.counters["mb_per_day_one_source_changing_every_poll"] = per_row * 864'000 / 1e6;
}
BENCHMARK(BM_ContextBytesPerRow)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_RunContext(benchmark::State& state) {
  const int64_t seconds = state.range(0);
  TempStore db;
  write_changes(db, 4, seconds + 10);
  EnergyWindow w{5'000'000'000, (seconds + 5) * 1'000'000'000};
  for (auto _ : state) {
    ContextSummary summary(w);  // what build_run_report does
    (void)db.store->context().scan(db.boot, w, summary);
    benchmark::DoNotOptimize(summary.finish());
  }
  state.counters["rows"] = static_cast<double>(seconds * 10 * 4);
}
BENCHMARK(BM_RunContext)->Arg(60)->Arg(3600)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace energy

BENCHMARK_MAIN();
