// fuzz_sysfs_values: bytes -> the parsers of sysfs and board files.
//
// Input: [mode byte][text]. Pure text parsers get the text itself; parsers
// buried in readers get a small board tree (under a temp directory, one
// subtree per mode) whose files hold the text's '|'-separated fields, in the
// order the mode's kFiles lists them (missing fields get a typical value),
// and then run the same discovery and reads the daemon does:
//   0 parse_sysfs_int           5 cpufreq policy: discover_clocks, read_domain,
//   1 parse_cpu_list              ContextProbe, plan_pin of the last field
//   2 parse_nv_tegra_release    6 GPU devfreq and a thermal zone: the same
//   3 parse_freq_range/_bound     and read_thermal
//   4 select_total_rails        7 INA3221 hwmon: discover_rails, RailReader
//     ('|'-separated labels)    8 INA3221x IIO (L4T 32): the same
//                               9 device tree and nv_tegra_release: identify_board
// ENERGY_FUZZ_SYSFS_MODE=N pins every input to mode N (to fuzz one parser
// while a finding in another is open).
// Properties: no crash, no sanitizer report, no exception; results stay
// within what the input can give (indices in range, lists bounded).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "energy/attr_file.h"
#include "energy/board.h"
#include "energy/clock_pin.h"
#include "energy/clocks.h"
#include "energy/context_probe.h"
#include "energy/rail_reader.h"
#include "energy/rail_total.h"
#include "fuzz_common.h"

