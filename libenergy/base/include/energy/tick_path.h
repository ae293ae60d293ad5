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
