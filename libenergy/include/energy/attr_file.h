// AttrFile: one sysfs attribute, kept open and re-read with pread at offset 0
// (sysfs regenerates the value on every read at offset 0, so a reopen per
// tick would only cost syscalls).
//
// A read that fails leaves the value unknown and returns the errno; it never
// yields a zero. If the file vanished (ENOENT, ENODEV, ESTALE) the descriptor
// is dropped and the next read tries to open the path again, so a sensor that
// returns is picked up without rediscovery.
//
// Thread-safety: one thread at a time per object.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "energy/result.h"
#include "energy/unique_fd.h"

namespace energy {

class AttrFile {
 public:
  AttrFile() = default;
  // host_path: where to open; label: what error messages call the file.
  AttrFile(std::string host_path, std::string label);

  // Integer value; errors carry the errno (kIo) or the bad text (kParse).
  Result<int64_t> read_int();
  Result<std::string> read_text();
  const std::string& label() const { return label_; }
  bool configured() const { return !host_path_.empty(); }

 private:
  Result<size_t> read_into(char* buf, size_t cap);

  std::string host_path_;
  std::string label_;
  UniqueFd fd_;
};

// Parses a sysfs integer: optional sign, decimal digits, then optional
// whitespace and a unit suffix such as " ma" or " mw" (L4T 32 staging driver).
// `what` names the file in the error message.
Result<int64_t> parse_sysfs_int(std::string_view text, std::string_view what);

}  // namespace energy
