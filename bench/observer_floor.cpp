// observer_floor: the floor poller of bench/observer_bench (issue 16).
//
// One thread, nothing else: sleep to an absolute CLOCK_MONOTONIC deadline
// (clock_nanosleep, TIMER_ABSTIME), then pread each given file once. It runs a
// fixed number of ticks and then prints, on one line, what it cost itself over
// exactly those ticks:
//   ticks=N cpu_ns=N ctxsw=N seconds=F
// cpu_ns from /proc/self/schedstat (time on CPU), ctxsw the voluntary plus
// involuntary context switches from /proc/self/status, both read before the
// first and after the last tick (outside the loop).
//
// The counted ticks start after one uncounted tick and a short sleep, and
// end with another short sleep. The kernel adds a running thread's time to
// schedstat only when it stops or the scheduler's tick comes, so a process
// that reads its counters while still in its first slice has the rest of
// its start-up (exec, the dynamic loader, the opens: about 1 ms here)
// charged to its first counted sleep: at 100 ms a window of 60 ticks read
// about 20 us a tick too much that way (observer_bench --control,
// docs/PERFORMANCE.md "The floor overcharged"). The sleep after the last
// tick puts that tick's slice into the count in the same way; its own
// context switch is left out of ctxsw.
//
// Usage: observer_floor PERIOD_US TICKS FILE...
// Exit status: 0 on success, 2 on a usage error, 1 when a file cannot be
// opened or read or the counters cannot be read.
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

// The whole number at the start of `text` (after blanks), -1 when there is none.
long long leading_number(const char* text) {
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text, &end, 10);
  return end == text || errno != 0 || v < 0 ? -1 : v;
}

// The calling process's (single thread's) time on CPU, -1 when unreadable.
long long read_cpu_ns() {
  char line[128];
  FILE* f = std::fopen("/proc/self/schedstat", "r");
  if (f == nullptr) return -1;
  bool got = std::fgets(line, sizeof line, f) != nullptr;
  std::fclose(f);
  return got ? leading_number(line) : -1;
}

// Its voluntary plus involuntary context switches, -1 when unreadable.
long long read_ctxsw() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  static const char* const kKeys[] = {"voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:"};
  char line[256];
  long long sum = 0;
  int seen = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    for (const char* key : kKeys) {
      size_t n = std::strlen(key);
      if (std::strncmp(line, key, n) != 0) continue;
      long long v = leading_number(line + n);
      if (v < 0) break;
      sum += v;
      ++seen;
    }
  }
  std::fclose(f);
  return seen == 2 ? sum : -1;
}

void advance(timespec& t, long period_us) {
  t.tv_nsec += period_us * 1000L;
  while (t.tv_nsec >= 1000000000L) {
    t.tv_nsec -= 1000000000L;
    ++t.tv_sec;
  }
}

// The loop itself: returns false when a read fails.
bool poll(const std::vector<int>& fds, long period_us, long ticks) {
  timespec next{};
  clock_gettime(CLOCK_MONOTONIC, &next);
  char buf[64];
  for (long i = 0; i < ticks; ++i) {
    advance(next, period_us);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr) != 0) {
    }
    for (int fd : fds) {
      if (pread(fd, buf, sizeof buf, 0) <= 0) return false;
    }
  }
  return true;
}

double now_s() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: observer_floor PERIOD_US TICKS FILE...\n");
    return 2;
  }
  char* end = nullptr;
  long period_us = std::strtol(argv[1], &end, 10);
  if (*end != '\0' || period_us <= 0)
    return std::fprintf(stderr, "observer_floor: PERIOD_US '%s' is not a positive integer\n", argv[1]), 2;
  long ticks = std::strtol(argv[2], &end, 10);
  if (*end != '\0' || ticks <= 0)
    return std::fprintf(stderr, "observer_floor: TICKS '%s' is not a positive integer\n", argv[2]), 2;
  std::vector<int> fds;
  for (int i = 3; i < argc; ++i) {
    int fd = open(argv[i], O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::fprintf(stderr, "observer_floor: cannot open %s: %s\n", argv[i], std::strerror(errno)), 1;
    fds.push_back(fd);
  }
  // One tick not counted (the code and the files' paths warm, as a
  // running daemon's are); the switches read; then a sleep that puts all
  // that into schedstat before it is read. After the last tick, a sleep
  // that puts the tick into schedstat, read before the switches are. The
  // two brief sleeps' switches are the bench's own, left out of ctxsw.
  const timespec brief{0, 100000};  // 100 us: long enough to be a real sleep
  bool ok = poll(fds, period_us, 1);
  long long ctxsw0 = read_ctxsw();
  nanosleep(&brief, nullptr);
  long long cpu0 = read_cpu_ns();
  double t0 = now_s();
  ok = ok && poll(fds, period_us, ticks);
  double t1 = now_s();
  nanosleep(&brief, nullptr);
  long long cpu1 = read_cpu_ns();
  long long ctxsw1 = read_ctxsw();
  if (!ok) return std::fprintf(stderr, "observer_floor: a pread failed\n"), 1;
  if (cpu0 < 0 || cpu1 < 0 || ctxsw0 < 0 || ctxsw1 < 0)
    return std::fprintf(stderr, "observer_floor: cannot read /proc/self/schedstat or status\n"), 1;
  std::printf("ticks=%ld cpu_ns=%lld ctxsw=%lld seconds=%.6f\n", ticks, cpu1 - cpu0, std::max(0LL, ctxsw1 - ctxsw0 - 2),
              t1 - t0);
  return 0;
}
