// Study workloads made of parts, and their evaluation on the model's own
// clock. An item (one inference) costs
//   GPU work     gpu_megacycles x 1e6 cycles, time = cycles / (f_gpu x gpu_throughput)
//   memory time  memory_us / memory_speed x (EMC top rate / EMC rate), GPU
//                busy (at the top rate, where the presets' loads hold the
//                EMC governor, it is memory_us / memory_speed; emc.h)
//   CPU work     cpu_megacycles x 1e6 cycles over cpu_threads threads,
//                time = cycles / (threads x f_cpu x cpu_throughput)
// and every batch adds batch_fixed_us / batch_speed of launch and copies.
// The throughput and speed factors are per board (StudyCalibration); a mix
// is written in Jetson Nano units.
//
// A batch of B items runs as phases, each with constant loads: idle (the
// host blocked between batches: nothing busy, the GPU waiting), CPU
// (pre-processing: cpu_threads busy, the GPU waiting at kGpuWaitPermille),
// fixed (launch and copies: one CPU thread busy, GPU load
// batch_fixed_gpu_permille), GPU (the compute and memory parts: GPU load
// 1000, host_threads CPU threads busy).
// The live workload (cli_workload.cpp) sets the same loads through the
// control socket, so the evaluator and the live board agree.
//
// evaluate_study() is a pure function: it applies each phase's loads and
// clocks to the model's rail levels (model_power.h, the levels the live
// board integrates) and multiplies by the phase's duration.
//
// Units: megacycles, us, ns, kHz (CPU), Hz (GPU), mJ, mW.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "energy/result.h"
#include "energysim/board_spec.h"
#include "model_calibration.h"

