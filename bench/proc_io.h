// A process's /proc/PID/io write counters, for the benchmarks that count
// what a process writes (issue 16).
//
// Thread-safety: pure function (reads procfs).
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

namespace energy::bench {

// write_bytes: page-cache folios made dirty, counted whole; wchar: bytes
// handed to write calls. -1 where the file or the field cannot be read.
struct ProcIo {
  int64_t write_bytes = -1;
  int64_t wchar = -1;
};

// /proc/`pid`/io in one read; `pid` "self" is this process.
inline ProcIo proc_io(const std::string& pid) {
  std::ifstream io("/proc/" + pid + "/io");
  ProcIo out;
  std::string name;
  int64_t value = 0;
  while (io >> name >> value) {
    if (name == "write_bytes:") out.write_bytes = value;
    if (name == "wchar:") out.wchar = value;
  }
  return out;
}

}  // namespace energy::bench
