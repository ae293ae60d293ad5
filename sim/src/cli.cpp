// energyd-sim entry: dispatch to one function per subcommand (a row of kCommands each).
#include "energysim/cli.h"

#include <iomanip>

#include "cli_internal.h"
#include "energysim/data_file.h"

namespace energy::sim {
namespace {

struct Command {
  const char* name;
  int (*run)(const CliContext&, const std::vector<std::string>&);
  const char* summary;
};

constexpr Command kCommands[] = {
    {"list", run_list, "one line per simulated board x L4T generation: id, L4T, driver(s), rails"},
    {"create", run_create, "write the static file tree of one board under a root directory"},
    {"run", run_live_board, "serve one board's tree live (FUSE) with a power model and a control socket"},
    {"ctl", run_ctl, "send one command to a running simulator's control socket"},
    {"workload", run_workload, "run a synthetic GPU workload against a running simulator"},
    {"study", run_study, "a study workload in model time: grid energy minimum next to DVFS"},
};

void print_usage(std::ostream& out) {
  out << "Usage: energyd-sim <command> [options]\n\n"
         "Simulates NVIDIA Jetson boards for energyd: the /sys, /proc and /etc files a\n"
         "board of a given kind and L4T generation shows, written once (create) or\n"
         "served live with a power model, exact ground truth and fault injection (run),\n"
         "so energyd can be run and tested with --root pointing at them.\n\nCommands:\n";
  for (const Command& command : kCommands) {
    out << "  " << std::left << std::setw(16) << command.name << command.summary << "\n";
  }
  out << "  " << std::setw(16) << "help [COMMAND]"
      << "this text, or the options of COMMAND\n\n"
         "Board data: --data FILE, else $ENERGYD_SIM_DATA, else\n  "
      << installed_data_file() << ", else\n  " << source_data_file()
      << "\nExit codes: 0 success, 1 failure, 2 bad argument.\n";
}

const Command* find_command(const std::string& name) {
  for (const Command& command : kCommands) {
    if (name == command.name) return &command;
  }
  return nullptr;
}

int run_help(const CliContext& cli, const std::vector<std::string>& args) {
  if (args.empty()) {
    print_usage(cli.out);
    return kExitOk;
  }
  const Command* command = find_command(args.front());
  if (command == nullptr) {
    return cli.usage_error("help", make_error(ErrorCode::kInvalid, "unknown command '" + args.front() + "'"));
  }
  return command->run(cli, {"--help"});
}

}  // namespace

int run_cli(const std::vector<std::string>& args, const CliEnv& env, std::ostream& out, std::ostream& err) {
  const CliContext cli{out, err, env};
  if (args.empty()) {
    print_usage(err);
    return kExitUsage;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args.front() == "help" || args.front() == "--help" || args.front() == "-h") return run_help(cli, rest);
  const Command* command = find_command(args.front());
  if (command == nullptr) {
    const std::string message =
        "unknown command '" + args.front() + "' (commands: list, create, run, ctl, workload, study, help)";
    return cli.usage_error("", make_error(ErrorCode::kInvalid, message));
  }
  return command->run(cli, rest);
}

}  // namespace energy::sim
