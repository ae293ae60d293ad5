// `energyd-sim study`: a study workload evaluated on the model's own clock
// (study.h), no mount and no real time: the energy minimum over the CPU x GPU
// grid next to the same workload under the sampled default governors.
#include <iomanip>
#include <sstream>

#include "cli_internal.h"
#include "study.h"

namespace energy::sim {
namespace {

constexpr const char* kStudyHelp =
    "Usage: energyd-sim study --board ID --l4t GEN [--preset NAME] [--batch N] [--data FILE]\n\n"
    "Evaluates a study workload on the simulator's power model, in model time (no\n"
    "mount, no wall clock, the same figures on every run): every CPU x GPU table\n"
    "clock pair pinned, and the sampled default governors (DVFS) from an idle board\n"
    "with 2 s of warm-up and 10 s measured. Prints the energy minimum of the grid,\n"
    "the pinned top clocks and DVFS: energy per item (mJ, the board's total rails),\n"
    "time per item (ms), mean power (mW) and, for DVFS, the share of time at the\n"
    "highest CPU and GPU clocks.\n\n"
    "  --board ID     a board id as `energyd-sim list` prints it (jetson-nano-4gb)\n"
    "  --l4t GEN      L4T generation: 32, 35, 36 or 38\n"
    "  --preset NAME  gpu-bound (default), memory-bound or cpu-heavy\n"
    "  --batch N      items per batch (1..4096, default 16)\n"
    "  --data FILE    board data file (default: see `energyd-sim help`)\n";

constexpr std::int64_t kMaxBatch = 4096;

struct StudyRequest {
  std::string board;
  int l4t = 0;
  std::string preset = "gpu-bound";
  WorkloadMix mix;
  std::int64_t batch = 16;
  std::optional<std::string> data_file;
};

Result<StudyRequest> parse_study(const std::vector<std::string>& args) {
  std::optional<std::string> board, l4t, preset, batch, data;
  ArgParser parser;
  parser.option("--board", &board);
  parser.option("--l4t", &l4t);
  parser.option("--preset", &preset);
  parser.option("--batch", &batch);
  parser.option("--data", &data);
  Status parsed = parser.parse(args);
  if (!parsed) return parsed.take_error();
  if (!board) return make_error(ErrorCode::kInvalid, "option '--board' is required");
  if (!l4t) return make_error(ErrorCode::kInvalid, "option '--l4t' is required");
  StudyRequest request;
  request.board = *board;
  request.data_file = data;
  Result<int> generation = parse_generation(*l4t);
  if (!generation) return generation.take_error();
  request.l4t = *generation;
  if (preset) request.preset = *preset;
  Result<WorkloadMix> mix = preset_mix(request.preset);
  if (!mix) return mix.take_error();
  request.mix = *mix;
  if (batch) {
    Result<std::int64_t> n = parse_integer(*batch, "--batch");
    if (!n) return n.take_error();
    if (*n < 1 || *n > kMaxBatch)
      return make_error(ErrorCode::kInvalid, "--batch " + *batch + " is not within 1.." + std::to_string(kMaxBatch));
    request.batch = *n;
  }
  return request;
}

void print_row(std::ostream& out, const std::string& name, const std::string& clocks, const StudyResult& r) {
  out << "  " << std::left << std::setw(14) << name << std::setw(26) << clocks << std::right << std::fixed
      << std::setprecision(2) << std::setw(10) << r.total_mj_per_item << " mJ/item" << std::setw(10)
      << r.time_per_item_ms << " ms/item" << std::setprecision(0) << std::setw(8) << r.mean_total_mw << " mW\n";
}

std::string clock_text(const StudyClocks& c) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << "CPU " << c.cpu_khz / 1000.0 << " GPU "
    << static_cast<double>(c.gpu_hz) / 1e6 << " MHz";
  return s.str();
}

}  // namespace

int run_study(const CliContext& cli, const std::vector<std::string>& args) {
  if (wants_help(args)) {
    cli.out << kStudyHelp;
    return kExitOk;
  }
  Result<StudyRequest> request = parse_study(args);
  if (!request) return cli.usage_error("study", request.error());
  BoardLookup found = find_board(cli, "study", request->data_file, request->board, request->l4t);
  if (!found.spec) return found.exit_code;
  const BoardSpec& spec = *found.spec;
  Result<GridMinimum> minimum = grid_minimum(spec, request->mix, request->batch);
  if (!minimum) return cli.failure("study", minimum.error());
  const StudyClocks top{spec.cpu.available_khz.back(), spec.gpus.front().available_hz.back()};
  Result<StudyResult> pinned_top = evaluate_study(spec, request->mix, request->batch, fixed_clocks(top));
  if (!pinned_top) return cli.failure("study", pinned_top.error());
  Result<DvfsResult> dvfs = evaluate_dvfs(spec, request->mix, request->batch);
  if (!dvfs) return cli.failure("study", dvfs.error());
  std::ostream& out = cli.out;
  out << spec.id << " L4T " << spec.l4t << ", preset " << request->preset << ", batch " << request->batch
      << " (model time)\n";
  print_row(out, "grid minimum", clock_text(minimum->clocks), minimum->study);
  print_row(out, "pinned top", clock_text(top), *pinned_top);
  std::ostringstream mean;
  mean << std::fixed << std::setprecision(1) << "mean CPU " << dvfs->mean_cpu_mhz << " GPU " << dvfs->mean_gpu_mhz;
  print_row(out, "DVFS", mean.str(), dvfs->study);
  const double dvfs_mj = dvfs->study.total_mj_per_item;
  out << std::setprecision(1) << "  grid minimum vs DVFS: energy "
      << 100.0 * (minimum->study.total_mj_per_item / dvfs_mj - 1) << " %, time per item " << std::showpos
      << 100.0 * (minimum->study.time_per_item_ms / dvfs->study.time_per_item_ms - 1) << std::noshowpos << " %\n"
      << "  DVFS at the highest clocks: CPU " << 100.0 * dvfs->cpu_top_share << " % of the time, GPU "
      << 100.0 * dvfs->gpu_top_share << " % (" << dvfs->items << " items measured)\n";
  return kExitOk;
}

}  // namespace energy::sim
