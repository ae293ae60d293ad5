// Thermal zones (milli-degC), fan, device-tree identification and
// /etc/nv_tegra_release.
#include <cerrno>

#include "build.h"
#include "sysfs_write.h"

namespace energy::sim {
namespace {

constexpr const char* kDeviceTreeBase = "/sys/firmware/devicetree/base";

// A21: one observed point (pwm 58 -> 1786 rpm on Thor), linear through zero.
std::uint32_t fan_rpm(std::uint32_t pwm) { return pwm * 1786 / 58; }

ContentFn fan_content(std::function<std::string(std::uint32_t pwm)> format) {
  return [format = std::move(format)](const BoardState& state) -> Result<std::string> { return format(state.fan_pwm); };
}

// The fan's duty cycle: 0..255, anything else is EINVAL.
Status store_pwm(BoardState& state, std::string_view text) {
  Result<std::uint64_t> pwm = parse_written_unsigned(text);
  if (!pwm || *pwm > 255) return rejected_write("pwm: '" + written_word(text) + "' is not 0..255");
  state.fan_pwm = static_cast<std::uint32_t>(*pwm);
  return ok_status();
}

void add_pwm_fan_l4t32(Tree& tree) {
  const std::string dir = "/sys/devices/pwm-fan";
  tree.add_file(dir + "/target_pwm", kModeReadWrite, fan_content([](std::uint32_t pwm) { return line_of(pwm); }),
                store_pwm);
  tree.add_file(dir + "/rpm_measured", kModeReadOnly,
                fan_content([](std::uint32_t pwm) { return line_of(fan_rpm(pwm)); }));
  add_setting(tree, dir + "/temp_control", "pwm-fan/temp_control", "1", accept_flag);
  add_setting(tree, dir + "/step_time", "pwm-fan/step_time", "100", accept_unsigned);  // A21
}

// A fan hwmon device: not a power monitor, which readers must skip.
std::string add_fan_hwmon(Tree& tree, const std::string& device_dir, int number, const char* name) {
  std::string dir = device_dir + "/hwmon/hwmon" + std::to_string(number);
  tree.add_text_file(dir + "/name", kModeReadOnly, line(name));
  tree.add_sysfs_link(dir + "/device", device_dir);
  tree.add_sysfs_link("/sys/class/hwmon/hwmon" + std::to_string(number), dir);
  return dir;
}

void add_hwmon_fan(Tree& tree, const std::vector<int>& numbers) {
  if (numbers.size() != 2) return;
  const std::string pwm_dir = add_fan_hwmon(tree, "/sys/devices/platform/pwm-fan", numbers[0], "pwmfan");
  tree.add_file(pwm_dir + "/pwm1", kModeReadWrite, fan_content([](std::uint32_t pwm) { return line_of(pwm); }),
                store_pwm);
  // Keyed by name, not path: the hwmon number changes with --hwmon-offset / renumber.
  add_setting(tree, pwm_dir + "/pwm1_enable", "pwmfan/pwm1_enable", "1", accept_words({"0", "1", "2"}));
  const std::string tach_dir = add_fan_hwmon(tree, "/sys/devices/platform/39c0000.tachometer", numbers[1], "pwm_tach");
  tree.add_file(tach_dir + "/rpm", kModeReadOnly, fan_content([](std::uint32_t pwm) { return line_of(fan_rpm(pwm)); }));
}

ContentFn zone_temperature(std::size_t zone) {
  return [zone](const BoardState& state) -> Result<std::string> {
    if (zone >= state.thermal_mc.size()) return read_error(EIO, "no state for thermal zone " + std::to_string(zone));
    return line_of(state.thermal_mc[zone]);
  };
}

// Device-tree strings end in NUL; a string list is NUL-separated.
std::string nul_terminated(const std::vector<std::string>& strings) {
  std::string out;
  for (const std::string& s : strings) out += s + '\0';
  return out;
}

}  // namespace

void add_thermal_zones(Tree& tree, const BoardSpec& spec, const TreePlan& plan) {
  for (std::size_t i = 0; i < spec.thermal_zones.size() && i < plan.thermal_zones.size(); ++i) {
    const std::string name = "thermal_zone" + std::to_string(plan.thermal_zones[i]);
    const std::string dir = "/sys/devices/virtual/thermal/" + name;
    tree.add_text_file(dir + "/type", kModeReadOnly, line(spec.thermal_zones[i].type));
    tree.add_file(dir + "/temp", kModeReadOnly, zone_temperature(i));
    tree.add_sysfs_link("/sys/class/thermal/" + name, dir);
  }
}

void add_fan(Tree& tree, FanLayout layout, const TreePlan& plan) {
  if (layout == FanLayout::kPwmFanL4t32) add_pwm_fan_l4t32(tree);
  if (layout == FanLayout::kHwmon) add_hwmon_fan(tree, plan.fan_hwmon);
}

void add_identity(Tree& tree, const IdentitySpec& identity) {
  const std::string base = kDeviceTreeBase;
  tree.add_text_file(base + "/model", kModeReadOnly, nul_terminated({identity.model}));
  tree.add_text_file(base + "/compatible", kModeReadOnly, nul_terminated(identity.compatible));
  // Absolute on real boards too: a reader with a --root must resolve it there.
  tree.add_symlink("/proc/device-tree", base);
  tree.add_text_file("/etc/nv_tegra_release", kModeReadWrite, line(identity.nv_tegra_release));
}

}  // namespace energy::sim
