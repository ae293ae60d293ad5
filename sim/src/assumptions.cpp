#include "assumptions.h"

#include <utility>

#include "path_util.h"

namespace energy::sim::assumed {
namespace {

constexpr std::int32_t kHighVoltageMv = 19000;  // devkit adapter on SYS_VIN_HV, as the reference assumes
constexpr std::pair<const char*, std::int32_t> kLabelVoltages[] = {
    {"5V0", 5000},
    {"4V0", 4000},
    {"3V3", 3300},
    {"1V8", 1800},
};

constexpr std::uint32_t kGridStartKhz = 115200;
constexpr std::uint32_t kGridStepKhz = 76800;
constexpr std::uint32_t kThorCpuMaxKhz = 2601600;  // T5000: up to 2.6 GHz
constexpr int kThorCores = 14;

constexpr std::uint64_t kOrinGpuStartHz = 306000000;
constexpr std::uint64_t kOrinGpuStepHz = 102000000;

}  // namespace

std::int32_t bus_mv_for_label(std::string_view label) {
  for (const auto& [token, mv] : kLabelVoltages) {
    if (label.find(token) != std::string_view::npos) return mv;
  }
  return kHighVoltageMv;
}

std::string i2c_client_dir(int l4t, const std::string& controller, int bus, const std::string& device_name) {
  const std::string base = l4t <= 32   ? "/sys/devices"
                           : l4t <= 35 ? "/sys/devices/platform"
                                       : "/sys/devices/platform/bus@0";
  return base + "/" + controller + ".i2c/i2c-" + std::to_string(bus) + "/" + device_name;
}

std::vector<CpuPolicySpec> cpu_policies_for_soc(const std::string& soc) {
  std::vector<CpuPolicySpec> out;
  if (soc != "tegra264") return out;
  for (int cpu = 0; cpu < kThorCores; ++cpu) out.push_back(CpuPolicySpec{cpu, {cpu}});
  return out;
}

std::vector<std::uint32_t> cpu_table_for_soc(const std::string& soc) {
  return soc == "tegra264" ? cpu_grid_up_to(kThorCpuMaxKhz) : std::vector<std::uint32_t>{};
}

std::vector<std::uint32_t> cpu_grid_up_to(std::uint32_t max_khz) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t khz = kGridStartKhz; khz <= max_khz; khz += kGridStepKhz) out.push_back(khz);
  if (out.empty() || out.back() != max_khz) out.push_back(max_khz);
  return out;
}

std::vector<std::string> cpu_governors(int l4t) {
  std::vector<std::string> out = {"conservative", "ondemand", "userspace", "powersave", "performance", "schedutil"};
  if (l4t <= 32) out.insert(out.begin(), "interactive");
  return out;
}

std::string cpufreq_driver(const std::string& soc) {
  if (soc == "tegra210") return "tegra";
  if (soc == "tegra186") return "tegra186";
  if (soc == "tegra264") return "cppc_cpufreq";
  return "tegra194";  // tegra194-cpufreq also drives T234
}

std::string gpu_devfreq_dir(int l4t, const std::string& devfreq_name) {
  if (devfreq_name.find('.') == std::string::npos) return "/sys/devices/virtual/devfreq/" + devfreq_name;
  const std::string parent = l4t >= 36 ? "/sys/devices/platform/bus@0/" : "/sys/devices/";
  return parent + devfreq_name + "/devfreq/" + devfreq_name;
}

std::string gpu_load_dir(int l4t, const std::string& devfreq_dir) {
  if (l4t <= 32) return "/sys/devices/gpu.0";
  if (l4t <= 35) return "/sys/devices/platform/gpu.0";
  return parent_path(parent_path(devfreq_dir));
}

std::vector<std::uint64_t> gpu_grid_up_to(std::uint64_t top_hz) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t hz = kOrinGpuStartHz; hz <= top_hz; hz += kOrinGpuStepHz) out.push_back(hz);
  if (out.empty() || out.back() != top_hz) out.push_back(top_hz);
  return out;
}

std::vector<std::uint64_t> gpu_table_for_soc(const std::string& soc) {
  std::vector<std::uint64_t> out;
  if (soc != "tegra264") return out;
  for (std::uint64_t mhz = 300; mhz <= 1000; mhz += 100) out.push_back(mhz * 1000000);
  return out;
}

std::vector<std::string> gpu_governors() { return {"nvhost_podgov", "userspace", "performance", "simple_ondemand"}; }

std::optional<std::string> model_for_board(const std::string& board_id) {
  if (board_id == "jetson-tx2") return "quill";
  if (board_id == "jetson-agx-xavier") return "Jetson-AGX";
  if (board_id == "jetson-orin-nx") return "NVIDIA Jetson Orin NX Engineering Reference Developer Kit";
  return std::nullopt;
}

std::string nv_tegra_release(int l4t, const std::string& soc, const std::optional<std::string>& board_field) {
  const std::string revision = l4t <= 32 ? "7.1" : l4t == 35 ? "4.1" : l4t == 36 ? "4.3" : "2.0";
  std::string board = l4t >= 36 ? "generic" : soc == "tegra210" ? "t210ref" : "t186ref";
  if (board_field && l4t <= 35) board = *board_field;
  return "# R" + std::to_string(l4t) + " (release), REVISION: " + revision + ", GCID: <gcid>, BOARD: " + board +
         ", EABI: aarch64, DATE: <date>";
}

std::string fill_release_placeholders(std::string line) {
  const std::pair<const char*, const char*> fills[] = {{"<gcid>", "00000000"},
                                                       {"<date>", "Mon Jan  1 00:00:00 UTC 2024"}};
  for (const auto& [placeholder, value] : fills) {
    const std::size_t at = line.find(placeholder);
    if (at != std::string::npos) line.replace(at, std::string_view(placeholder).size(), value);
  }
  return line;
}

}  // namespace energy::sim::assumed
