// The simulator's own choices where the reference data is silent. Each value
// carries the id of its entry in sim/ASSUMPTIONS.md (A<n>), which gives the
// reason. Nothing else in the simulator invents board facts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "energysim/board_spec.h"

namespace energy::sim::assumed {

// A1: Thor's monitor addresses are unknown; the i2c controller is unknown for
// Thor (Orin NX / Nano: the reference's rail map names i2c@c240000 = bus 1).
inline constexpr int kBus = 1;
inline constexpr const char* kIna3221Addr4 = "0040";
inline constexpr const char* kIna238Addr4 = "0044";
inline constexpr const char* kI2cController = "c240000";

// A3: the mainline ina3221 driver's default when the device tree omits the shunt.
inline constexpr std::int64_t kShuntUohm = 10000;

// A4: idle bus voltage of a rail the reference gives no voltage for.
std::int32_t bus_mv_for_label(std::string_view label);

// A5: physical path of an i2c client, per generation.
std::string i2c_client_dir(int l4t, const std::string& controller, int bus, const std::string& device_name);

// A10: INA238 die temperature.
inline constexpr std::int32_t kIna238DieMc = 40000;

// A11: Thor's CPU layout (14 cores, one policy each) and table.
std::vector<CpuPolicySpec> cpu_policies_for_soc(const std::string& soc);
std::vector<std::uint32_t> cpu_table_for_soc(const std::string& soc);
// A12: the T194/T234 76.8 MHz grid from 115200 kHz up to `max_khz`, plus max.
std::vector<std::uint32_t> cpu_grid_up_to(std::uint32_t max_khz);
// A13: governors and cpufreq driver name where the reference has none.
std::vector<std::string> cpu_governors(int l4t);
inline constexpr const char* kCpuGovernor = "schedutil";
std::string cpufreq_driver(const std::string& soc);

// A15: GPU paths the reference omits.
std::string gpu_devfreq_dir(int l4t, const std::string& devfreq_name);
std::string gpu_load_dir(int l4t, const std::string& devfreq_dir);
// A16: the Orin 102 MHz GPU grid from 306 MHz up to `top_hz`, plus top.
std::vector<std::uint64_t> gpu_grid_up_to(std::uint64_t top_hz);
// A17: Thor's GPU table.
std::vector<std::uint64_t> gpu_table_for_soc(const std::string& soc);
// A18: GPU governors.
std::vector<std::string> gpu_governors();
inline constexpr const char* kGpuGovernor = "nvhost_podgov";

// A19: temperature of a zone the reference gives no value for.
inline constexpr std::int32_t kIdleMc = 40000;

// A20: identification strings the reference omits.
std::optional<std::string> model_for_board(const std::string& board_id);
std::string nv_tegra_release(int l4t, const std::string& soc, const std::optional<std::string>& board_field);
// "<gcid>" / "<date>" placeholders of the reference's release lines.
std::string fill_release_placeholders(std::string line);

}  // namespace energy::sim::assumed
