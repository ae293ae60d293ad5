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
// Usage: observer_floor [--timerfd] [--rearm] [--touch N] [--clock-reads N] [--last-every K N]
//                       PERIOD_US TICKS FILE...
// The options make it a variant that does one more thing energyd's tick does
// (observer_bench --control-floor; docs/PERFORMANCE.md "What a tick's parts
// cost"), to price that thing against the plain floor:
//   --timerfd: waits in a read of a periodic timerfd (energyd's wait) rather
//     than clock_nanosleep;
//   --rearm: arms a second timerfd once a tick (energyd's stall timer);
//   --touch N: reads one cache line on each of N distinct pages of a 64 MiB
//     buffer every tick (1-16384): memory a larger program touches per tick,
//     cold after the sleep;
//   --clock-reads N: reads CLOCK_MONOTONIC N times a tick (1-256), spread
//     between the file reads, as energyd's tick reads the clock between
//     its rails and its clock files (docs/PERFORMANCE.md "Kernel or user
//     space");
//   --last-every K N: reads the last K of the files only on every Nth tick
//     (the Nth, the 2Nth, ...; K 1-256 and at most the files given, N
//     1-100000), as energyd reads the clock files every clock_poll_ms
//     rather than every tick (observer_bench --clocks at periods shorter
//     than that).
// Exit status: 0 on success, 2 on a usage error, 1 when a file cannot be
// opened or read, a timer cannot be made, or the counters cannot be read.
#include <fcntl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
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

struct Variant {
  bool timerfd = false;  // --timerfd
  bool rearm = false;    // --rearm
  long touch = 0;        // --touch N
  long clock_reads = 0;  // --clock-reads N
  long last_files = 0;   // --last-every K N: K
  long last_every = 1;   // --last-every K N: N
};

constexpr long kMaxClockReads = 256;
constexpr long kMaxLastFiles = 256;
constexpr long kMaxLastEvery = 100000;

constexpr long kTouchBytes = 64L << 20;
constexpr long kPage = 4096;

// What the loop needs beyond the files: the timers and the buffer of a variant.
struct Extras {
  int tick_fd = -1;   // --timerfd: periodic, armed anew at the start of each poll()
  int rearm_fd = -1;  // --rearm
  std::vector<unsigned char> buffer;
};

// One tick's extra work of a variant, after the reads: false on a failure.
// Where the touched bytes go, so the reads are not optimised away.
volatile unsigned char touched_sink = 0;

bool extra_work(const Variant& v, const Extras& x) {
  if (v.rearm) {
    itimerspec in_150ms{{0, 0}, {0, 150000000L}};  // never fires: re-armed every tick
    if (timerfd_settime(x.rearm_fd, 0, &in_150ms, nullptr) != 0) return false;
  }
  for (long k = 0; k < v.touch; ++k) {
    long page = k * (kTouchBytes / kPage) / v.touch;
    touched_sink = x.buffer[static_cast<size_t>(page * kPage + 64 * (k % 64))];
  }
  return true;
}

// Where --clock-reads' clock reads go, so they are not optimised away.
volatile long clock_sink = 0;

void clock_read() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  clock_sink = t.tv_nsec;
}

// The loop itself: returns false when a read or a timer fails.
bool poll(const std::vector<int>& fds, long period_us, long ticks, const Variant& v, Extras& x) {
  timespec next{};
  clock_gettime(CLOCK_MONOTONIC, &next);
  if (v.timerfd) {
    // A grid from now on each call: the counted ticks' first deadline is a
    // whole period after the window's start, as the sleeping floor's is
    // (a grid kept from the uncounted tick could fire at once, and the
    // window then held less than its ticks' periods).
    if (x.tick_fd < 0) x.tick_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    timespec first = next;
    advance(first, period_us);
    itimerspec grid{{period_us / 1000000L, (period_us % 1000000L) * 1000L}, first};
    if (x.tick_fd < 0 || timerfd_settime(x.tick_fd, TFD_TIMER_ABSTIME, &grid, nullptr) != 0) return false;
  }
  char buf[64];
  for (long i = 0; i < ticks; ++i) {
    if (v.timerfd) {
      uint64_t expirations = 0;
      while (read(x.tick_fd, &expirations, sizeof expirations) != static_cast<ssize_t>(sizeof expirations)) {
        if (errno != EINTR) return false;
      }
    } else {
      advance(next, period_us);
      while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr) != 0) {
      }
    }
    const auto files = static_cast<long>(fds.size());
    const long skip_from = (i + 1) % v.last_every == 0 ? files : files - v.last_files;  // --last-every
    for (long f = 0; f < files; ++f) {
      // --clock-reads: spread over the reads, the first files one more when they do not divide evenly
      for (long c = v.clock_reads / files + (f < v.clock_reads % files ? 1 : 0); c > 0; --c) clock_read();
      if (f < skip_from && pread(fds[static_cast<size_t>(f)], buf, sizeof buf, 0) <= 0) return false;
    }
    if (!extra_work(v, x)) return false;
  }
  return true;
}

