// Study workloads: presets, batch phases and the evaluator (study.h).
#include "study.h"

#include <algorithm>
#include <cmath>

#include "emc.h"
#include "energysim/board_state.h"
#include "model_power.h"

namespace energy::sim {
namespace {

constexpr double kNsPerMicrosecond = 1000.0;
constexpr double kCyclesPerMegacycle = 1e6;

struct NamedMix {
  const char* name;
  WorkloadMix mix;
};

// Shapes, in Jetson Nano units; the derivation is in sim/ASSUMPTIONS.md.
// {gpu_megacycles, memory_us, cpu_megacycles, cpu_threads, host_threads, batch_fixed_us,
//  batch_fixed_gpu_permille, memory_gpu_permille, batch_idle_us}
// The host blocked between batches, in Nano units (assumed and fitted, A51).
constexpr double kIdleUs = 30000;
const NamedMix kPresets[] = {
    {"gpu-bound", {14.0, 1000, 2.0, 1, 1, 100000, kGpuBusyPermille, kGpuMemoryPermille, kIdleUs}},
    {"memory-bound", {4.0, 9000, 1.0, 1, 1, 100000, kGpuBusyPermille, kGpuMemoryPermille, kIdleUs}},
    {"cpu-heavy", {3.0, 2000, 40.0, 4, 1, 100000, kGpuBusyPermille, kGpuMemoryPermille, kIdleUs}},
};

// Time of `megacycles` on `threads` threads at `hz` cycles/s x `throughput`.
double cycles_ns(double megacycles, double hz, double throughput, std::uint32_t threads) {
  return megacycles * kCyclesPerMegacycle / (hz * throughput * std::max<std::uint32_t>(1, threads)) * kNsPerS;
}

Status check_clocks(const BoardSpec& spec, const StudyClocks& clocks) {
  const auto& khz = spec.cpu.available_khz;
  const auto& hz = spec.gpus.front().available_hz;
  if (std::find(khz.begin(), khz.end(), clocks.cpu_khz) == khz.end())
    return make_error(ErrorCode::kInvalid, "CPU clock " + std::to_string(clocks.cpu_khz) + " kHz is not in " + spec.id +
                                               "'s frequency table");
  if (std::find(hz.begin(), hz.end(), clocks.gpu_hz) == hz.end())
    return make_error(ErrorCode::kInvalid,
                      "GPU clock " + std::to_string(clocks.gpu_hz) + " Hz is not in " + spec.id + "'s frequency table");
  const auto& emc = spec.emc.rates_hz;
  if (clocks.emc_hz != 0 && std::find(emc.begin(), emc.end(), clocks.emc_hz) == emc.end())
    return make_error(ErrorCode::kInvalid,
                      "EMC rate " + std::to_string(clocks.emc_hz) + " Hz is not in " + spec.id + "'s EMC table");
  return ok_status();
}

// The idle board with both clocks pinned (min = max) and the phase's loads.
ModelControls phase_controls(const BoardSpec& spec, const Phase& phase, const StudyClocks& clocks,
                             std::size_t cpu_count) {
  ModelControls c{idle_state(spec), cpu_power_permille(phase.busy_threads, phase.spinning_threads, cpu_count), {}};
  c.cpu_peak_permille = cpu_peak_permille(phase.busy_threads, phase.spinning_threads);
  for (auto& [policy, p] : c.board.policies) p.min_khz = p.max_khz = clocks.cpu_khz;
  GpuState& gpu = c.board.gpus.at(spec.gpus.front().devfreq_name);
  gpu.min_hz = gpu.max_hz = clocks.gpu_hz;
  gpu.load_permille = phase.gpu_permille;
  if (clocks.emc_hz != 0) {  // pinned as jetson_clocks does: locked at the rate
    c.board.emc.locked = true;
    c.board.emc.pinned_hz = clocks.emc_hz;
  }
  return c;
}

// Adds one phase's energy (mJ = mW x s) and duration to `out`.
Status add_phase(const BoardSpec& spec, const PowerTopology& topology, const Phase& phase, const ClockPolicy& policy,
                 StudyResult& out) {
  StudyClocks clocks = policy(phase);
  Status valid = check_clocks(spec, clocks);
  if (!valid) return valid;
  const ModelControls controls = phase_controls(spec, phase, clocks, topology.cpu_count);
  clocks.emc_slowdown = emc_slowdown(spec.emc, governed_state(spec, controls).emc.rate_hz);
  Result<double> ns = phase_duration_ns(phase, clocks, study_calibration_for(spec.id));
  if (!ns) return ns.take_error();
  const std::vector<RailLevel> levels = rail_levels(topology, spec, controls);
  const double seconds = *ns / kNsPerS;
  for (std::size_t r = 0; r < levels.size(); ++r) out.rail_mj_per_item[r] += levels[r].power_mw * seconds;
  for (int r : topology.total_rails) out.total_mj_per_item += levels[static_cast<std::size_t>(r)].power_mw * seconds;
  out.time_per_item_ms += *ns / 1e6;
  return ok_status();
}

void divide_by_items(StudyResult& r, std::int64_t items) {
  const double n = static_cast<double>(items);
  r.mean_total_mw = r.time_per_item_ms > 0 ? r.total_mj_per_item / (r.time_per_item_ms / 1000.0) : 0.0;
  r.time_per_item_ms /= n;
  r.total_mj_per_item /= n;
  for (double& mj : r.rail_mj_per_item) mj /= n;
}

}  // namespace

Result<WorkloadMix> preset_mix(std::string_view name) {
  for (const NamedMix& named : kPresets) {
    if (name == named.name) return named.mix;
  }
  return make_error(ErrorCode::kInvalid,
                    "preset '" + std::string(name) + "' is not gpu-bound, memory-bound or cpu-heavy");
}

std::vector<std::string> preset_names() {
  std::vector<std::string> out;
  for (const NamedMix& named : kPresets) out.emplace_back(named.name);
  return out;
}

bool mix_uses_cpu(const WorkloadMix& mix) { return mix.cpu_megacycles > 0 || mix.host_threads > 0; }

std::vector<Phase> batch_phases(const WorkloadMix& mix, std::int64_t items, const StudyCalibration& cal) {
  const double n = static_cast<double>(std::max<std::int64_t>(1, items));
  std::vector<Phase> out;
  if (mix.batch_idle_us > 0)
    out.push_back(
        Phase{"idle", 0, 0, 1, mix.batch_idle_us * kNsPerMicrosecond / cal.batch_speed, 0, 0, kGpuWaitPermille});
  if (mix.cpu_megacycles > 0)
    out.push_back(Phase{"cpu", 0, mix.cpu_megacycles * n, mix.cpu_threads, 0, mix.cpu_threads, 0, kGpuWaitPermille});
  if (mix.batch_fixed_us > 0)
    out.push_back(Phase{"fixed", 0, 0, 1, mix.batch_fixed_us * kNsPerMicrosecond / cal.batch_speed, 1, 0,
                        std::max(kGpuWaitPermille, std::min(kGpuBusyPermille, mix.batch_fixed_gpu_permille))});
  const double memory_ns = mix.memory_us * n * kNsPerMicrosecond / cal.memory_speed;
  const std::uint32_t memory_permille = std::max(kGpuWaitPermille, std::min(kGpuBusyPermille, mix.memory_gpu_permille));
  const bool own_phase = memory_permille < kGpuBusyPermille;
  if (mix.gpu_megacycles > 0 || (mix.memory_us > 0 && !own_phase))
    out.push_back(Phase{"gpu", mix.gpu_megacycles * n, 0, 1, 0, 0, mix.host_threads, kGpuBusyPermille,
                        own_phase ? 0.0 : memory_ns});
  if (mix.memory_us > 0 && own_phase)
    out.push_back(Phase{"memory", 0, 0, 1, 0, 0, mix.host_threads, memory_permille, memory_ns});
  return out;
}

Result<double> phase_duration_ns(const Phase& phase, const StudyClocks& clocks, const StudyCalibration& cal) {
  double ns = phase.fixed_ns + phase.memory_ns * clocks.emc_slowdown;
  if (phase.gpu_megacycles > 0) {
    if (clocks.gpu_hz == 0) return make_error(ErrorCode::kInvalid, "the GPU runs at 0 Hz (rail-gated?)");
    ns += cycles_ns(phase.gpu_megacycles, static_cast<double>(clocks.gpu_hz), cal.gpu_throughput, 1);
  }
  if (phase.cpu_megacycles > 0) {
    if (clocks.cpu_khz == 0) return make_error(ErrorCode::kInvalid, "the CPU runs at 0 kHz");
    ns += cycles_ns(phase.cpu_megacycles, clocks.cpu_khz * 1000.0, cal.cpu_throughput, phase.cpu_threads);
  }
  return ns;
}

std::uint32_t busy_permille(std::uint32_t threads, std::size_t cpu_count) {
  if (cpu_count == 0) return 0;
  return static_cast<std::uint32_t>(std::min<std::size_t>(1000, std::size_t{threads} * 1000 / cpu_count));
}

std::uint32_t cpu_power_permille(std::uint32_t busy, std::uint32_t spinning, std::size_t cpu_count) {
  if (cpu_count == 0) return 0;
  const double threads = static_cast<double>(busy) + kSpinActivity * static_cast<double>(spinning);
  return static_cast<std::uint32_t>(std::min(1000.0, std::floor(threads * 1000.0 / static_cast<double>(cpu_count))));
}

std::uint32_t cpu_peak_permille(std::uint32_t busy, std::uint32_t spinning) { return busy + spinning > 0 ? 1000 : 0; }

ClockPolicy fixed_clocks(StudyClocks clocks) {
  return [clocks](const Phase&) { return clocks; };
}

ClockPolicy default_governors(const BoardSpec& spec) {
  const std::size_t cpus = std::max<std::size_t>(1, spec.cpu.all_cpus().size());
  return [spec, cpus](const Phase& phase) {
    ModelControls c{idle_state(spec), cpu_power_permille(phase.busy_threads, phase.spinning_threads, cpus), {}};
    c.cpu_peak_permille = cpu_peak_permille(phase.busy_threads, phase.spinning_threads);
    const std::string& gpu = spec.gpus.front().devfreq_name;
    c.board.gpus.at(gpu).load_permille = phase.gpu_permille;
    const BoardState governed = governed_state(spec, c);
    return StudyClocks{governed.policies.begin()->second.cur_khz, governed.gpus.at(gpu).cur_hz};
  };
}

Result<StudyResult> evaluate_study(const BoardSpec& spec, const WorkloadMix& mix, std::int64_t batch,
                                   const ClockPolicy& clocks) {
  if (batch < 1) return make_error(ErrorCode::kInvalid, "batch " + std::to_string(batch) + " is not >= 1");
  if (spec.gpus.empty() || spec.cpu.policies.empty())
    return make_error(ErrorCode::kInvalid, spec.id + " has no CPU policy or no GPU to run a study on");
  const PowerTopology topology = build_topology(spec);
  StudyResult result;
  result.rail_mj_per_item.assign(topology.rails.size(), 0.0);
  for (const Phase& phase : batch_phases(mix, batch, study_calibration_for(spec.id))) {
    Status added = add_phase(spec, topology, phase, clocks, result);
    if (!added) return added.take_error();
  }
  divide_by_items(result, batch);
  return result;
}

}  // namespace energy::sim
