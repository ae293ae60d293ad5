// `energyd-sim workload`: runs the synthetic workload (workload.h, study.h) in
// real time against a running simulator, through its control socket.
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <iomanip>
#include <thread>

#include "cli_internal.h"
#include "control_client.h"
#include "workload.h"

namespace energy::sim {
namespace {

constexpr const char* kWorkloadHelp =
    "Usage: energyd-sim workload --control SOCKET --items N [options]\n\n"
    "Runs N items (inferences) of synthetic work on the simulated board, in real time, in\n"
    "batches. An item costs GPU megacycles (time cycles / f_gpu), memory-bound time on the\n"
    "GPU, and CPU megacycles on a number of threads (time cycles / (threads x f_cpu)); a\n"
    "batch adds a fixed launch-and-copy time. A batch runs as phases: CPU pre-processing\n"
    "(CPU_THREADS busy), launch and copies (1 thread busy, GPU busy), GPU (GPU load 1000,\n"
    "HOST_THREADS spin-waiting: busy for the governor, a quarter of the power), and in the\n"
    "presets memory (GPU load 300: cores stalled on DRAM). Each phase sets the simulated\n"
    "loads through the control socket and asks the board's effective clocks first and\n"
    "every 10 ms while it runs (the work done carries over), so it\n"
    "follows max_freq and the governors. A mix\n"
    "with a CPU part pins the simulated CPU load (busy threads) while it runs, instead of the\n"
    "host's load, and puts the load source back as it was (host or pinned) at the end. Mixes are in Jetson Nano\n"
    "units; the board's speed factors scale them (sim/README.md, \"Study workloads\").\n"
    "Prints one line: items done, elapsed time, mean GPU MHz, the exact energy of the board's\n"
    "total rails over the run (the simulator's ground truth), and the batch size.\n\n"
    "  --control SOCKET       the simulator's control socket\n"
    "  --items N              how many items (1..1000000); --units N is the same\n"
    "  --preset P             gpu-bound, memory-bound or cpu-heavy (default: the plain GPU\n"
    "                         mix: 4 megacycles and 4000 us of memory per item, no CPU part)\n"
    "  --batch N              items per batch (1..4096, default 1)\n"
    "  --pattern P            constant (back to back, default), step (300 ms idle, all\n"
    "                         items, 300 ms idle) or bursty (bursts of 4 items, 50 ms gaps)\n"
    "  --gpu NAME             devfreq name of the GPU (default: the board's first)\n"
    "Parts of the mix (each overrides the preset's value):\n"
    "  --gpu-megacycles X     GPU megacycles per item (--megacycles X is the same)\n"
    "  --memory-us X          memory-bound microseconds per item\n"
    "  --cpu-megacycles X     CPU megacycles per item (pre-processing)\n"
    "  --cpu-threads N        threads the pre-processing runs on (1..64)\n"
    "  --host-threads N       CPU threads spin-waiting while the GPU works (0..64)\n"
    "  --batch-fixed-us X     launch and copy microseconds per batch\n"
    "  --batch-idle-us X      microseconds per batch the host is blocked between batches\n"
    "                         (nothing busy, the GPU waiting)\n";

std::atomic<bool> g_stop{false};
extern "C" void on_stop_signal(int) { g_stop = true; }

// SIGINT / SIGTERM end the run between units, so the GPU load is reset.
class StopSignals {
 public:
  StopSignals() {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

struct WorkloadRequest {
  std::string control;
  WorkloadParams params;
};

// A number in [min, max]; the message names the option.
Result<double> parse_number(const std::string& text, const char* option, double min, double max) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(value >= min && value <= max)) {
    return make_error(ErrorCode::kInvalid, std::string(option) + " must be a number in " + std::to_string(min) + ".." +
                                               std::to_string(max) + ", not '" + text + "'");
  }
  return value;
}

Result<std::int64_t> parse_count(const std::optional<std::string>& text, const char* option, std::int64_t min,
                                 std::int64_t max, std::int64_t fallback) {
  if (!text) return fallback;
  Result<std::int64_t> n = parse_integer(*text, option);
  if (!n || *n < min || *n > max)
    return make_error(ErrorCode::kInvalid, std::string(option) + " must be an integer in " + std::to_string(min) +
                                               ".." + std::to_string(max) + ", not '" + *text + "'");
  return *n;
}

// The mix options, by name; each overrides the preset's value when given.
struct MixOptions {
  std::optional<std::string> preset, gpu_megacycles, megacycles, memory_us, cpu_megacycles, cpu_threads, host_threads,
      batch_fixed_us, batch_idle_us;
};

Status apply_double(const std::optional<std::string>& text, const char* option, double max, double& field) {
  if (!text) return ok_status();
  Result<double> value = parse_number(*text, option, 0, max);
  if (!value) return value.take_error();
  field = *value;
  return ok_status();
}

Status apply_threads(const std::optional<std::string>& text, const char* option, std::int64_t min,
                     std::uint32_t& field) {
  Result<std::int64_t> n = parse_count(text, option, min, 64, field);
  if (!n) return n.take_error();
  field = static_cast<std::uint32_t>(*n);
  return ok_status();
}

Result<WorkloadMix> build_mix(const MixOptions& o) {
  WorkloadMix mix;
  if (o.preset) {
    Result<WorkloadMix> preset = preset_mix(*o.preset);
    if (!preset) return preset.take_error();
    mix = *preset;
  }
  const std::optional<std::string>& gpu = o.gpu_megacycles ? o.gpu_megacycles : o.megacycles;
  for (Status s : {apply_double(gpu, "--gpu-megacycles", 1e6, mix.gpu_megacycles),
                   apply_double(o.memory_us, "--memory-us", 1e7, mix.memory_us),
                   apply_double(o.cpu_megacycles, "--cpu-megacycles", 1e6, mix.cpu_megacycles),
                   apply_double(o.batch_fixed_us, "--batch-fixed-us", 1e7, mix.batch_fixed_us),
                   apply_double(o.batch_idle_us, "--batch-idle-us", 1e7, mix.batch_idle_us),
                   apply_threads(o.cpu_threads, "--cpu-threads", 1, mix.cpu_threads),
                   apply_threads(o.host_threads, "--host-threads", 0, mix.host_threads)}) {
    if (!s) return s.take_error();
  }
  if (mix.gpu_megacycles <= 0 && mix.memory_us <= 0 && mix.cpu_megacycles <= 0)
    return make_error(ErrorCode::kInvalid,
                      "the mix has no work: give --gpu-megacycles, --memory-us or --cpu-megacycles");
  return mix;
}

Status fill_counts(const std::optional<std::string>& items, const char* items_option,
                   const std::optional<std::string>& batch, WorkloadParams& params) {
  Result<std::int64_t> n = parse_count(items, items_option, 1, 1000000, 0);
  if (!n) return n.take_error();
  Result<std::int64_t> b = parse_count(batch, "--batch", 1, 4096, 1);
  if (!b) return b.take_error();
  params.units = *n;
  params.batch = *b;
  return ok_status();
}

Result<WorkloadRequest> parse_workload(const std::vector<std::string>& args) {
  std::optional<std::string> control, items, units, batch, pattern, gpu;
  MixOptions mix;
  ArgParser parser;
  for (const auto& [name, value] :
       {std::pair{"--control", &control}, std::pair{"--items", &items}, std::pair{"--units", &units},
        std::pair{"--batch", &batch}, std::pair{"--pattern", &pattern}, std::pair{"--gpu", &gpu},
        std::pair{"--preset", &mix.preset}, std::pair{"--gpu-megacycles", &mix.gpu_megacycles},
        std::pair{"--megacycles", &mix.megacycles}, std::pair{"--memory-us", &mix.memory_us},
        std::pair{"--cpu-megacycles", &mix.cpu_megacycles}, std::pair{"--cpu-threads", &mix.cpu_threads},
        std::pair{"--host-threads", &mix.host_threads}, std::pair{"--batch-fixed-us", &mix.batch_fixed_us},
        std::pair{"--batch-idle-us", &mix.batch_idle_us}}) {
    parser.option(name, value);
  }
  Status parsed = parser.parse(args);
  if (!parsed) return parsed.take_error();
  const char* items_option = items ? "--items" : "--units";
  if (!items) items = units;
  if (!control || !items) return make_error(ErrorCode::kInvalid, "options '--control' and '--items' are required");
  WorkloadRequest request{*control, {}};
  Result<WorkloadPattern> p = parse_pattern(pattern.value_or("constant"));
  if (!p) return p.take_error();
  request.params.pattern = *p;
  request.params.gpu = gpu.value_or("");
  Result<WorkloadMix> built = build_mix(mix);
  if (!built) return built.take_error();
  request.params.mix = *built;
  Status counts = fill_counts(items, items_option, batch, request.params);
  if (!counts) return counts.take_error();
  return request;
}

// ---- running ---------------------------------------------------------------------

struct Progress {
  std::int64_t units_done = 0;
  double gpu_hz_sum = 0;  // per item
};

// The simulated CPU load before the run: pinned at a value, or the host's.
struct CpuLoadSource {
  bool pinned = false;
  std::uint32_t permille = 0;
};

// What a run needs besides its parameters: the board's study speeds and the
// CPU load to give back at the end.
struct RunContext {
  const WorkloadParams& params;
  StudyCalibration calibration;
  CpuLoadSource cpu_before;
};

nlohmann::json gpu_args(const WorkloadParams& params, std::uint32_t permille) {
  nlohmann::json args = {{"permille", permille}};
  if (!params.gpu.empty()) args["gpu"] = params.gpu;
  return args;
}

Result<nlohmann::json> field(ControlClient& client, const char* cmd, const nlohmann::json& args, const char* key) {
  Result<nlohmann::json> reply = client.call(cmd, args);
  if (!reply) return reply.take_error();
  const auto it = reply->find(key);
  if (it == reply->end()) return make_error(ErrorCode::kProtocol, std::string(cmd) + ": no " + key);
  return *it;
}

Result<std::int64_t> now_ns(ControlClient& client) {
  Result<nlohmann::json> now = field(client, "now", nlohmann::json::object(), "now_ns");
  if (!now) return now.take_error();
  if (!now->is_number_integer()) return make_error(ErrorCode::kProtocol, "now: now_ns is not an integer");
  return now->get<std::int64_t>();
}

Result<std::uint64_t> gpu_hz(ControlClient& client, const WorkloadParams& params) {
  nlohmann::json args = nlohmann::json::object();
  if (!params.gpu.empty()) args["gpu"] = params.gpu;
  Result<nlohmann::json> hz = field(client, "gpu", args, "cur_hz");
  if (!hz) return hz.take_error();
  if (!hz->is_number_unsigned()) return make_error(ErrorCode::kProtocol, "gpu: cur_hz is not a frequency");
  return hz->get<std::uint64_t>();
}

// The first CPU policy's effective frequency (every policy of the study boards shares one table).
Result<std::uint32_t> cpu_khz(ControlClient& client) {
  Result<nlohmann::json> policies = field(client, "cpu", nlohmann::json::object(), "policies");
  if (!policies) return policies.take_error();
  if (!policies->is_array() || policies->empty() || !(*policies)[0].contains("cur_khz") ||
      !(*policies)[0]["cur_khz"].is_number_unsigned())
    return make_error(ErrorCode::kProtocol, "cpu: no policy with cur_khz");
  return (*policies)[0]["cur_khz"].get<std::uint32_t>();
}

// How much the memory clock now stretches memory time: top / rate (1 where
// the board's EMC is not modelled), as emc_slowdown() does in model time.
Result<double> memory_slowdown(ControlClient& client) {
  Result<nlohmann::json> emc = client.call("emc");
  if (!emc) return emc.take_error();
  const nlohmann::json& e = *emc;
  if (!e.contains("rate_hz") || !e["rate_hz"].is_number_unsigned() || !e.contains("top_hz") ||
      !e["top_hz"].is_number_unsigned())
    return make_error(ErrorCode::kProtocol, "emc: no rate_hz or top_hz");
  const auto rate = e["rate_hz"].get<std::uint64_t>();
  const auto top = e["top_hz"].get<std::uint64_t>();
  return rate == 0 || top == 0 ? 1.0 : static_cast<double>(top) / static_cast<double>(rate);
}

// The board's study speeds and its CPU load source, from `status`.
Result<RunContext> run_context(ControlClient& client, const WorkloadParams& params) {
  Result<nlohmann::json> status = client.call("status");
  if (!status) return status.take_error();
  const nlohmann::json& s = *status;
  if (!s.contains("board") || !s["board"].is_string() || !s.contains("cpu_load_pinned") ||
      !s["cpu_load_pinned"].is_boolean() || !s.contains("cpu_load_permille") ||
      !s["cpu_load_permille"].is_number_unsigned())
    return make_error(ErrorCode::kProtocol, "status: no board, cpu_load_pinned or cpu_load_permille");
  const CpuLoadSource before{s["cpu_load_pinned"].get<bool>(), s["cpu_load_permille"].get<std::uint32_t>()};
  return RunContext{params, study_calibration_for(s["board"].get<std::string>()), before};
}

// Sets the phase's loads; the CPU load only for a mix with a CPU part.
Status set_loads(ControlClient& client, const WorkloadParams& params, const Phase& phase) {
  Result<nlohmann::json> gpu = client.call("set_gpu_load", gpu_args(params, phase.gpu_permille));
  if (!gpu) return gpu.take_error();
  if (!mix_uses_cpu(params.mix)) return ok_status();
  Result<nlohmann::json> cpu =
      client.call("set_cpu_load", {{"threads", phase.busy_threads}, {"spinning", phase.spinning_threads}});
  if (!cpu) return cpu.take_error();
  return ok_status();
}

// The clocks a phase runs at, asked after its loads are set (the governors follow them).
Result<StudyClocks> phase_clocks(ControlClient& client, const WorkloadParams& params, const Phase& phase) {
  StudyClocks clocks;
  if (phase.gpu_megacycles > 0) {
    Result<std::uint64_t> hz = gpu_hz(client, params);
    if (!hz) return hz.take_error();
    clocks.gpu_hz = *hz;
  }
  if (phase.cpu_megacycles > 0) {
    Result<std::uint32_t> khz = cpu_khz(client);
    if (!khz) return khz.take_error();
    clocks.cpu_khz = *khz;
  }
  if (phase.memory_ns > 0) {
    Result<double> stretch = memory_slowdown(client);
    if (!stretch) return stretch.take_error();
    clocks.emc_slowdown = *stretch;
  }
  return clocks;
}

using Deadline = std::chrono::steady_clock::time_point;

// A phase's work progresses at the clocks the board runs now: every
// kPhaseStepNs (the governors' common 10 ms grid) the clocks are read again
// and the share of the work done so far is carried over, so a governor that
// raises a clock mid-phase shortens what is left, as on a real board.
constexpr double kPhaseStepNs = 10e6;

Status run_phase(ControlClient& client, const RunContext& run, const Phase& phase, Deadline& deadline,
                 std::int64_t items, Progress& progress) {
  Status loaded = set_loads(client, run.params, phase);
  if (!loaded) return loaded;
  for (double done = 0; done < 1;) {
    Result<StudyClocks> clocks = phase_clocks(client, run.params, phase);
    if (!clocks) return clocks.take_error();
    Result<double> whole_ns = phase_duration_ns(phase, *clocks, run.calibration);
    if (!whole_ns) return whole_ns.take_error();
    if (*whole_ns <= 0) break;
    const double step_ns = std::min((1 - done) * *whole_ns, kPhaseStepNs);
    const double share = std::min(1 - done, step_ns / *whole_ns);
    deadline += std::chrono::nanoseconds(std::llround(step_ns));
    std::this_thread::sleep_until(deadline);
    done = share >= 1 - done ? 1 : done + share;
    if (phase.gpu_megacycles > 0)
      progress.gpu_hz_sum += static_cast<double>(clocks->gpu_hz) * static_cast<double>(items) * share;
  }
  return ok_status();
}

// Busy items in batches, every phase on absolute deadlines.
Status busy(ControlClient& client, const RunContext& run, std::int64_t units, Progress& progress) {
  auto deadline = std::chrono::steady_clock::now();
  for (std::int64_t items : batch_sizes(units, run.params.batch)) {
    if (g_stop) break;
    for (const Phase& phase : batch_phases(run.params.mix, items, run.calibration)) {
      Status done = run_phase(client, run, phase, deadline, items, progress);
      if (!done) return done;
    }
    progress.units_done += items;
  }
  return ok_status();
}

Status idle(ControlClient& client, const WorkloadParams& params, std::int64_t idle_ns) {
  Status unloaded = set_loads(client, params, Phase{});
  if (!unloaded) return unloaded;
  std::this_thread::sleep_for(std::chrono::nanoseconds(idle_ns));
  return ok_status();
}

Status run_steps(ControlClient& client, const RunContext& run, Progress& progress) {
  for (const WorkloadStep& step : workload_steps(run.params)) {
    if (g_stop) break;
    Status done = step.units > 0 ? busy(client, run, step.units, progress) : idle(client, run.params, step.idle_ns);
    if (!done) return done;
  }
  return ok_status();
}

// GPU load 0 and, for a mix with a CPU part, the CPU load as it was before.
Status reset_loads(ControlClient& client, const RunContext& run) {
  Result<nlohmann::json> gpu = client.call("set_gpu_load", gpu_args(run.params, 0));
  if (!gpu) return gpu.take_error();
  if (!mix_uses_cpu(run.params.mix)) return ok_status();
  const nlohmann::json before =
      run.cpu_before.pinned ? nlohmann::json(run.cpu_before.permille) : nlohmann::json("host");
  Result<nlohmann::json> cpu = client.call("set_cpu_load", {{"permille", before}});
  if (!cpu) return cpu.take_error();
  return ok_status();
}

void print_result(const CliContext& cli, const Progress& p, std::int64_t start_ns, std::int64_t end_ns,
                  double energy_uj, std::int64_t batch) {
  const double mean_mhz = p.units_done > 0 ? p.gpu_hz_sum / static_cast<double>(p.units_done) / 1e6 : 0.0;
  cli.out << std::fixed << std::setprecision(3) << "units=" << p.units_done
          << " elapsed_ms=" << static_cast<double>(end_ns - start_ns) / 1e6 << " gpu_mhz=" << mean_mhz
          << " total_energy_uj=" << energy_uj << " start_ns=" << start_ns << " end_ns=" << end_ns << " batch=" << batch
          << std::endl;
}

// The ground truth of the board's total rails; 0 if the simulator cannot say.
double total_energy_uj(ControlClient& client, std::int64_t start_ns, std::int64_t end_ns) {
  Result<nlohmann::json> reply = client.call("energy", {{"rail", "total"}, {"from_ns", start_ns}, {"to_ns", end_ns}});
  if (!reply) return 0.0;
  const auto field = reply->find("energy_uj");
  return field != reply->end() && field->is_number() ? field->get<double>() : 0.0;
}

int run_against(const CliContext& cli, ControlClient& client, const WorkloadParams& params) {
  const StopSignals signals;
  g_stop = false;
  Result<RunContext> run = run_context(client, params);
  if (!run) return cli.failure("workload", run.error());
  Result<std::int64_t> start = now_ns(client);
  if (!start) return cli.failure("workload", start.error());
  Progress progress;
  Status ran = run_steps(client, *run, progress);
  Status reset = reset_loads(client, *run);
  Result<std::int64_t> end = now_ns(client);
  if (!ran) return cli.failure("workload", ran.error());
  if (!reset) return cli.failure("workload", reset.error());
  if (!end) return cli.failure("workload", end.error());
  print_result(cli, progress, *start, *end, total_energy_uj(client, *start, *end), params.batch);
  return g_stop ? kExitFailure : kExitOk;
}

}  // namespace

int run_workload(const CliContext& cli, const std::vector<std::string>& args) {
  if (wants_help(args)) {
    cli.out << kWorkloadHelp;
    return kExitOk;
  }
  Result<WorkloadRequest> request = parse_workload(args);
  if (!request) return cli.usage_error("workload", request.error());
  Result<ControlClient> client = ControlClient::connect(request->control);
  if (!client) return cli.failure("workload", client.error());
  return run_against(cli, *client, request->params);
}

}  // namespace energy::sim