namespace energy::sim {

// A GPU waiting between phases keeps its clock and power rail (nvgpu gates
// the rail only after a delay of the order of 500 ms, far longer than a
// phase), so its load is 1 per-mille rather than 0, which the model reads as
// rail-gated.
inline constexpr std::uint32_t kGpuWaitPermille = 1;
inline constexpr std::uint32_t kGpuBusyPermille = 1000;
// While an item's memory part runs the GPU's cores mostly stall on DRAM:
// the presets' memory phase runs at this GPU load, which the model's power
// and podgov alike read (assumed and fitted, sim/ASSUMPTIONS.md A50).
inline constexpr std::uint32_t kGpuMemoryPermille = 300;

struct WorkloadMix {
  double gpu_megacycles = 4.0;                                // per item
  double memory_us = 4000;                                    // per item, GPU busy
  double cpu_megacycles = 0;                                  // per item, pre-processing
  std::uint32_t cpu_threads = 1;                              // threads the pre-processing runs on, >= 1
  std::uint32_t host_threads = 0;                             // CPU threads busy while the GPU works (launch, wait)
  double batch_fixed_us = 0;                                  // per batch: launch and copies
  std::uint32_t batch_fixed_gpu_permille = kGpuBusyPermille;  // GPU load during them
  // GPU load during the memory part: below kGpuBusyPermille it is a phase of
  // its own after the compute; at it (the plain mix), one phase with the compute.
  std::uint32_t memory_gpu_permille = kGpuBusyPermille;
  // Per batch: the host blocked between batches (loading the next input,
  // the harness's own work): no CPU thread busy, the GPU waiting. Scaled by
  // batch_speed like the launch and copies (assumed and fitted, A51).
  double batch_idle_us = 0;
};

// Named mixes shaped like the published workload families (sim/README.md):
// gpu-bound (AlexNet/ResNet), memory-bound (MobileNet: flat at high GPU
// clocks), cpu-heavy (BERT: tokenising on several threads).
Result<WorkloadMix> preset_mix(std::string_view name);
std::vector<std::string> preset_names();

// True when the mix drives the CPU load (a CPU part or host threads).
bool mix_uses_cpu(const WorkloadMix& mix);

// One phase of a batch: the work it does and the loads while it runs.
struct Phase {
  const char* name = "";
  double gpu_megacycles = 0;
  double cpu_megacycles = 0;
  std::uint32_t cpu_threads = 1;       // threads sharing cpu_megacycles
  double fixed_ns = 0;                 // time no clock changes
  std::uint32_t busy_threads = 0;      // CPU threads computing
  std::uint32_t spinning_threads = 0;  // CPU threads spin-waiting for the GPU (kSpinActivity)
  std::uint32_t gpu_permille = 0;
  double memory_ns = 0;  // memory time at the EMC's top rate (emc_slowdown() stretches it)
};

// The phases of one batch of `items` (>= 1), without empty phases.
std::vector<Phase> batch_phases(const WorkloadMix& mix, std::int64_t items, const StudyCalibration& cal);

struct StudyClocks {
  std::uint32_t cpu_khz = 0;
  std::uint64_t gpu_hz = 0;
  std::uint64_t emc_hz = 0;  // a pinned EMC rate; 0: the EMC governor's pick for the phase's loads
  // The memory time's stretch at the EMC rate the phase runs at
  // (emc_slowdown(), emc.h): evaluate_study() and evaluate_dvfs() set it.
  double emc_slowdown = 1;
};

// kInvalid when a clock the phase needs is 0.
Result<double> phase_duration_ns(const Phase& phase, const StudyClocks& clocks, const StudyCalibration& cal);

// A host thread waiting for the GPU spins (CUDA's default on a board with
// more cores than contexts): busy for the CPU governor, but a spin loop
// switches a share of what a computing thread does, so it draws that share
// of a busy CPU's dynamic power (assumed and fitted, sim/ASSUMPTIONS.md A49).
inline constexpr double kSpinActivity = 0.25;

// CPU load per-mille of `threads` busy threads on `cpu_count` CPUs (capped at 1000).
std::uint32_t busy_permille(std::uint32_t threads, std::size_t cpu_count);
// The power load of `busy` computing and `spinning` waiting threads (each
// spinning one counts kSpinActivity of a busy one), capped at 1000.
std::uint32_t cpu_power_permille(std::uint32_t busy, std::uint32_t spinning, std::size_t cpu_count);
// The busiest CPU's load the governor sees: 1000 with any thread busy or spinning.
std::uint32_t cpu_peak_permille(std::uint32_t busy, std::uint32_t spinning);

// The clocks a phase runs at: fixed clocks ignore the phase; a governor
// policy (the DVFS comparison) may choose by the phase's loads.
using ClockPolicy = std::function<StudyClocks(const Phase& phase)>;
ClockPolicy fixed_clocks(StudyClocks clocks);
// The clocks the board's governors pick (governed_state(), model_power.h)
// for the phase's loads, starting from the idle board's limits: what the
// live board runs a phase at under its default governors. The first CPU
// policy and the first GPU.
ClockPolicy default_governors(const BoardSpec& spec);

struct StudyResult {
  double time_per_item_ms = 0;
  double total_mj_per_item = 0;          // the board's total rails
  std::vector<double> rail_mj_per_item;  // parallel to PowerTopology::rails
  double mean_total_mw = 0;
};

// One batch evaluated on the model; kInvalid for batch < 1, a clock that is
// not in the board's table, or a board without a CPU or GPU.
Result<StudyResult> evaluate_study(const BoardSpec& spec, const WorkloadMix& mix, std::int64_t batch,
                                   const ClockPolicy& clocks);

// The same workload under the board's sampled default governors
// (governor.h): batches run back to back on a PowerModel (model.h) from an
// idle board whose CPU and GPU limits span the whole table (as in the
// study's power mode). Work progresses at the clocks the governors hold;
// they change only on the model's grid instants (dynamics.h), so a phase is
// stepped grid instant by grid instant and ends wherever its work is done.
// Deterministic: model time only, no ripple. Batches of the first
// warmup_ns are not counted; the result covers the whole batches that
// follow until at least measure_ns have passed (energy of the total rails,
// exact integral of the model, leakage of the warming board included).
struct DvfsOptions {
  std::int64_t warmup_ns = 2'000'000'000;
  std::int64_t measure_ns = 10'000'000'000;
};

struct DvfsResult {
  StudyResult study;         // per item over the measured batches
  std::int64_t items = 0;    // items measured
  double cpu_top_share = 0;  // share of the measured time the first CPU policy ran at the table's top
  double gpu_top_share = 0;  // likewise the first GPU
  double mean_gpu_mhz = 0;   // time-weighted mean of the first GPU's clock
  double mean_cpu_mhz = 0;   // likewise the first CPU policy's
};

// kInvalid for batch < 1, a board without a CPU or GPU, an empty mix or
// non-positive durations.
Result<DvfsResult> evaluate_dvfs(const BoardSpec& spec, const WorkloadMix& mix, std::int64_t batch,
                                 const DvfsOptions& options = {});

// The lowest energy per item over every CPU x GPU table clock pair (fixed
// clocks, evaluate_study).
struct GridMinimum {
  StudyClocks clocks;
  StudyResult study;
};
Result<GridMinimum> grid_minimum(const BoardSpec& spec, const WorkloadMix& mix, std::int64_t batch);

}  // namespace energy::sim
