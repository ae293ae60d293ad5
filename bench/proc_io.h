// One field of a process's /proc/PID/io (write_bytes, wchar, ...), for the
// benchmarks that count what a process writes (issue 16).
//
// Thread-safety: pure function (reads procfs).
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

namespace energy::bench {

// The field `key` (its name without the colon) of /proc/`pid`/io; `pid`
// "self" is this process. -1 when the file or the field cannot be read.
inline int64_t proc_io_field(const std::string& pid, const std::string& key) {
  std::ifstream io("/proc/" + pid + "/io");
  std::string name;
  int64_t value = 0;
  while (io >> name >> value) {
    if (name.size() == key.size() + 1 && name.compare(0, key.size(), key) == 0 && name.back() == ':') return value;
  }
  return -1;
}

}  // namespace energy::bench
