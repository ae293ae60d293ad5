// energyd-sim's command line: `list`, `create`, `help` (later rounds add
// `run` for a live FUSE tree and `workload`). Writes only to the streams it
// is given, reads the environment only through CliEnv.
//
// Exit codes: 0 success; 1 the work failed (I/O, unusable data file found by
// the search, root not empty); 2 a bad argument (unknown option or board,
// malformed value, unknown rail, unusable --data file) - the message names it.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace energy::sim {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

struct CliEnv {
  std::optional<std::string> data_file;  // value of ENERGYD_SIM_DATA, if set
};

// `args` excludes the program name.
int run_cli(const std::vector<std::string>& args, const CliEnv& env, std::ostream& out, std::ostream& err);

}  // namespace energy::sim
