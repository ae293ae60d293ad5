// CPU energy attribution for overlapping runs: the part of the CPU rails'
// energy that a run's own processes used, by their CPU time.
//
// Every run's energy is the whole board's: runs that overlap each count all
// of it. A run that names its processes (mark.start `pid`: the root of a
// process tree; `energyctl run` names itself, the parent of CMD) also gets
// its share of the CPU rails' energy. energyd reads the kernel's accounting
// at every start and stop of such a run (a boundary): each attributed run's
// CPU time (utime + stime of every live process in its tree, plus the
// cutime + cstime its members collected from children they waited for) and
// the board's busy CPU time (/proc/stat: user, nice, system, irq, softirq,
// steal). Between two boundaries (a segment) a run gets
//   E_cpu(segment) x c_run / max(C_busy, sum of c over the attributed runs),
// so the attributed parts of all runs in a segment never add up to more
// than the CPU rails measured, and over any span neither.
// A CPU rail is one whose label names the CPU and neither the GPU nor the
// vision accelerators (POM_5V_CPU, VDD_SYS_CPU, CPU). Where the CPU shares
// its rail (Orin's VDD_CPU_GPU_CV, Xavier NX's VDD_CPU_CV) nothing can be
// split by CPU time and the report says so. GPU, memory and module energy
// stay shared: Jetson has no per-process GPU time (NVML does not support
// the integrated GPU; tegrastats and jtop show device load only).
// Not counted: processes that left the tree without being waited for by a
// member (daemonised grandchildren reaped by init), and CPU time between a
// run's start and the first reading (a few ms).
//
// Units: ns for times, J for energy. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "energy/integrate.h"
#include "energy/result.h"

namespace energy {

// Tags energyd sets: the root of the run's processes (mark.start `pid`), and
// the attribution computed at its stop (attribution_to_json's form, as text).
constexpr const char* kRunPidTag = "energyd.pid";
constexpr const char* kRunCpuAttributionTag = "energyd.cpu_attribution";

// The labels among `labels` that measure the CPU alone.
std::vector<std::string> cpu_rail_labels(const std::vector<std::string>& labels);
// The labels that measure the CPU together with something else (for the note).
std::vector<std::string> shared_cpu_rail_labels(const std::vector<std::string>& labels);

// One process as /proc/PID/stat shows it.
struct ProcStat {
  int64_t pid = 0;
  int64_t ppid = 0;
  int64_t ticks = 0;  // utime + stime + cutime + cstime, clock ticks
};
// Parses /proc/PID/stat's text; nullopt when it is not one.
std::optional<ProcStat> parse_proc_stat(std::string_view text);
// The busy ticks of /proc/stat's first ("cpu") line; nullopt when it has none.
std::optional<int64_t> parse_busy_ticks(std::string_view proc_stat);
// The ticks of the tree rooted at `root` (0 when it is not among `procs`).
int64_t tree_ticks(const std::vector<ProcStat>& procs, int64_t root);

// The kernel's accounting at one boundary.
struct CpuSnapshot {
  int64_t t_ns = 0;                 // CLOCK_BOOTTIME when it was read
  int64_t busy_ns = 0;              // the board's busy CPU time so far
  std::map<int64_t, int64_t> runs;  // attributed run id -> its tree's CPU time so far (ns)
};

struct CpuAttribution {
  bool available = false;
  std::string reason;  // when not available: why
  int64_t pid = 0;
  std::vector<std::string> cpu_rails;
  double cpu_rails_j = 0;       // the CPU rails' energy over the run's segments
  double attributed_j = 0;      // the run's share of it
  double cpu_time_s = 0;        // the run's processes' CPU time
  double board_cpu_time_s = 0;  // the board's busy CPU time over the same segments
  int64_t segments = 0;
};

// The run's attribution over [begin_ns, end_ns] from the snapshots (oldest
// first; those that hold the run bound its segments). `cpu_energy_j` gives
// the CPU rails' energy over a window. Errors: what cpu_energy_j returns.
Result<CpuAttribution> attribute_cpu(const std::vector<CpuSnapshot>& snapshots, int64_t run_id, EnergyWindow run,
                                     const std::function<Result<double>(EnergyWindow)>& cpu_energy_j);

nlohmann::json attribution_to_json(const CpuAttribution& a, double total_energy_j);
// Back from the stored form (attribution_to_json's); nullopt when it is not one.
std::optional<CpuAttribution> attribution_from_json(const nlohmann::json& j);

}  // namespace energy
