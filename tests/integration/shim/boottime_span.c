/* A command for the pinned-run test (issue 15): writes CLOCK_BOOTTIME (ns,
 * the clock energyd and energyd-sim stamp readings with) as its first and
 * last act, sleeping MS milliseconds in between, so the test knows the
 * command's own span to the microsecond.
 * Usage: boottime_span MS FILE  (FILE gets "START_NS STOP_NS\n"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long boot_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char** argv) {
  long long start = boot_ns();
  if (argc != 3) {
    fprintf(stderr, "usage: boottime_span MS FILE\n");
    return 2;
  }
  long ms = strtol(argv[1], NULL, 10);
  struct timespec wait = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&wait, &wait) != 0 && errno == EINTR) {
  }
  long long stop = boot_ns();
  FILE* f = fopen(argv[2], "we");
  if (f == NULL) return 1;
  fprintf(f, "%lld %lld\n", start, stop);
  return fclose(f) == 0 ? 0 : 1;
}
