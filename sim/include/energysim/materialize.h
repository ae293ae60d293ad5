// Materialiser: writes a Tree under a root directory as ordinary files,
// directories and symlinks, for readers that take a --root (tests, demos).
//
// Files get the content Node::read() gives for the state, and the node's
// exact mode (umask is overridden). A file whose read fails (a disabled
// INA3221 channel: ENODATA) cannot fail in a static tree: it is written EMPTY,
// with its mode, and listed as "errno <NAME> <path>" in the marker file; a
// reader sees a file that exists and yields no number. Symlinks are written
// verbatim: relative ones resolve inside the root, the absolute
// /proc/device-tree link points at the host path and must be resolved by the
// reader against its root.
//
// The root must be absent or empty, unless `existing` allows replacing a
// previous simulator tree, recognised by its marker file DIR/.energyd-sim
// (lines: "energyd-sim 1", "board <id>", "l4t <N>", then the errno lines).
// A non-empty root without the marker is never touched.
//
// Thread-safety: none needed; touches only the root it is given.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "energy/result.h"
#include "energysim/board_state.h"
#include "energysim/tree.h"

namespace energy::sim {

inline constexpr const char* kMarkerFileName = ".energyd-sim";

enum class ExistingRoot {
  kRefuse,                // a non-empty root is an error (kState)
  kReplaceSimulatorTree,  // a root holding a marker is emptied first
};

struct MaterializeOptions {
  ExistingRoot existing = ExistingRoot::kRefuse;
  std::string board_id;  // written to the marker
  int l4t = 0;           // written to the marker
};

struct FailingFile {
  std::string path;  // tree path, "/sys/..."
  int sys_errno = 0;
};

struct MaterializeReport {
  std::size_t directories = 0;
  std::size_t files = 0;
  std::size_t symlinks = 0;
  std::vector<FailingFile> failing_files;  // written empty; listed in the marker
};

Result<MaterializeReport> materialize_tree(const Tree& tree, const BoardState& state, const std::string& root,
                                           const MaterializeOptions& options);

// "ENODATA" for ENODATA, ...; "errno <n>" for codes the simulator never uses.
std::string errno_name(int sys_errno);

}  // namespace energy::sim
