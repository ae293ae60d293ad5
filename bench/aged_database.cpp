// aged_database DB HOURS [RAILS]: writes into a new database at DB an
// earlier boot's HOURS of 100 ms sweeps of RAILS rails (default 3) that end
// a minute before now, in the raw tier, as energyd's writer stores them.
// energyd started on it is a daemon that has kept that much history: with
// HOURS 168 (the default raw_retention_hours) each retention pass moves about
// one raw chunk into the 1 s tier, as on a board that has run a week
// (bench/tick_instructions.sh and bench/observer_syscalls.sh take it as
// OBS_DB; docs/PERFORMANCE.md, issue 16). Readings are a fixed 5 V and a
// current that steps through 800-1,200 mA.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_args.h"
#include "energy/chunker.h"
#include "energy/store.h"

namespace {

constexpr const char* kProgram = "aged_database";
constexpr int64_t kPeriodNs = 100'000'000;

int64_t wall_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Exit status 1 with the step and the store's error.
template <typename R>
bool ok_or_say(const R& r, const char* step) {
  if (r.ok()) return true;
  std::fprintf(stderr, "%s: %s: %s\n", kProgram, step, r.error().describe().c_str());
  return false;
}

int run(const std::string& path, long hours, long rails) {
  if (::access(path.c_str(), F_OK) == 0) {
    std::fprintf(stderr, "%s: %s exists; give a new path\n", kProgram, path.c_str());
    return 1;
  }
  auto store = energy::Store::open(path, energy::StoreRole::kWriter, 5000);
  if (!ok_or_say(store, "cannot open the database")) return 1;
  const int64_t sweeps = hours * 36'000;
  const int64_t offset = wall_now_ns() - 60'000'000'000 - sweeps * kPeriodNs;  // boot time 0 at that wall time
  auto boot = (*store)->ensure_boot("aged-database", offset);
  if (!ok_or_say(boot, "cannot add the boot")) return 1;
  std::vector<energy::RailInfo> infos;
  for (long i = 0; i < rails; ++i) {
    energy::RailInfo r;
    r.label = "AGED_RAIL" + std::to_string(i);
    r.device = "1-0040";
    r.channel = static_cast<int>(i);
    infos.push_back(r);
  }
  auto ids = (*store)->ensure_rails(infos);
  if (!ok_or_say(ids, "cannot add the rails")) return 1;
  energy::Chunker chunker(std::vector<energy::ChunkRail>(static_cast<size_t>(rails), energy::ChunkRail{0}), 600, {});
  if (!ok_or_say((*store)->begin(), "cannot begin")) return 1;
  energy::Sample s;
  s.values.resize(static_cast<size_t>(rails));
  for (int64_t i = 0; i < sweeps; ++i) {
    s.t_ns = i * kPeriodNs;
    s.wall_ns = s.t_ns + offset;
    for (long r = 0; r < rails; ++r) {
      const int32_t ma = 800 + 8 * static_cast<int32_t>((i + r * 7) % 50);
      s.values[static_cast<size_t>(r)] = energy::RailValue{int64_t{5000} * ma, 5000, ma, 0};
    }
    chunker.add(s);
    for (const auto& c : chunker.take_closed()) {
      if (!ok_or_say((*store)->readings().put_chunk(*boot, *ids, c), "cannot store a chunk")) return 1;
    }
  }
  if (!ok_or_say((*store)->readings().put_chunk(*boot, *ids, chunker.open_chunk()), "cannot store the last chunk"))
    return 1;
  if (!ok_or_say((*store)->commit(), "cannot commit")) return 1;
  if (!ok_or_say((*store)->checkpoint(), "cannot checkpoint")) return 1;
  std::printf("%s: %ld h of %ld rails (%lld sweeps) in %s\n", kProgram, hours, rails, static_cast<long long>(sweeps),
              path.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return energy::bench::guarded_main(kProgram, [&] {
    if (argc < 3 || argc > 4) {
      std::fprintf(stderr, "usage: %s DB HOURS [RAILS]\n", kProgram);
      return 2;
    }
    long hours = energy::bench::whole_number_or_exit(kProgram, "HOURS", argv[2], 1, long{24} * 90);
    long rails = argc == 4 ? energy::bench::whole_number_or_exit(kProgram, "RAILS", argv[3], 1, 64) : 3;
    return run(argv[1], hours, rails);
  });
}
