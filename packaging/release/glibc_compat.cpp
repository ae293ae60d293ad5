// glibc 2.27 compatibility for the release build (-DENERGY_RELEASE_STATIC=ON,
// cmake/Release.cmake; issue 18).
//
// The release binaries are linked on Debian 11 (glibc 2.31) but must run on
// Ubuntu 18.04 (glibc 2.27). A few functions got a new symbol version after
// 2.27 and Debian 11's headers and static archives (libsqlite3.a, libfuse3.a)
// bind to it. Every executable is linked with `--wrap=NAME` for each NAME
// below, so every reference to NAME, from this project's objects and from the
// static archives alike, goes to __wrap_NAME here, which calls the oldest
// version of NAME (bound with .symver). scripts/check-release.sh fails the
// build if any other symbol newer than GLIBC_2.27 remains.
//
// The old versions behave the same for these callers:
//   fcntl64 (2.28): on 64-bit targets fcntl and fcntl64 are one function; the
//     new name exists for 32-bit large-file support.
//   exp, exp2, log, log2, pow (2.29): the new versions drop the SVID error
//     handling wrapper (matherr); results are the same, errno as in C99.
//   pthread_cond_clockwait (2.30; libstdc++ 10's <condition_variable> calls
//     it for steady_clock deadlines): replaced by pthread_cond_timedwait on
//     CLOCK_REALTIME with the remaining time converted, which is what a
//     build against glibc 2.27 does (a wall-clock step during the wait moves
//     its end, as there). Condition variables here use the default clock.
// Keep ENERGY_GLIBC_WRAPPED in cmake/Release.cmake equal to this list.
#include <time.h>

#include <cerrno>
#include <cstdarg>
#include <cstdint>

#include <pthread.h>

#if defined(__x86_64__)
#define ENERGY_GLIBC_BASE "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define ENERGY_GLIBC_BASE "GLIBC_2.17"
#else
#error "glibc_compat.cpp: the release build supports x86_64 and aarch64 only"
#endif

// energy_old_NAME refers to NAME@<base version> (references only: the symbol
// is defined by glibc).
#define ENERGY_OLD(name) __asm__(".symver energy_old_" #name "," #name "@" ENERGY_GLIBC_BASE)

extern "C" {
int energy_old_fcntl(int fd, int cmd, ...);
double energy_old_exp(double);
double energy_old_exp2(double);
double energy_old_log(double);
double energy_old_log2(double);
double energy_old_pow(double, double);
ENERGY_OLD(fcntl);
ENERGY_OLD(exp);
ENERGY_OLD(exp2);
ENERGY_OLD(log);
ENERGY_OLD(log2);
ENERGY_OLD(pow);

// Every fcntl command takes at most one argument, an int or a pointer; both
// travel in one register on x86_64 and aarch64, so it is read as a pointer.
int __wrap_fcntl64(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  return energy_old_fcntl(fd, cmd, arg);
}

double __wrap_exp(double x) { return energy_old_exp(x); }
double __wrap_exp2(double x) { return energy_old_exp2(x); }
double __wrap_log(double x) { return energy_old_log(x); }
double __wrap_log2(double x) { return energy_old_log2(x); }
double __wrap_pow(double x, double y) { return energy_old_pow(x, y); }

static int64_t energy_ns(const timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; }

// The CLOCK_REALTIME time that lies as far ahead as monotonic_deadline does.
static timespec energy_realtime_deadline(const timespec& monotonic_deadline) {
  timespec mono{}, real{};
  clock_gettime(CLOCK_MONOTONIC, &mono);
  clock_gettime(CLOCK_REALTIME, &real);
  int64_t left = energy_ns(monotonic_deadline) - energy_ns(mono);
  int64_t at = energy_ns(real) + (left > 0 ? left : 0);
  timespec out{};
  out.tv_sec = static_cast<time_t>(at / 1000000000);
  out.tv_nsec = static_cast<long>(at % 1000000000);
  return out;
}

int __wrap_pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
                                  const timespec* abstime) {
  if (clock == CLOCK_REALTIME) return pthread_cond_timedwait(cond, mutex, abstime);
  if (clock != CLOCK_MONOTONIC) return EINVAL;
  timespec deadline = energy_realtime_deadline(*abstime);
  return pthread_cond_timedwait(cond, mutex, &deadline);
}
}
