// SysRoot: the board's file system as energyd sees it, under a root
// directory ("/" on a real board, a simulator tree in tests and demos).
//
// Board paths are absolute paths as on the board ("/sys/bus/i2c/devices").
// Symlinks are resolved inside the root as chroot would: an absolute target
// (real boards make /proc/device-tree an absolute link to
// /sys/firmware/devicetree/base) restarts at the root, and ".." never climbs
// above it. Used at discovery time only; the sampling path keeps files open.
//
// Thread-safety: const methods may be called from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "energy/result.h"

namespace energy {

class SysRoot {
 public:
  explicit SysRoot(std::string root_dir);

  const std::string& root_dir() const { return root_; }

  // Host path of a board path with every symlink resolved inside the root.
  // Components that do not exist are appended unresolved.
  std::string resolve(std::string_view board_path) const;

  // Whole file content with trailing newlines and NULs removed.
  Result<std::string> read_text(std::string_view board_path) const;
  // Raw content, including NUL separators (device-tree string lists).
  Result<std::string> read_raw(std::string_view board_path) const;
  // Entry names of a directory, sorted; "." and ".." omitted.
  Result<std::vector<std::string>> list_dir(std::string_view board_path) const;
  bool exists(std::string_view board_path) const;
  bool is_dir(std::string_view board_path) const;

 private:
  std::string root_;
};

// Joins board path components with exactly one '/' between them.
std::string join_path(std::string_view a, std::string_view b);

}  // namespace energy
