// Internal to the board tree builder: one function per subsystem, each adding
// its nodes to the Tree (conflicts accumulate in the Tree's status), plus the
// small formatting helpers they share. File modes follow the reference.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "energysim/board_spec.h"
#include "energysim/board_tree.h"
#include "energysim/tree.h"

namespace energy::sim {

inline constexpr std::uint32_t kModeReadOnly = 0444;
inline constexpr std::uint32_t kModeReadWrite = 0644;
inline constexpr std::uint32_t kModeRootOnly = 0600;  // L4T 32 rail_name / limits / ui_input
inline constexpr std::uint32_t kModeRootRead = 0400;  // cpuinfo_cur_freq

// Every sysfs value ends with one newline.
inline std::string line(std::string_view text) { return std::string(text) + "\n"; }
template <typename Number>
std::string line_of(Number value) {
  return std::to_string(value) + "\n";
}

// A failed read as the driver reports it: errno plus what failed.
Error read_error(int sys_errno, const std::string& what);

// Content computed from the state of rail `id`; EIO when the state lacks it.
ContentFn rail_content(std::string id, std::function<std::string(const RailState&)> format);

// A plain setting: reads what was last written (BoardState::settings[key]) or
// `initial`; a write is checked by `accept`, which returns the text to keep
// (without newline) or the EINVAL error.
using SettingCheck = std::function<Result<std::string>(std::string_view written)>;
void add_setting(Tree& tree, const std::string& path, const std::string& key, const std::string& initial,
                 SettingCheck accept);
// Checks for add_setting: 0 or 1; any unsigned integer; an unsigned integer up to `max`; one of `words`.
Result<std::string> accept_flag(std::string_view written);
Result<std::string> accept_unsigned(std::string_view written);
SettingCheck accept_up_to(std::uint64_t max);
SettingCheck accept_words(std::vector<std::string> words);

void add_i2c_adapters(Tree& tree, const BoardSpec& spec);
void add_power_monitor(Tree& tree, const PowerMonitorSpec& monitor, const MonitorPlacement& placement);
void add_cpufreq(Tree& tree, const CpuSpec& cpu);
void add_gpu(Tree& tree, const GpuSpec& gpu);
void add_thermal_zones(Tree& tree, const BoardSpec& spec, const TreePlan& plan);
void add_fan(Tree& tree, FanLayout layout, const TreePlan& plan);
void add_identity(Tree& tree, const IdentitySpec& identity);

}  // namespace energy::sim
