// `energyd-sim workload`: runs the synthetic GPU workload (workload.h) in real
// time against a running simulator, through its control socket.
#include <signal.h>
#include <time.h>

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
    "Usage: energyd-sim workload --control SOCKET --units N [options]\n\n"
    "Runs N units of synthetic inference work on the simulated GPU, in real time. A unit\n"
    "takes MEGACYCLES x 1e6 / f_gpu (f_gpu: the GPU's effective frequency, asked from the\n"
    "simulator before each unit, so it follows max_freq and the governor) plus MEMORY_US\n"
    "of memory-bound time; the GPU load is 1000 per-mille while a unit runs and 0 between.\n"
    "Prints one line: units done, elapsed time, mean GPU MHz and the exact energy of the\n"
    "board's total rails over the run (from the simulator's ground truth).\n\n"
    "  --control SOCKET     the simulator's control socket\n"
    "  --units N            how many units (1..1000000)\n"
    "  --pattern P          constant (back to back, default), step (300 ms idle, all\n"
    "                       units, 300 ms idle) or bursty (bursts of 4 units, 50 ms gaps)\n"
    "  --gpu NAME           devfreq name of the GPU (default: the board's first)\n"
    "  --megacycles X       GPU megacycles per unit (4)\n"
    "  --memory-us N        memory-bound microseconds per unit (4000)\n";

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

Result<double> parse_positive_double(const std::string& text, const char* option) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(value > 0) || value > 1e6) {
    return make_error(ErrorCode::kInvalid, std::string(option) + " must be a positive number");
  }
  return value;
}

Status fill_numbers(const std::optional<std::string>& units, const std::optional<std::string>& megacycles,
                    const std::optional<std::string>& memory_us, WorkloadParams& params) {
  Result<std::int64_t> n = parse_integer(*units, "--units");
  if (!n || *n < 1 || *n > 1000000) return make_error(ErrorCode::kInvalid, "--units must be 1..1000000");
  params.units = *n;
  if (megacycles) {
    Result<double> value = parse_positive_double(*megacycles, "--megacycles");
    if (!value) return value.take_error();
    params.gpu_megacycles_per_unit = *value;
  }
  if (memory_us) {
    Result<std::int64_t> value = parse_integer(*memory_us, "--memory-us");
    if (!value || *value < 0 || *value > 10000000)
      return make_error(ErrorCode::kInvalid, "--memory-us must be 0..10000000");
    params.memory_us_per_unit = *value;
  }
  return ok_status();
}

Result<WorkloadRequest> parse_workload(const std::vector<std::string>& args) {
  std::optional<std::string> control, units, pattern, gpu, megacycles, memory_us;
  ArgParser parser;
  for (const auto& [name, value] :
       {std::pair{"--control", &control}, std::pair{"--units", &units}, std::pair{"--pattern", &pattern},
        std::pair{"--gpu", &gpu}, std::pair{"--megacycles", &megacycles}, std::pair{"--memory-us", &memory_us}}) {
    parser.option(name, value);
  }
  Status parsed = parser.parse(args);
  if (!parsed) return parsed.take_error();
  if (!control || !units) return make_error(ErrorCode::kInvalid, "options '--control' and '--units' are required");
  WorkloadRequest request{*control, {}};
  Result<WorkloadPattern> p = parse_pattern(pattern.value_or("constant"));
  if (!p) return p.take_error();
  request.params.pattern = *p;
  request.params.gpu = gpu.value_or("");
  Status numbers = fill_numbers(units, megacycles, memory_us, request.params);
  if (!numbers) return numbers.take_error();
  return request;
}

// ---- running ---------------------------------------------------------------------

struct Progress {
  std::int64_t units_done = 0;
  double gpu_hz_sum = 0;
};

nlohmann::json gpu_args(const WorkloadParams& params, std::uint32_t permille) {
  nlohmann::json args = {{"permille", permille}};
  if (!params.gpu.empty()) args["gpu"] = params.gpu;
  return args;
}

