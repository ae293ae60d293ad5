// Internal to energyd-sim's command line: shared context, argument parsing
// and one entry point per subcommand (cli_<command>.cpp).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "energy/result.h"
#include "energysim/board_state.h"
#include "energysim/catalog.h"
#include "energysim/cli.h"

namespace energy::sim {

// Where a subcommand writes, and its two ways to fail.
struct CliContext {
  std::ostream& out;
  std::ostream& err;
  const CliEnv& env;

  // A bad argument: the message names it; exit code 2.
  int usage_error(const std::string& command, const Error& error) const;
  // The work failed; exit code 1.
  int failure(const std::string& command, const Error& error) const;
};

// Options of one subcommand: "--name value", "--name=value", "--flag".
class ArgParser {
 public:
  void option(std::string name, std::optional<std::string>* value);
  void repeated(std::string name, std::vector<std::string>* values);
  void flag(std::string name, bool* value);
  // kInvalid naming the offending argument; fills the bound variables.
  Status parse(const std::vector<std::string>& args) const;

 private:
  struct Spec {
    std::string name;
    std::optional<std::string>* single = nullptr;
    std::vector<std::string>* list = nullptr;
    bool* flag = nullptr;
  };
  const Spec* find(std::string_view name) const;
  static Status store(const Spec& spec, const std::string& value);
  std::vector<Spec> specs_;
};

bool wants_help(const std::vector<std::string>& args);
// A whole-string decimal integer; kInvalid naming `what` otherwise.
Result<std::int64_t> parse_integer(std::string_view text, const std::string& what);

// A --rail NAME=MV:MA option.
struct RailOverride {
  std::string name;
  RailState value;
};
Result<RailOverride> parse_rail_override(const std::string& text);
// --hwmon-offset / --iio-offset: 0..10000; 0 when absent.
Result<int> parse_offset(const std::optional<std::string>& text, const char* option);

// The data file per the search order of data_file.h, loaded. A failure with
// --data given is a usage error, otherwise a failure: `exit_code` says which.
struct LoadedCatalog {
  std::optional<Catalog> catalog;
  int exit_code = kExitOk;
};
LoadedCatalog load_catalog(const CliContext& cli, const std::string& command,
                           const std::optional<std::string>& data_flag);

// The board --board and --l4t name, from the data file load_catalog finds;
// nothing if it was not found (reported: an unknown board is a usage error).
struct BoardLookup {
  std::optional<BoardSpec> spec;
  int exit_code = kExitOk;
};
BoardLookup find_board(const CliContext& cli, const std::string& command, const std::optional<std::string>& data_flag,
                       const std::string& board, int l4t);

int run_list(const CliContext& cli, const std::vector<std::string>& args);
int run_create(const CliContext& cli, const std::vector<std::string>& args);
int run_live_board(const CliContext& cli, const std::vector<std::string>& args);
int run_ctl(const CliContext& cli, const std::vector<std::string>& args);
int run_workload(const CliContext& cli, const std::vector<std::string>& args);
int run_study(const CliContext& cli, const std::vector<std::string>& args);

}  // namespace energy::sim
