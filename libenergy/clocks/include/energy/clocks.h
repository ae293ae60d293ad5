// Clock domains and thermal zones: discovery and reading.
//
// Owns: the mapping from a board's sysfs tree to CPU frequency policies
// (cpufreq, kHz in files), GPU devfreq devices (Hz), the EMC (memory) clock
// where readable, GPU load and thermal zones. All frequencies here are Hz
// (converted once at the sysfs boundary), temperatures milli-degC, load
// per-mille.
//
// GPU devfreq devices are found as jetson_clocks does: a /sys/class/devfreq
// entry whose device/of_node/name is gpu, gp10b, gv11b or ga10b, or whose
// name starts with "gpu-" (Thor's gpu-gpc-0 and gpu-nvd-0).
//
// Thread-safety: reentrant; results are plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "energy/sysroot.h"

namespace energy {

enum class DomainKind { kCpu, kGpu, kEmc };
const char* domain_kind_name(DomainKind kind);

struct ClockDomain {
  DomainKind kind = DomainKind::kCpu;
  std::string name;                   // "cpu0" (policy0), "gpu" / "gpu-gpc-0", "emc"
  std::string dir;                    // board path of the policy / devfreq / clk directory
  std::vector<int> cpus;              // CPU domains: related CPUs
  std::vector<int64_t> available_hz;  // ascending; empty if the domain lists none
  std::vector<std::string> governors;
  bool writable = false;  // has files energyd may pin: min/max (cpufreq, devfreq), lock + rate (debugfs EMC)
  std::string load_file;  // GPU: board path of the per-mille load file, if any
};

struct DomainState {
  std::string name;
  std::optional<int64_t> cur_hz;
  std::optional<int64_t> min_hz;
  std::optional<int64_t> max_hz;
  std::string governor;
  std::vector<int> online_cpus;          // CPU domains
  std::optional<int64_t> load_permille;  // GPU
  // Debugfs EMC (emc_pin_files): the texts of its lock and rate-request
  // files, which a pin saves to put back (nullopt: not read or no such file).
  std::optional<std::string> lock_text;
  std::optional<std::string> rate_request_text;
  std::string error;  // non-empty when a read failed (names the file)
};

struct ThermalZone {
  std::string type;  // e.g. "cpu-thermal", "GPU-therm"
  std::string dir;   // board path
};

// What an Orin's thermal zone reads while its block is powered off.
inline constexpr int64_t kThermalGatedMilliC = -256000;

struct ThermalReading {
  std::string type;
  std::optional<int64_t> temp_mc;  // nullopt when the read failed
  bool gated = false;              // -256000 on Orin: the sensor's block is powered off
};

struct ClockInventory {
  std::vector<ClockDomain> domains;
  std::vector<ThermalZone> thermal;
  std::vector<std::string> notes;
};

// A memory clock driven through debugfs is pinned as jetson_clocks does it:
// a lock file (1 holds the requested rate, 0 hands the clock back to its
// governor) and a rate-request file (Hz). T186/T194/T234 bpmp:
// clk/emc/{mrq_rate_locked,rate}; T210: clk/override.emc/{clk_state,
// clk_update_rate}. Empty paths for every other domain.
struct EmcPinFiles {
  std::string lock;
  std::string rate;
};
EmcPinFiles emc_pin_files(const ClockDomain& domain);

ClockInventory discover_clocks(const SysRoot& root);
DomainState read_domain(const SysRoot& root, const ClockDomain& domain);
std::vector<ThermalReading> read_thermal(const SysRoot& root, const std::vector<ThermalZone>& zones);

// "0-3,6" -> {0,1,2,3,6}; also accepts space-separated lists ("0 1 2 3").
// CPU numbers outside 0..kMaxCpuNumber are not CPUs: such a part is skipped.
constexpr int64_t kMaxCpuNumber = 4095;
std::vector<int> parse_cpu_list(const std::string& text);

// A frequency file's value in its unit (kHz: scale 1000; Hz: 1) as Hz, or
// nullopt when it is negative or above kMaxPlausibleHz (no Jetson clock is
// near 100 GHz: such a value is a damaged file, never a number to report).
constexpr int64_t kMaxPlausibleHz = 100'000'000'000;
std::optional<int64_t> frequency_hz(int64_t value, int64_t scale);

}  // namespace energy
