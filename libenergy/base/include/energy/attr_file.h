// AttrFile: one sysfs attribute, kept open and re-read with pread at offset 0
// (sysfs regenerates the value on every read at offset 0, so a reopen per
// tick would only cost syscalls).
//
// Opening goes through SysRoot's bounded, confined seam (sysroot.h): a file
// outside the root, or one that is not a regular file (a FIFO would block the
// reader forever), is an error naming it, and open() never blocks.
//
// A read that fails leaves the value unknown and returns the errno; it never
// yields a zero. If the file vanished (ENOENT, ENODEV, ESTALE) the descriptor
// is dropped and the next read tries to open the path again, so a sensor that
// returns is picked up without rediscovery.
//
// Thread-safety: one thread at a time per object.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "energy/result.h"
#include "energy/sysroot.h"
#include "energy/unique_fd.h"

namespace energy {

class AttrFile {
 public:
  AttrFile() = default;
  // The board file `board_path` under `root`; errors name the board path.
  AttrFile(const SysRoot& root, std::string board_path);
  // A host path (root "/"); label: what error messages call the file.
  AttrFile(std::string host_path, std::string label);

  // Integer value (parse_sysfs_int); errors carry the errno (kIo) or the bad
  // text (kParse). Content longer than 63 bytes is a kParse error.
  Result<int64_t> read_int();
  // The same without a Result, for the reads of every tick (issue 16): true
  // with `value` set, or false with `*error` (when given) set as above.
  bool read_int(int64_t& value, Error* error);
  // Text with trailing newlines and NULs removed; at most 4095 bytes.
  Result<std::string> read_text();
  const std::string& label() const { return label_; }
  bool configured() const { return !path_.empty(); }

 private:
  // The bytes read, or -1 with `*error` (when given) set.
  ssize_t read_into(char* buf, size_t cap, Error* error);

  SysRoot root_{"/"};
  std::string path_;  // board path under root_
  std::string label_;
  UniqueFd fd_;
};

// Parses a sysfs integer in full int64 range (no truncation): an optional
// '-', decimal digits, then optionally one space and a unit the L4T 32
// staging driver appends ("ma", "mw", "mv", "ms", any case), then only
// newlines or NULs. Anything else (empty text, leading blanks, '+', other
// trailing text, a value beyond int64) is a kParse error naming
// `what` and showing the text.
Result<int64_t> parse_sysfs_int(std::string_view text, std::string_view what);
// Whether `text` is non-empty and only the digits 0-9 (no sign, no blanks).
bool all_digits(std::string_view text);

// A value outside [min, max] is a kInvalid error with errno ERANGE naming
// `what`, the value, the range and `unit` ("mV"); otherwise the value.
Result<int64_t> check_range(int64_t value, std::string_view what, int64_t min, int64_t max, std::string_view unit);

}  // namespace energy
