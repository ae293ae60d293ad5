// scrape_bench: what Prometheus scrapes cost energyd (docs/PERFORMANCE.md,
// "Exporter scrapes").
//
// On a static Orin Nano L4T 36 board tree (energyd-sim create) it runs two
// energyd processes one after the other for the same window at a 10 ms
// sampling period: the reference with no client, then one scraped at
// `--rate` scrapes per second (default 10) with exactly the exporter's
// queries (collect(): status, energy.counters, clocks, clocks.leases on one
// connection). Reported:
//   - energyd CPU per scrape: (CPU of the scraped run - CPU of the
//     reference) / scrapes, all threads (schedstat);
//   - tick lateness p50/p99/max and missed ticks of both runs, and the
//     ratio scraped / reference;
//   - the exporter side: the time one collect() takes (median).
// Usage: scrape_bench [--seconds N] [--rate R]; prints a Markdown table.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_args.h"
#include "collector.h"
#include "energy/client.h"
#include "harness.h"

namespace fs = std::filesystem;
using energy::testing::ChildProcess;
using energy::testing::run_command;

namespace {

constexpr int kPeriodMs = 10;

struct RunResult {
  int64_t cpu_ns = 0;
  int64_t scrapes = 0;
  int64_t ticks = 0, missed = 0, p50_ns = 0, p99_ns = 0, max_ns = 0;
  double collect_median_s = 0;
};

int64_t process_cpu_ns(pid_t pid) {
  int64_t sum = 0;
  for (const auto& t : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    std::ifstream in(t.path().string() + "/schedstat");
    int64_t ns = 0;
    in >> ns;
    sum += ns;
  }
  return sum;
}

// Scrapes at `rate` per second until `until`; returns each collect()'s time.
std::vector<double> scrape_until(const std::string& sock, int rate, std::chrono::steady_clock::time_point until) {
  std::vector<double> took;
  auto next = std::chrono::steady_clock::now();
  while (next < until) {
    auto a = energy::exporter::collect(sock, std::chrono::milliseconds(2000));
    if (a.up) took.push_back(a.scrape_seconds);
    next += std::chrono::milliseconds(1000 / rate);
    std::this_thread::sleep_until(next);
  }
  return took;
}

void read_sampler(const std::string& sock, RunResult& r) {
  auto c = energy::Client::connect(sock);
  if (!c) return;
  auto s = c->status();
  if (!s) return;
  const auto& sm = (*s)["sampler"];
  r.ticks = sm.value("ticks", 0);
  r.missed = sm.value("missed_ticks", 0);
  r.p50_ns = sm.value("lateness_p50_ns", 0);
  r.p99_ns = sm.value("lateness_p99_ns", 0);
  r.max_ns = sm.value("max_lateness_ns", 0);
}

RunResult run_once(const std::string& dir, int seconds, int rate) {
  std::string sock = dir + "/energyd.sock";
  fs::remove_all(dir + "/state");
  fs::remove(sock);
  ChildProcess d({ENERGYD_BIN, "--root", dir + "/board", "--state-dir", dir + "/state", "--socket", sock,
                  "--sample-period-ms", std::to_string(kPeriodMs)},
                 dir + "/energyd.log");
  RunResult r;
  if (!energy::testing::wait_for_socket(sock, std::chrono::seconds(15))) return r;
  std::this_thread::sleep_for(std::chrono::seconds(2));  // settle
  int64_t cpu0 = process_cpu_ns(d.pid());
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  std::vector<double> took;
  if (rate > 0)
    took = scrape_until(sock, rate, until);
  else
    std::this_thread::sleep_until(until);
  r.cpu_ns = process_cpu_ns(d.pid()) - cpu0;
  r.scrapes = static_cast<int64_t>(took.size());
  std::sort(took.begin(), took.end());
  r.collect_median_s = took.empty() ? 0 : took[took.size() / 2];
  read_sampler(sock, r);
  d.stop(SIGTERM);
  return r;
}

double ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }
double us(int64_t ns) { return static_cast<double>(ns) / 1e3; }

double ratio(int64_t a, int64_t b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0; }

void print(const RunResult& ref, const RunResult& s, int seconds, int rate) {
  std::printf("| scrape_bench: %d s per run, %d ms period, %d scrapes/s | reference | scraped | ratio |\n", seconds,
              kPeriodMs, rate);
  std::printf("|---|---|---|---|\n");
  std::printf("| energyd CPU (ms) | %.1f | %.1f | %.2f |\n", ms(ref.cpu_ns), ms(s.cpu_ns), ratio(s.cpu_ns, ref.cpu_ns));
  std::printf("| scrapes | 0 | %lld | |\n", static_cast<long long>(s.scrapes));
  double per_scrape = s.scrapes > 0 ? ms(s.cpu_ns - ref.cpu_ns) / static_cast<double>(s.scrapes) : 0;
  std::printf("| energyd CPU per scrape (ms) | | %.3f | |\n", per_scrape);
  std::printf("| collect() median (ms) | | %.3f | |\n", s.collect_median_s * 1e3);
  std::printf("| ticks (since start) | %lld | %lld | |\n", static_cast<long long>(ref.ticks),
              static_cast<long long>(s.ticks));
  std::printf("| missed ticks | %lld | %lld | |\n", static_cast<long long>(ref.missed),
              static_cast<long long>(s.missed));
  std::printf("| lateness p50 (us) | %.0f | %.0f | %.2f |\n", us(ref.p50_ns), us(s.p50_ns),
              ratio(s.p50_ns, ref.p50_ns));
  std::printf("| lateness p99 (us) | %.0f | %.0f | %.2f |\n", us(ref.p99_ns), us(s.p99_ns),
              ratio(s.p99_ns, ref.p99_ns));
  std::printf("| lateness max (us) | %.0f | %.0f | %.2f |\n", us(ref.max_ns), us(s.max_ns),
              ratio(s.max_ns, ref.max_ns));
}

int run(int argc, char** argv) {
  int seconds = 60, rate = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--seconds")
      seconds = static_cast<int>(energy::bench::whole_number_or_exit("scrape_bench", a, argv[i + 1], 1, 86400));
    else if (a == "--rate")
      rate = static_cast<int>(energy::bench::whole_number_or_exit("scrape_bench", a, argv[i + 1], 1, 1000));
    else {
      std::fprintf(stderr, "scrape_bench: unknown option '%s' (--seconds N, --rate N)\n", argv[i]);
      return 2;
    }
  }
  char tmpl[] = "/tmp/scrape_bench.XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) return 1;
  std::string dir = tmpl;
  auto made =
      run_command({ENERGYD_SIM_BIN, "create", "--board", "jetson-orin-nano", "--l4t", "36", "--root", dir + "/board"});
  if (made.exit_code != 0) {
    std::fprintf(stderr, "energyd-sim create failed: %s\n", made.err.c_str());
    return 1;
  }
  RunResult ref = run_once(dir, seconds, 0);
  RunResult scraped = run_once(dir, seconds, rate);
  print(ref, scraped, seconds, rate);
  fs::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return energy::bench::guarded_main("scrape_bench", [&] { return run(argc, argv); });
}
