// `energyd-sim create`: parse, load the board, apply --rail overrides, build,
// materialise, print where everything is.
#include "cli_internal.h"
#include "cli_summary.h"
#include "energysim/board_tree.h"
#include "energysim/materialize.h"

namespace energy::sim {
namespace {

constexpr const char* kCreateHelp =
    "Usage: energyd-sim create --board ID --l4t GEN --root DIR [options]\n\n"
    "Writes the files a real board of that kind and L4T generation shows under DIR\n"
    "(DIR/sys/..., DIR/proc/device-tree, DIR/etc/nv_tegra_release), every rail at its\n"
    "reference idle value unless set with --rail, then prints each rail's files.\n\n"
    "  --board ID          a board id as `energyd-sim list` prints it (jetson-agx-orin)\n"
    "  --l4t GEN           L4T generation: 32, 35, 36 or 38 (l4t36 is accepted too)\n"
    "  --root DIR          where to write; must be absent or empty (see --force)\n"
    "  --rail NAME=MV:MA   set rail NAME (a label such as VDD_IN, or a rail id such as\n"
    "                      1-0041:2) to MV millivolts and MA milliamps; repeatable.\n"
    "                      INA3221 hwmon trees (L4T 35+) report them as the chip does:\n"
    "                      bus voltage on the 8 mV step, current from the shunt voltage\n"
    "                      on the 40 uV step; 5000:1000 through a 5 mOhm shunt is exact.\n"
    "                      L4T 32 (IIO) and INA238 trees report them unchanged.\n"
    "  --hwmon-offset N    add N to every hwmonN number (readers must discover N)\n"
    "  --iio-offset N      add N to every iio:deviceN number\n"
    "  --data FILE         board data file (default: see `energyd-sim help`)\n"
    "  --force             replace DIR when it holds a previous energyd-sim tree\n";

struct CreateRequest {
  std::string board;
  int l4t = 0;
  std::string root;
  std::vector<RailOverride> rails;
  std::optional<std::string> data_file;
  bool force = false;
  TreeOptions tree_options;
};

struct RawCreateArgs {
  std::optional<std::string> board, l4t, root, data, hwmon_offset, iio_offset;
  std::vector<std::string> rails;
  bool force = false;
};

Result<RawCreateArgs> parse_raw_create(const std::vector<std::string>& args) {
  RawCreateArgs raw;
  ArgParser parser;
  parser.option("--board", &raw.board);
  parser.option("--l4t", &raw.l4t);
  parser.option("--root", &raw.root);
  parser.option("--data", &raw.data);
  parser.option("--hwmon-offset", &raw.hwmon_offset);
  parser.option("--iio-offset", &raw.iio_offset);
  parser.repeated("--rail", &raw.rails);
  parser.flag("--force", &raw.force);
  Status parsed = parser.parse(args);
  if (!parsed) return parsed.take_error();
  const std::pair<const char*, const std::optional<std::string>*> required[] = {
      {"--board", &raw.board}, {"--l4t", &raw.l4t}, {"--root", &raw.root}};
  for (const auto& [name, value] : required) {
    if (!*value) return make_error(ErrorCode::kInvalid, std::string("option '") + name + "' is required");
  }
  return raw;
}

Result<CreateRequest> parse_create(const std::vector<std::string>& args) {
  Result<RawCreateArgs> raw = parse_raw_create(args);
  if (!raw) return raw.take_error();
  Result<int> l4t = parse_generation(*raw->l4t);
  Result<int> hwmon_offset = parse_offset(raw->hwmon_offset, "--hwmon-offset");
  Result<int> iio_offset = parse_offset(raw->iio_offset, "--iio-offset");
  for (const Error* e : {l4t ? nullptr : &l4t.error(), hwmon_offset ? nullptr : &hwmon_offset.error(),
                         iio_offset ? nullptr : &iio_offset.error()}) {
    if (e != nullptr) return *e;
  }
  CreateRequest request{*raw->board, *l4t, *raw->root, {}, raw->data, raw->force, {*hwmon_offset, *iio_offset}};
  for (const std::string& text : raw->rails) {
    Result<RailOverride> rail = parse_rail_override(text);
    if (!rail) return rail.take_error();
    request.rails.push_back(*rail);
  }
  return request;
}

Result<BoardState> requested_state(const BoardSpec& spec, const std::vector<RailOverride>& rails) {
  BoardState state = idle_state(spec);
  for (const RailOverride& rail : rails) {
    Status set = set_rail(state, spec, rail.name, rail.value);
    if (!set) return make_error(set.error().code, "--rail " + rail.name + ": " + set.error().message);
  }
  return state;
}

int write_and_report(const CliContext& cli, const CreateRequest& request, const BoardSpec& spec,
                     const BoardState& state) {
  Result<TreePlan> plan = plan_tree(spec, request.tree_options);
  if (!plan) return cli.failure("create", plan.error());
  Result<Tree> tree = build_board_tree(spec, *plan);
  if (!tree) return cli.failure("create", tree.error());
  const ExistingRoot existing = request.force ? ExistingRoot::kReplaceSimulatorTree : ExistingRoot::kRefuse;
  Result<MaterializeReport> report = materialize_tree(*tree, state, request.root, {existing, spec.id, spec.l4t});
  if (!report) return cli.failure("create", report.error());
  print_summary(cli.out, SummaryInput{spec, state, *tree, *plan, *report, request.root});
  return kExitOk;
}

}  // namespace

int run_create(const CliContext& cli, const std::vector<std::string>& args) {
  if (wants_help(args)) {
    cli.out << kCreateHelp;
    return kExitOk;
  }
  Result<CreateRequest> request = parse_create(args);
  if (!request) return cli.usage_error("create", request.error());
  BoardLookup found = find_board(cli, "create", request->data_file, request->board, request->l4t);
  if (!found.spec) return found.exit_code;
  Result<BoardState> state = requested_state(*found.spec, request->rails);
  if (!state) return cli.usage_error("create", state.error());
  return write_and_report(cli, *request, *found.spec, *state);
}

}  // namespace energy::sim