namespace {

using energy::fuzz::require;
using energy::fuzz::split;
namespace fs = std::filesystem;

struct TreeFile {
  std::string path;   // board path
  std::string usual;  // the value when the input has no field for it
};

// Created at the first input under $TMPDIR, removed at a normal exit. Never
// destroyed, so the exit handler can still use it.
const std::string& temp_root() {
  static const std::string* root = [] {
    std::string tmpl = (fs::temp_directory_path() / "energyd-fuzz-sysfs.XXXXXX").string();
    require(mkdtemp(tmpl.data()) != nullptr, "cannot create a temp directory");
    return new std::string(tmpl);
  }();
  static const bool cleanup = std::atexit([] {
                                std::error_code ec;
                                fs::remove_all(*root, ec);
                              }) == 0;
  (void)cleanup;
  return *root;
}

// Writes the tree of one mode: every file, from its field or its usual value.
energy::SysRoot write_tree(int mode, const std::vector<TreeFile>& files, const std::string& text) {
  std::string root = temp_root() + "/mode" + std::to_string(mode);
  auto fields = split(text, '|');
  for (size_t i = 0; i < files.size(); ++i) {
    fs::path host = root + files[i].path;
    fs::create_directories(host.parent_path());
    std::ofstream(host, std::ios::binary | std::ios::trunc) << (i < fields.size() ? fields[i] : files[i].usual);
  }
  return energy::SysRoot(root);
}

// The last field past the tree's files, if any: a clocks.pin range.
std::string extra_field(const std::vector<TreeFile>& files, const std::string& text) {
  auto fields = split(text, '|');
  return fields.size() > files.size() ? fields[files.size()] : "max";
}

void check_text_parsers(int mode, const std::string& text) {
  if (mode == 0) (void)energy::parse_sysfs_int(text, "fuzz");
  if (mode == 1) require(energy::parse_cpu_list(text).size() <= 4097 * (text.size() / 2 + 1), "cpu list too long");
  if (mode == 2) {
    energy::BoardIdentity id;
    energy::parse_nv_tegra_release(text, id);
  }
  if (mode == 3) {
    auto bound = energy::parse_freq_bound(text);
    if (bound && bound->kind == energy::FreqBound::Kind::kHz) (void)energy::format_mhz(bound->hz);
    (void)energy::parse_freq_range(text);
  }
  if (mode == 4) {
    auto labels = split(text, '|');
    for (size_t i : energy::select_total_rails(labels).rail_indices)
      require(i < labels.size(), "rail index out of range");
  }
}

// Reads every domain and zone the way `energyctl clocks` and the context poller do.
void read_clocks(const energy::SysRoot& root, const std::string& pin_text) {
  auto inv = energy::discover_clocks(root);
  energy::ContextProbe probe(root, inv);
  for (size_t i = 0; i < probe.domain_count(); ++i) {
    (void)probe.read_frequency(i);
    (void)probe.read_governor(i);
  }
  for (size_t i = 0; i < probe.zone_count(); ++i) (void)probe.read_temperature(i);
  (void)energy::read_thermal(root, inv.thermal);
  auto range = energy::parse_freq_range(pin_text);
  for (const auto& d : inv.domains) {
    auto state = energy::read_domain(root, d);
    if (!range) continue;
    energy::PinRequest request{d.name, *range, ""};
    auto pin = energy::plan_pin(d, state, request, energy::OfflineCpus::kAllow);
    if (pin) (void)energy::plan_writes(*pin, energy::PinDirection::kApply, state.max_hz.value_or(0));
  }
}

const std::vector<TreeFile> kCpufreq = {
    {"/sys/devices/system/cpu/cpufreq/policy0/scaling_available_frequencies", "115200 1190400 1510400\n"},
    {"/sys/devices/system/cpu/cpufreq/policy0/scaling_available_governors", "interactive schedutil performance\n"},
    {"/sys/devices/system/cpu/cpufreq/policy0/related_cpus", "0-3\n"},
    {"/sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq", "1190400\n"},
    {"/sys/devices/system/cpu/cpufreq/policy0/scaling_min_freq", "115200\n"},
    {"/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq", "1510400\n"},
    {"/sys/devices/system/cpu/cpufreq/policy0/scaling_governor", "schedutil\n"},
    {"/sys/devices/system/cpu/cpu1/online", "1\n"},
};

const std::vector<TreeFile> kDevfreq = {
    {"/sys/class/devfreq/17000000.gpu/device/of_node/name", "gpu"},
    {"/sys/class/devfreq/17000000.gpu/available_frequencies", "306000000 612000000 918000000\n"},
    {"/sys/class/devfreq/17000000.gpu/available_governors", "nvhost_podgov performance\n"},
    {"/sys/class/devfreq/17000000.gpu/cur_freq", "612000000\n"},
    {"/sys/class/devfreq/17000000.gpu/min_freq", "306000000\n"},
    {"/sys/class/devfreq/17000000.gpu/max_freq", "918000000\n"},
    {"/sys/class/devfreq/17000000.gpu/governor", "nvhost_podgov\n"},
    {"/sys/class/devfreq/17000000.gpu/device/load", "250\n"},
    {"/sys/class/thermal/thermal_zone0/type", "GPU-therm\n"},
    {"/sys/class/thermal/thermal_zone0/temp", "41500\n"},
};

const std::vector<TreeFile> kHwmon = {
    {"/sys/bus/i2c/devices/1-0040/name", "ina3221\n"},
    {"/sys/bus/i2c/devices/1-0040/hwmon/hwmon3/in1_label", "VDD_IN\n"},
    {"/sys/bus/i2c/devices/1-0040/hwmon/hwmon3/in2_label", "VDD_CPU_GPU_CV\n"},
    {"/sys/bus/i2c/devices/1-0040/hwmon/hwmon3/in3_label", "VDD_SOC\n"},
    {"/sys/bus/i2c/devices/1-0040/hwmon/hwmon3/samples", "512\n"},
    {"/sys/bus/i2c/devices/1-0040/hwmon/hwmon3/update_interval", "428\n"},
    {"/sys/bus/i2c/devices/1-0040/hwmon/hwmon3/in1_enable", "1\n"},
    {"/sys/bus/i2c/devices/1-0040/hwmon/hwmon3/in2_enable", "1\n"},
    {"/sys/bus/i2c/devices/1-0040/hwmon/hwmon3/in3_enable", "1\n"},
    {"/sys/bus/i2c/devices/1-0040/hwmon/hwmon3/in1_input", "5048\n"},
    {"/sys/bus/i2c/devices/1-0040/hwmon/hwmon3/curr1_input", "1168\n"},
    {"/sys/bus/i2c/devices/1-0040/hwmon/hwmon3/in2_input", "5040\n"},
    {"/sys/bus/i2c/devices/1-0040/hwmon/hwmon3/curr2_input", "320\n"},
};

const std::vector<TreeFile> kIio = {
    {"/sys/bus/i2c/devices/0-0040/name", "ina3221x\n"},
    {"/sys/bus/i2c/devices/0-0040/iio:device0/rail_name_0", "POM_5V_IN\n"},
    {"/sys/bus/i2c/devices/0-0040/iio:device0/rail_name_1", "POM_5V_GPU\n"},
    {"/sys/bus/i2c/devices/0-0040/iio:device0/rail_name_2", "NC\n"},
    {"/sys/bus/i2c/devices/0-0040/iio:device0/in_voltage0_input", "5032\n"},
    {"/sys/bus/i2c/devices/0-0040/iio:device0/in_current0_input", "632\n"},
    {"/sys/bus/i2c/devices/0-0040/iio:device0/in_power0_input", "3180\n"},
    {"/sys/bus/i2c/devices/0-0040/iio:device0/in_voltage1_input", "5024 mv\n"},
    {"/sys/bus/i2c/devices/0-0040/iio:device0/in_current1_input", "40 ma\n"},
    {"/sys/bus/i2c/devices/0-0040/iio:device0/in_power1_input", "200 mw\n"},
};

const std::vector<TreeFile> kBoard = {
    {"/proc/device-tree/model", "NVIDIA Jetson Nano Developer Kit"},
    {"/proc/device-tree/compatible", std::string("nvidia,p3450-0000\0nvidia,tegra210", 33)},
    {"/etc/nv_tegra_release", "# R32 (release), REVISION: 7.4, GCID: 33514132, BOARD: t210ref, EABI: aarch64\n"},
};

void read_rails(const energy::SysRoot& root, const energy::BoardIdentity& board) {
  auto inv = energy::discover_rails(root);
  energy::apply_device_tree_averaging(board, inv);
  std::vector<std::string> labels;
  for (const auto& rail : inv.rails) {
    energy::RailReader reader(root, rail);
    for (int i = 0; i < 2; ++i) (void)reader.read();
    labels.push_back(rail.label);
  }
  for (size_t i : energy::select_total_rails(labels).rail_indices)
    require(i < labels.size(), "rail index out of range");
}

void check_tree(int mode, const std::string& text) {
  if (mode == 5) read_clocks(write_tree(mode, kCpufreq, text), extra_field(kCpufreq, text));
  if (mode == 6) read_clocks(write_tree(mode, kDevfreq, text), extra_field(kDevfreq, text));
  if (mode == 7) read_rails(write_tree(mode, kHwmon, text), energy::BoardIdentity{});
  if (mode == 8) {
    energy::BoardIdentity nano;
    nano.compatible = {"nvidia,p3450-0000"};
    read_rails(write_tree(mode, kIio, text), nano);
  }
  if (mode == 9) (void)energy::identify_board(write_tree(mode, kBoard, text));
}

// The mode from ENERGY_FUZZ_SYSFS_MODE, or -1 when unset.
int pinned_mode() {
  static const int mode = [] {
    const char* env = std::getenv("ENERGY_FUZZ_SYSFS_MODE");
    if (env == nullptr || *env == '\0') return -1;
    char* end = nullptr;
    long v = std::strtol(env, &end, 10);
    if (*end != '\0' || v < 0 || v > 9) {
      std::fprintf(stderr, "fuzz_sysfs_values: ENERGY_FUZZ_SYSFS_MODE wants 0-9, got '%s'\n", env);
      std::exit(2);
    }
    return static_cast<int>(v);
  }();
  return mode;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  int mode = pinned_mode() >= 0 ? pinned_mode() : data[0] % 10;
  std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  if (mode <= 4)
    check_text_parsers(mode, text);
  else
    check_tree(mode, text);
  return 0;
}
