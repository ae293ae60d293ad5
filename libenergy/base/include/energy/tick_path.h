// ENERGY_TICK_PATH marks a function that runs on every sampling tick
// (issue 16). GCC puts such functions together in .text.hot, so the code
// of a tick spans a few pages rather than pages spread over the binary.
// After a 100 ms sleep each page a tick touches is cold (a TLB miss and
// cache misses), so a tick costs more the more pages it touches:
// observer_bench counts them ("pages/tick"; docs/PERFORMANCE.md "Pages a
// tick touches"). A function called only on errors or once a second stays
// unmarked, and so do functions that are always inlined.
#pragma once

#if defined(__GNUC__)
#define ENERGY_TICK_PATH __attribute__((hot))
#else
#define ENERGY_TICK_PATH
#endif
