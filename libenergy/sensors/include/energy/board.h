// Board identification from the device tree and /etc/nv_tegra_release.
//
// Missing files are normal on non-Jetson trees: the fields stay empty and
// `known` is false. Thread-safety: reentrant.
#pragma once

#include <string>
#include <vector>

#include "energy/sysroot.h"

namespace energy {

struct BoardIdentity {
  bool known = false;
  std::string model;                    // /proc/device-tree/model, NUL stripped
  std::vector<std::string> compatible;  // most specific first
  std::string l4t_release;              // e.g. "36.4.3", empty if unknown
  std::string l4t_board;                // t210ref | t186ref | generic
};

BoardIdentity identify_board(const SysRoot& root);

// Parses the first line of /etc/nv_tegra_release: "# R36 (release),
// REVISION: 4.3, ..." gives release "36.4.3" and board "generic".
void parse_nv_tegra_release(const std::string& text, BoardIdentity& out);

}  // namespace energy
