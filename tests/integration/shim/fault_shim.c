/* fault_shim: an LD_PRELOAD library for integration tests that steps the
 * wall clock and stalls storage syncs of one process (energyd), as a user's
 * machine does when NTP jumps at boot or an SD card takes a second to fsync.
 *
 * Control: $ENERGYD_FAULT_SHIM names a file of two native int64 values,
 * written by the test at any time (the shim maps it shared):
 *   [0] wall-clock offset in ns, added to CLOCK_REALTIME(_COARSE) readings,
 *       gettimeofday() and time();
 *   [1] delay in ms before every fsync() / fdatasync().
 * Without the variable, or before the file exists, the shim changes nothing.
 * CLOCK_MONOTONIC and CLOCK_BOOTTIME are never touched.
 * Written in C: glibc declares these functions noexcept in C++. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static const volatile int64_t* g_control;

static const volatile int64_t* control(void) {
  const volatile int64_t* c = __atomic_load_n(&g_control, __ATOMIC_ACQUIRE);
  if (c != NULL) return c;
  const char* path = getenv("ENERGYD_FAULT_SHIM");
  if (path == NULL) return NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  void* m = mmap(NULL, 2 * sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return NULL;
  const volatile int64_t* expected = NULL;
  if (!__atomic_compare_exchange_n(&g_control, &expected, (const volatile int64_t*)m, 0, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    munmap(m, 2 * sizeof(int64_t));
    return expected;
  }
  return (const volatile int64_t*)m;
}

static int64_t wall_offset_ns(void) {
  const volatile int64_t* c = control();
  return c == NULL ? 0 : c[0];
}

static void stall_sync(void) {
  const volatile int64_t* c = control();
  int64_t ms = c == NULL ? 0 : c[1];
  if (ms <= 0) return;
  struct timespec t = {(time_t)(ms / 1000), (long)((ms % 1000) * 1000000)};
  while (nanosleep(&t, &t) != 0) {
  }
}

static void shift(struct timespec* ts, int64_t offset_ns) {
  int64_t ns = (int64_t)ts->tv_nsec + offset_ns % 1000000000;
  int64_t s = (int64_t)ts->tv_sec + offset_ns / 1000000000 + ns / 1000000000;
  ns %= 1000000000;
  if (ns < 0) {
    ns += 1000000000;
    s -= 1;
  }
  ts->tv_sec = (time_t)s;
  ts->tv_nsec = (long)ns;
}

typedef int (*clock_gettime_fn)(clockid_t, struct timespec*);
typedef int (*gettimeofday_fn)(struct timeval*, void*);
typedef int (*sync_fn)(int);

int clock_gettime(clockid_t id, struct timespec* ts) {
  static clock_gettime_fn next;
  if (next == NULL) next = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
  int r = next(id, ts);
  if (r == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) shift(ts, wall_offset_ns());
  return r;
}

int gettimeofday(struct timeval* tv, void* tz) {
  static gettimeofday_fn next;
  if (next == NULL) next = (gettimeofday_fn)dlsym(RTLD_NEXT, "gettimeofday");
  int r = next(tv, tz);
  if (r == 0 && tv != NULL) {
    struct timespec ts = {tv->tv_sec, (long)tv->tv_usec * 1000};
    shift(&ts, wall_offset_ns());
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = (suseconds_t)(ts.tv_nsec / 1000);
  }
  return r;
}

time_t time(time_t* out) {
  struct timespec ts = {0, 0};
  clock_gettime(CLOCK_REALTIME, &ts);
  if (out != NULL) *out = ts.tv_sec;
  return ts.tv_sec;
}

int fsync(int fd) {
  static sync_fn next;
  if (next == NULL) next = (sync_fn)dlsym(RTLD_NEXT, "fsync");
  stall_sync();
  return next(fd);
}

int fdatasync(int fd) {
  static sync_fn next;
  if (next == NULL) next = (sync_fn)dlsym(RTLD_NEXT, "fdatasync");
  stall_sync();
  return next(fd);
}
