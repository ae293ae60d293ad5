// Whole-number arguments of the benchmarks: the whole text a number within
// [min, max], or a usage error naming the option and the text (no atoi that
// reads "10x" as 10 and "x" as 0). And guarded_main: a benchmark's main whose
// exceptions end it with their message and status 1.
//
// Thread-safety: pure functions.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>

namespace energy::bench {

inline std::optional<long> whole_number(const char* text, long min, long max) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < min || v > max) return std::nullopt;
  return v;
}

// whole_number, or exit status 2 with "PROGRAM: OPTION wants a whole number
// from MIN to MAX, got 'TEXT'".
inline long whole_number_or_exit(const char* program, const std::string& option, const char* text, long min, long max) {
  auto v = whole_number(text, min, max);
  if (v) return *v;
  std::fprintf(stderr, "%s: %s wants a whole number from %ld to %ld, got '%s'\n", program, option.c_str(), min, max,
               text);
  std::exit(2);
}

// body() as main's result; an exception escaping it is reported as
// "PROGRAM: WHAT" with status 1.
template <typename Body>
int guarded_main(const char* program, Body&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
  } catch (...) {
    std::fprintf(stderr, "%s: unknown exception\n", program);
  }
  return 1;
}

}  // namespace energy::bench