double now_s() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

int usage(const char* why) {
  std::fprintf(stderr,
               "observer_floor: %s\nusage: observer_floor [--timerfd] [--rearm] [--touch N] [--clock-reads N] "
               "[--last-every K N] PERIOD_US TICKS FILE...\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Variant v;
  int arg = 1;
  for (; arg < argc && std::strncmp(argv[arg], "--", 2) == 0; ++arg) {
    std::string opt = argv[arg];
    if (opt == "--timerfd") {
      v.timerfd = true;
    } else if (opt == "--rearm") {
      v.rearm = true;
    } else if (opt == "--touch") {
      if (arg + 1 >= argc) return usage("--touch needs a number of pages");
      v.touch = leading_number(argv[++arg]);
      if (v.touch < 1 || v.touch > kTouchBytes / kPage || std::to_string(v.touch) != argv[arg])
        return usage("--touch takes a whole number of pages from 1 to 16384");
    } else if (opt == "--clock-reads") {
      if (arg + 1 >= argc) return usage("--clock-reads needs a number of reads");
      v.clock_reads = leading_number(argv[++arg]);
      if (v.clock_reads < 1 || v.clock_reads > kMaxClockReads || std::to_string(v.clock_reads) != argv[arg])
        return usage("--clock-reads takes a whole number of reads from 1 to 256");
    } else if (opt == "--last-every") {
      if (arg + 2 >= argc) return usage("--last-every needs a number of files and a number of ticks");
      v.last_files = leading_number(argv[++arg]);
      if (v.last_files < 1 || v.last_files > kMaxLastFiles || std::to_string(v.last_files) != argv[arg])
        return usage("--last-every takes a whole number of files from 1 to 256 first");
      v.last_every = leading_number(argv[++arg]);
      if (v.last_every < 1 || v.last_every > kMaxLastEvery || std::to_string(v.last_every) != argv[arg])
        return usage("--last-every takes a whole number of ticks from 1 to 100000 second");
    } else {
      return usage(("unknown option '" + opt + "'").c_str());
    }
  }
  if (argc - arg < 3) return usage("PERIOD_US, TICKS and at least one FILE are needed");
  char* end = nullptr;
  long period_us = std::strtol(argv[arg], &end, 10);
  if (*end != '\0' || period_us <= 0)
    return std::fprintf(stderr, "observer_floor: PERIOD_US '%s' is not a positive integer\n", argv[arg]), 2;
  long ticks = std::strtol(argv[arg + 1], &end, 10);
  if (*end != '\0' || ticks <= 0)
    return std::fprintf(stderr, "observer_floor: TICKS '%s' is not a positive integer\n", argv[arg + 1]), 2;
  if (v.last_files > argc - arg - 2) return usage("--last-every names more files than are given");
  std::vector<int> fds;
  for (int i = arg + 2; i < argc; ++i) {
    int fd = open(argv[i], O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::fprintf(stderr, "observer_floor: cannot open %s: %s\n", argv[i], std::strerror(errno)), 1;
    fds.push_back(fd);
  }
  Extras x;
  if (v.rearm && (x.rearm_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)) < 0)
    return std::fprintf(stderr, "observer_floor: cannot create a timerfd: %s\n", std::strerror(errno)), 1;
  if (v.touch > 0) x.buffer.assign(static_cast<size_t>(kTouchBytes), 0);  // every page written: resident
  // One tick not counted (the code and the files' paths warm, as a
  // running daemon's are); the switches read; then a sleep that puts all
  // that into schedstat before it is read. After the last tick, a sleep
  // that puts the tick into schedstat, read before the switches are. The
  // two brief sleeps' switches are the bench's own, left out of ctxsw.
  const timespec brief{0, 100000};  // 100 us: long enough to be a real sleep
  bool ok = poll(fds, period_us, 1, v, x);
  long long ctxsw0 = read_ctxsw();
  nanosleep(&brief, nullptr);
  long long cpu0 = read_cpu_ns();
  double t0 = now_s();
  ok = ok && poll(fds, period_us, ticks, v, x);
  double t1 = now_s();
  nanosleep(&brief, nullptr);
  long long cpu1 = read_cpu_ns();
  long long ctxsw1 = read_ctxsw();
  if (!ok) return std::fprintf(stderr, "observer_floor: a pread or a timer failed: %s\n", std::strerror(errno)), 1;
  if (cpu0 < 0 || cpu1 < 0 || ctxsw0 < 0 || ctxsw1 < 0)
    return std::fprintf(stderr, "observer_floor: cannot read /proc/self/schedstat or status\n"), 1;
  std::printf("ticks=%ld cpu_ns=%lld ctxsw=%lld seconds=%.6f\n", ticks, cpu1 - cpu0, std::max(0LL, ctxsw1 - ctxsw0 - 2),
              t1 - t0);
  return 0;
}
