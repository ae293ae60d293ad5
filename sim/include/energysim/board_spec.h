// BoardSpec: one Jetson board at one L4T generation, resolved from the
// reference data file (sim/data/jetson-boards.yaml) and the simulator's own
// assumptions (sim/ASSUMPTIONS.md, cited in code as "assumption A<n>").
// Produced by Catalog; read by the tree builder and the CLI.
//
// Units are part of every numeric member's name: _mv, _ma, _uohm, _khz, _hz,
// _mc (milli-degree Celsius). Paths are absolute paths as seen on the board
// ("/sys/..."); a tree builder places them under any root.
//
// Thread-safety: plain values; a const BoardSpec may be shared freely.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace energy::sim {

// The kernel driver that exposes a power monitor, and so its file layout.
enum class MonitorLayout {
  kIna3221xIio,   // L4T 32 staging IIO driver: iio:deviceN, channels 0..2, mV / mA / mW
  kIna3221Hwmon,  // mainline hwmon driver (L4T 34+): hwmon/hwmonN, channels 1..3, mV / mA / uV
  kIna238Hwmon,   // mainline ina238 (Thor carrier input): hwmon/hwmonN, mV / mA / uW, no label file
};

// The layout's name in the data file: "ina3221x_iio", "ina3221_hwmon", "ina238_hwmon".
const char* layout_name(MonitorLayout layout);
// The i2c driver name, which is also the content of the client's `name` file.
const char* driver_name(MonitorLayout layout);

struct ChannelSpec {
  int index = 0;                   // file index: 0..2 (IIO), 1..3 (INA3221 hwmon), 1 (INA238)
  std::string label;               // empty when the device tree gives none
  bool disabled = false;           // DT status "disabled": no label file, value reads fail ENODATA
  bool summation_disable = false;  // DT ti,summation-disable: left out of in7 / curr4
  std::int64_t shunt_uohm = 0;
  std::int32_t idle_mv = 0;  // idle bus voltage (reference, or assumption A4)
  std::int32_t idle_ma = 0;  // idle current (reference, or derived from mW)
};

// A file in the i2c client directory besides `name`, e.g. power/control.
struct ClientFileSpec {
  std::string relative_path;  // "power/autosuspend_delay_ms"
  std::string content;        // without the trailing newline
  int read_errno = 0;         // != 0: every read fails with this errno
};

struct PowerMonitorSpec {
  MonitorLayout layout = MonitorLayout::kIna3221Hwmon;
  int bus = 0;
  std::string addr4;                   // 4 lower-case hex digits: "0040"
  std::string adapter_name;            // i2c adapter `name`: "c240000.i2c"
  std::string device_dir;              // physical client dir: ".../i2c-1/1-0040"
  std::optional<int> observed_number;  // iio:deviceN / hwmonN seen on a real board
  std::vector<ChannelSpec> channels;
  std::vector<ClientFileSpec> client_files;

  std::string device_name() const;  // "{bus}-{addr4}", e.g. "1-0040"
};

// How many of the monitor's channels are not disabled.
int enabled_channels(const PowerMonitorSpec& m);

// Stable key of one monitor channel: "{bus}-{addr4}:{index}", e.g. "1-0041:2".
std::string rail_id(const PowerMonitorSpec& monitor, const ChannelSpec& channel);

struct CpuPolicySpec {
  int policy = 0;         // first CPU of the cluster: cpufreq/policy{policy}
  std::vector<int> cpus;  // related CPUs, ascending
};

struct CpuSpec {
  std::vector<CpuPolicySpec> policies;
  std::vector<std::uint32_t> available_khz;  // ascending
  std::vector<std::string> governors;        // scaling_available_governors, in kernel order
  std::string default_governor;
  std::string scaling_driver;
  std::uint32_t floor_khz = 0;  // idle scaling_min_freq: nvpmodel floor or the table minimum

  std::vector<int> all_cpus() const;  // every CPU of every policy, ascending
};

struct GpuSpec {
  std::string devfreq_name;                 // "17000000.ga10b", "gpu-gpc-0"
  std::string devfreq_dir;                  // physical devfreq directory
  std::string parent_dir;                   // device the devfreq node hangs off (`device` link); empty: none
  std::vector<std::string> aliases;         // extra symlinks to devfreq_dir (the class link is implied)
  std::string of_node_name;                 // content of device/of_node/name; empty: no of_node
  std::string of_node_dir;                  // /sys/firmware/devicetree/base/... node; empty: none
  std::string device_dir;                   // nvgpu directory holding `load`; empty: none (Thor: NVML)
  std::vector<std::uint64_t> available_hz;  // ascending
  std::vector<std::string> governors;
  std::string default_governor;
  std::uint64_t default_max_hz = 0;  // idle max_freq (nvpmodel cap or the table maximum)
  bool idle_gated = false;           // rail-gated at idle: cur_freq reads 0
  bool podgov_tunables = false;      // nvhost_podgov/ tunables inside the devfreq dir (Thor)
};

struct ThermalZoneSpec {
  std::optional<int> index;  // thermal_zone{index} when the reference observed it
  std::string type;
  std::int32_t idle_mc = 0;
  std::vector<double> trips_c;  // trip points in degC, ascending, when the reference gives them
};

struct IdentitySpec {
  std::string model;                    // /proc/device-tree/model without its NUL
  std::vector<std::string> compatible;  // most specific first
  std::string nv_tegra_release;         // first line of /etc/nv_tegra_release, no newline
};

enum class FanLayout {
  kNone,
  kPwmFanL4t32,  // /sys/devices/pwm-fan/{target_pwm,rpm_measured,temp_control,step_time}
  kHwmon,        // hwmon `pwmfan` (pwm1) + hwmon `pwm_tach` (rpm), L4T 35+
};

// How a board exposes its memory (EMC) clock (jetson-sysfs.md 3.5).
enum class EmcLayout {
  kNone,         // not modelled for this board
  kT210Debugfs,  // Nano, L4T 32: debugfs clk/override.emc + clk/emc + tegra_bwmgr
  kBpmpDebugfs,  // T186 / T194 / T234: debugfs bpmp/debug/clk/emc
  kThorDevfreq,  // Thor: devfreq device `bwmgr`
};

struct EmcSpec {
  EmcLayout layout = EmcLayout::kNone;
  std::vector<std::uint64_t> rates_hz;  // ascending; the reference's table or assumption A48
  bool nvpmodel_cap = false;            // /sys/kernel/nvpmodel_emc_cap/emc_iso_cap exists
  std::string devfreq_governor;         // kThorDevfreq: the default governor (assumed, A48)
};

struct BoardSpec {
  std::string id;    // "jetson-agx-orin"
  std::string name;  // human-readable
  std::string soc;   // "tegra234"
  int l4t = 0;       // generation major: 32, 35, 36, 38
  std::vector<PowerMonitorSpec> monitors;
  std::vector<std::string> total_rails;  // one input rail, or the rails whose sum is the module total
  CpuSpec cpu;
  std::vector<GpuSpec> gpus;
  std::vector<ThermalZoneSpec> thermal_zones;
  IdentitySpec identity;
  FanLayout fan = FanLayout::kNone;
  EmcSpec emc;
  std::vector<std::string> notes;  // values borrowed from another generation or assumed
};

}  // namespace energy::sim
