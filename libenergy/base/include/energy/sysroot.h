// SysRoot: the board's file system as energyd sees it, under a root
// directory ("/" on a real board, a simulator tree in tests and demos).
//
// Board paths are absolute paths as on the board ("/sys/bus/i2c/devices").
// Symlinks are resolved inside the root as chroot would: an absolute target
// (real boards make /proc/device-tree an absolute link to
// /sys/firmware/devicetree/base) restarts at the root, and ".." never climbs
// above it. More than 40 links on one path (the kernel's MAXSYMLINKS) is an
// ELOOP error, never the unresolved path.
//
// Bounded and confined access (docs/SECURITY.md "Files energyd does not
// own"): every open of a board file goes through open_file(), which checks
// that the file's real path lies under the root's real path and refuses
// anything but a regular file, without ever blocking in open() (a FIFO in
// place of a sysfs attribute would otherwise hang the caller forever).
//
// Thread-safety: const methods may be called from any thread.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "energy/result.h"
#include "energy/unique_fd.h"

namespace energy {

enum class FileAccess { kRead, kWrite };

// Largest board file read_raw() reads: sysfs attributes are at most a page,
// and the device tree and release files a few hundred bytes.
inline constexpr size_t kMaxBoardFileBytes = 1 << 20;

// Opens a file energyd does not own without blocking: O_NONBLOCK | O_NOCTTY |
// O_CLOEXEC | O_NOFOLLOW (kWrite: O_WRONLY | O_TRUNC, else O_RDONLY), then
// refuses anything that is not a regular file (sysfs attributes and
// energyd's state files are regular files) with a kInvalid error naming
// `label` and what it is (a FIFO, a socket, a character device, ...), and
// clears O_NONBLOCK. A FIFO opened for writing with no reader (ENXIO) gets
// the same error. Other failures are kIo errors carrying the errno.
Result<UniqueFd> open_regular_file(const std::string& host_path, const std::string& label, FileAccess access);

// Reads at most `limit` bytes from the current offset to the end; more is a
// kInvalid error naming `label`. EINTR is retried.
Result<std::string> read_all(int fd, const std::string& label, size_t limit);

// The board file a SysRoot is reading right now (read_raw, list_dir), for a
// watchdog on another thread to name when a read does not return: a read
// that hangs inside a driver cannot be cancelled, only reported.
// Thread-safety: all methods from any thread.
class ReadWatch {
 public:
  struct Reading {
    std::string board_path;  // empty when no read is in progress
    std::chrono::steady_clock::time_point since;
  };
  void begin(std::string_view board_path);
  void end();
  Reading current() const;

 private:
  mutable std::mutex mu_;
  Reading reading_;
};

class SysRoot {
 public:
  explicit SysRoot(std::string root_dir);

  // A copy whose reads are recorded in `watch` (this object's are not).
  SysRoot watched_by(std::shared_ptr<ReadWatch> watch) const;

  const std::string& root_dir() const { return root_; }

  // Host path of a board path with every symlink resolved inside the root.
  // Components that do not exist are appended unresolved. ELOOP (kIo) after
  // 40 links, naming the board path.
  Result<std::string> resolve(std::string_view board_path) const;
  // resolve(), then realpath(): the host path checked to lie under the
  // root's real path (kDenied otherwise). A file that does not exist or a
  // resolution failure (ELOOP, EACCES) is a kIo error naming the board path.
  Result<std::string> confined_path(std::string_view board_path) const;
  // confined_path() opened with open_regular_file().
  Result<UniqueFd> open_file(std::string_view board_path, FileAccess access) const;

  // Whole file content with trailing newlines and NULs removed.
  Result<std::string> read_text(std::string_view board_path) const;
  // Raw content, including NUL separators (device-tree string lists); at
  // most kMaxBoardFileBytes.
  Result<std::string> read_raw(std::string_view board_path) const;
  // Entry names of a directory, sorted; "." and ".." omitted.
  Result<std::vector<std::string>> list_dir(std::string_view board_path) const;
  bool exists(std::string_view board_path) const;
  bool is_dir(std::string_view board_path) const;

 private:
  std::string root_;
  std::shared_ptr<ReadWatch> watch_;  // may be null
};

// Joins board path components with exactly one '/' between them.
std::string join_path(std::string_view a, std::string_view b);

}  // namespace energy
