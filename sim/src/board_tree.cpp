// Board tree driver: numbering (plan_tree), building (build_board_tree) and
// the per-rail file map (rail_files).
#include "energysim/board_tree.h"

#include <set>

#include "build.h"
#include "emc.h"
#include "path_util.h"

namespace energy::sim {
namespace {

// Observed numbers are kept; the rest get the lowest free ones, in order.
Result<std::vector<int>> assign_numbers(const std::vector<std::optional<int>>& observed, const char* what) {
  std::set<int> used;
  for (const std::optional<int>& number : observed) {
    if (number && !used.insert(*number).second) {
      return make_error(ErrorCode::kInvalid,
                        std::string("two ") + what + " devices observed as " + std::to_string(*number));
    }
  }
  std::vector<int> out;
  int next = 0;
  for (const std::optional<int>& number : observed) {
    while (!number && used.count(next) != 0) ++next;
    out.push_back(number.value_or(next));
    used.insert(out.back());
  }
  return out;
}

bool is_iio(const PowerMonitorSpec& m) { return m.layout == MonitorLayout::kIna3221xIio; }

// hwmon probe order: monitors in data-file order, then pwmfan, then pwm_tach.
std::vector<std::optional<int>> observed_hwmon(const BoardSpec& spec) {
  std::vector<std::optional<int>> out;
  for (const PowerMonitorSpec& m : spec.monitors) {
    if (!is_iio(m)) out.push_back(m.observed_number);
  }
  if (spec.fan == FanLayout::kHwmon) out.insert(out.end(), 2, std::nullopt);
  return out;
}

std::vector<std::optional<int>> observed_iio(const BoardSpec& spec) {
  std::vector<std::optional<int>> out;
  for (const PowerMonitorSpec& m : spec.monitors) {
    if (is_iio(m)) out.push_back(m.observed_number);
  }
  return out;
}

std::vector<std::optional<int>> observed_zones(const BoardSpec& spec) {
  std::vector<std::optional<int>> out;
  for (const ThermalZoneSpec& zone : spec.thermal_zones) out.push_back(zone.index);
  return out;
}

std::string data_dir(const PowerMonitorSpec& m, int number) {
  const std::string n = std::to_string(number);
  return is_iio(m) ? m.device_dir + "/iio:device" + n : m.device_dir + "/hwmon/hwmon" + n;
}

void place_monitors(const BoardSpec& spec, const std::vector<int>& hwmon, const std::vector<int>& iio, TreePlan& plan) {
  std::size_t next_hwmon = 0;
  std::size_t next_iio = 0;
  for (const PowerMonitorSpec& m : spec.monitors) {
    const int number = is_iio(m) ? iio[next_iio++] : hwmon[next_hwmon++];
    plan.monitors.push_back(MonitorPlacement{number, data_dir(m, number)});
  }
  plan.fan_hwmon.assign(hwmon.begin() + static_cast<std::ptrdiff_t>(next_hwmon), hwmon.end());
}

std::vector<int> shifted(std::vector<int> numbers, int offset) {
  for (int& n : numbers) n += offset;
  return numbers;
}

// The data directory as reached through /sys/bus/i2c/drivers/<driver>/<client>.
std::string driver_view(const PowerMonitorSpec& m, const MonitorPlacement& p) {
  return std::string("/sys/bus/i2c/drivers/") + driver_name(m.layout) + "/" + m.device_name() +
         p.data_dir.substr(m.device_dir.size());
}

// File names per layout (units in board_tree.h's RailFiles).
RailFiles channel_files(const PowerMonitorSpec& m, const ChannelSpec& c, const std::string& dir) {
  RailFiles f{rail_id(m, c), c.label, m.layout, c.disabled, "", "", "", ""};
  const std::string i = std::to_string(c.index);
  const bool has_label = !c.disabled && !c.label.empty();
  switch (m.layout) {
    case MonitorLayout::kIna3221xIio:
      f.label_file = dir + "/rail_name_" + i;
      f.voltage_file = dir + "/in_voltage" + i + "_input";
      f.current_file = dir + "/in_current" + i + "_input";
      f.power_file = dir + "/in_power" + i + "_input";
      break;
    case MonitorLayout::kIna3221Hwmon:
      f.label_file = has_label ? dir + "/in" + i + "_label" : "";
      f.voltage_file = dir + "/in" + i + "_input";
      f.current_file = dir + "/curr" + i + "_input";
      break;
    case MonitorLayout::kIna238Hwmon:  // no label file: "VIN" is the name jtop gives it
      f.voltage_file = dir + "/in1_input";
      f.current_file = dir + "/curr1_input";
      f.power_file = dir + "/power1_input";
      break;
  }
  return f;
}

}  // namespace

Result<TreePlan> plan_tree(const BoardSpec& spec, const TreeOptions& options) {
  if (options.hwmon_offset < 0 || options.iio_offset < 0) {
    return make_error(ErrorCode::kInvalid, "device number offsets must not be negative");
  }
  Result<std::vector<int>> hwmon = assign_numbers(observed_hwmon(spec), "hwmon");
  Result<std::vector<int>> iio = assign_numbers(observed_iio(spec), "iio");
  Result<std::vector<int>> zones = assign_numbers(observed_zones(spec), "thermal");
  if (!hwmon) return hwmon.take_error();
  if (!iio) return iio.take_error();
  if (!zones) return zones.take_error();
  TreePlan plan;
  place_monitors(spec, shifted(*hwmon, options.hwmon_offset), shifted(*iio, options.iio_offset), plan);
  plan.thermal_zones = *zones;
  return plan;
}

Result<Tree> build_board_tree(const BoardSpec& spec, const TreePlan& plan) {
  if (plan.monitors.size() != spec.monitors.size()) return make_error(ErrorCode::kInvalid, "plan does not fit spec");
  Tree tree;
  add_i2c_adapters(tree, spec);
  for (std::size_t i = 0; i < spec.monitors.size(); ++i) add_power_monitor(tree, spec.monitors[i], plan.monitors[i]);
  add_cpufreq(tree, spec.cpu);
  for (const GpuSpec& gpu : spec.gpus) add_gpu(tree, gpu);
  add_thermal_zones(tree, spec, plan);
  add_fan(tree, spec.fan, plan);
  add_identity(tree, spec.identity);
  add_emc(tree, spec.emc);
  Status status = tree.status();
  if (!status) return status.take_error();
  return Result<Tree>(std::move(tree));
}

std::vector<RailFiles> rail_files(const BoardSpec& spec, const TreePlan& plan) {
  std::vector<RailFiles> out;
  for (std::size_t i = 0; i < spec.monitors.size() && i < plan.monitors.size(); ++i) {
    const PowerMonitorSpec& m = spec.monitors[i];
    const std::string dir = driver_view(m, plan.monitors[i]);
    for (const ChannelSpec& c : m.channels) out.push_back(channel_files(m, c, dir));
  }
  return out;
}

}  // namespace energy::sim
