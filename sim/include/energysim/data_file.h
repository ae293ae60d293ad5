// Where the simulator finds its board data (jetson-boards.yaml), in order:
//   1. --data FILE                       (DataFileSearch::flag)
//   2. environment ENERGYD_SIM_DATA      (DataFileSearch::env; main() reads it)
//   3. the installed copy                ${datadir}/energyd/jetson-boards.yaml
//   4. the source tree's copy            <source>/sim/data/jetson-boards.yaml
// A file named by 1 or 2 must exist: it is never silently skipped.
//
// Thread-safety: pure apart from stat(2) calls.
#pragma once

#include <optional>
#include <string>

#include "energy/result.h"

namespace energy::sim {

struct DataFileSearch {
  std::optional<std::string> flag;  // --data
  std::optional<std::string> env;   // ENERGYD_SIM_DATA (empty counts as unset)
};

std::string installed_data_file();  // compiled-in install path
std::string source_data_file();     // compiled-in source-tree path

// The file to load; kNotFound naming every place looked at.
Result<std::string> locate_data_file(const DataFileSearch& search);

}  // namespace energy::sim
