// ENERGY_TICK_PATH marks a function that runs on every sampling tick
// (issue 16). GCC puts such functions together in .text.hot, so the code
// of a tick spans a few pages rather than pages spread over the binary,
// and a tick that follows a 100 ms sleep finds fewer of them out of the
// TLB. observer_bench counts the pages a tick touches ("pages/tick"). On
// the development machine the marking, with the cold error paths, took a
// tick from 69-70 pages to 44, and its CPU by less than the measurement's
// noise (docs/PERFORMANCE.md "Pages a tick touches"): cheap to keep, not
// the main cost of a tick. A function called only on errors or once a
// second stays unmarked, and so do functions that are always inlined.
#pragma once

#if defined(__GNUC__)
#define ENERGY_TICK_PATH __attribute__((hot))
#else
#define ENERGY_TICK_PATH
#endif

#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

namespace energy {

// The tick's reads as plain system calls. glibc's read and pread are
// cancellation points: in a process with threads each call switches
// asynchronous cancellation on and off around the system call, about 30
// instructions and their cache lines on every file a tick reads (12 a tick
// on the simulated Orin Nano; docs/PERFORMANCE.md "The tick's reads as
// plain system calls"). energyd never cancels a thread, so the tick's
// reads go through syscall(2), which is not a cancellation point. Same
// return value and errno as read(2) and pread(2).
inline ssize_t tick_read(int fd, void* buf, size_t count) {
  return static_cast<ssize_t>(::syscall(SYS_read, fd, buf, count));
}
inline ssize_t tick_pread(int fd, void* buf, size_t count, off_t offset) {
#if defined(__LP64__)
  return static_cast<ssize_t>(::syscall(SYS_pread64, fd, buf, count, offset));
#else
  return ::pread(fd, buf, count, offset);  // a 32-bit ABI splits the offset; energyd ships for 64-bit only
#endif
}

}  // namespace energy