Result<std::int64_t> now_ns(ControlClient& client) {
  Result<nlohmann::json> reply = client.call("now");
  if (!reply) return reply.take_error();
  const auto it = reply->find("now_ns");
  if (it == reply->end() || !it->is_number_integer()) return make_error(ErrorCode::kProtocol, "now: no now_ns");
  return it->get<std::int64_t>();
}

Result<std::uint64_t> gpu_hz(ControlClient& client, const WorkloadParams& params) {
  nlohmann::json args = nlohmann::json::object();
  if (!params.gpu.empty()) args["gpu"] = params.gpu;
  Result<nlohmann::json> reply = client.call("gpu", args);
  if (!reply) return reply.take_error();
  const auto it = reply->find("cur_hz");
  if (it == reply->end() || !it->is_number_unsigned()) return make_error(ErrorCode::kProtocol, "gpu: no cur_hz");
  return it->get<std::uint64_t>();
}

// Busy units on absolute deadlines; the frequency is asked before each unit.
Status busy(ControlClient& client, const WorkloadParams& params, std::int64_t units, Progress& progress) {
  Result<nlohmann::json> loaded = client.call("set_gpu_load", gpu_args(params, kBusyPermille));
  if (!loaded) return loaded.take_error();
  auto deadline = std::chrono::steady_clock::now();
  for (std::int64_t i = 0; i < units && !g_stop; ++i) {
    Result<std::uint64_t> hz = gpu_hz(client, params);
    if (!hz) return hz.take_error();
    Result<std::int64_t> duration = unit_duration_ns(params, *hz);
    if (!duration) return duration.take_error();
    deadline += std::chrono::nanoseconds(*duration);
    std::this_thread::sleep_until(deadline);
    progress.units_done += 1;
    progress.gpu_hz_sum += static_cast<double>(*hz);
  }
  return ok_status();
}

Status idle(ControlClient& client, const WorkloadParams& params, std::int64_t idle_ns) {
  Result<nlohmann::json> unloaded = client.call("set_gpu_load", gpu_args(params, 0));
  if (!unloaded) return unloaded.take_error();
  std::this_thread::sleep_for(std::chrono::nanoseconds(idle_ns));
  return ok_status();
}

Status run_steps(ControlClient& client, const WorkloadParams& params, Progress& progress) {
  for (const WorkloadStep& step : workload_steps(params)) {
    if (g_stop) break;
    Status done = step.units > 0 ? busy(client, params, step.units, progress) : idle(client, params, step.idle_ns);
    if (!done) return done;
  }
  return ok_status();
}

void print_result(const CliContext& cli, const Progress& p, std::int64_t start_ns, std::int64_t end_ns,
                  double energy_uj) {
  const double mean_mhz = p.units_done > 0 ? p.gpu_hz_sum / static_cast<double>(p.units_done) / 1e6 : 0.0;
  cli.out << std::fixed << std::setprecision(3) << "units=" << p.units_done
          << " elapsed_ms=" << static_cast<double>(end_ns - start_ns) / 1e6 << " gpu_mhz=" << mean_mhz
          << " total_energy_uj=" << energy_uj << " start_ns=" << start_ns << " end_ns=" << end_ns << std::endl;
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
  Result<std::int64_t> start = now_ns(client);
  if (!start) return cli.failure("workload", start.error());
  Progress progress;
  Status ran = run_steps(client, params, progress);
  Result<nlohmann::json> reset = client.call("set_gpu_load", gpu_args(params, 0));
  Result<std::int64_t> end = now_ns(client);
  if (!ran) return cli.failure("workload", ran.error());
  if (!reset) return cli.failure("workload", reset.error());
  if (!end) return cli.failure("workload", end.error());
  print_result(cli, progress, *start, *end, total_energy_uj(client, *start, *end));
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
