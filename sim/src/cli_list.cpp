// `energyd-sim list`: one line per board x generation that can be simulated:
//   <board id> <L4T> <driver[+driver]> <rail> <rail> ...
// Rails are the connected channels' labels (NC included, as the board shows
// them); a channel without a label appears as its rail id.
#include <iomanip>
#include <set>

#include "cli_internal.h"

namespace energy::sim {
namespace {

constexpr const char* kListHelp =
    "Usage: energyd-sim list [--all] [--data FILE]\n\n"
    "Prints one line per simulated board x L4T generation:\n"
    "  <board id> <L4T> <power-monitor driver(s)> <rails...>\n"
    "  --all     also list the data file's entries that cannot be simulated, and why\n";

std::string drivers(const BoardSpec& spec) {
  std::string out;
  std::set<std::string> seen;
  for (const PowerMonitorSpec& m : spec.monitors) {
    if (seen.insert(driver_name(m.layout)).second) out += (out.empty() ? "" : "+") + std::string(driver_name(m.layout));
  }
  return out;
}

std::string rails(const BoardSpec& spec) {
  std::string out;
  for (const PowerMonitorSpec& m : spec.monitors) {
    for (const ChannelSpec& c : m.channels) {
      if (!c.disabled) out += (out.empty() ? "" : " ") + (c.label.empty() ? rail_id(m, c) : c.label);
    }
  }
  return out;
}

void print_entry(std::ostream& out, const BoardSpec& spec) {
  out << std::left << std::setw(20) << spec.id << " " << std::setw(3) << spec.l4t << " " << std::setw(15)
      << drivers(spec) << " " << rails(spec) << "\n";
}

}  // namespace

int run_list(const CliContext& cli, const std::vector<std::string>& args) {
  if (wants_help(args)) {
    cli.out << kListHelp;
    return kExitOk;
  }
  std::optional<std::string> data;
  bool all = false;
  ArgParser parser;
  parser.option("--data", &data);
  parser.flag("--all", &all);
  Status parsed = parser.parse(args);
  if (!parsed) return cli.usage_error("list", parsed.error());
  LoadedCatalog loaded = load_catalog(cli, "list", data);
  if (!loaded.catalog) return loaded.exit_code;
  for (const CatalogEntry& entry : loaded.catalog->entries()) {
    if (entry.spec) print_entry(cli.out, *entry.spec);
    if (!entry.spec && all) cli.out << "# not simulated: " << entry.spec.error().message << "\n";
  }
  return kExitOk;
}

}  // namespace energy::sim
