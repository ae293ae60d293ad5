// Power-monitor nodes: the i2c client (name, driver and bus links) and the
// data directory of each driver generation, with the units of the reference:
// IIO mV / mA / mW, INA3221 hwmon mV / mA / uV, INA238 mV / mA / uW.
#include <cerrno>
#include <set>

#include "assumptions.h"
#include "build.h"
#include "energysim/chip_model.h"
#include "path_util.h"
#include "sysfs_write.h"

namespace energy::sim {
namespace {

std::string text(int value) { return std::to_string(value); }

void add_client_file(Tree& tree, const std::string& device_dir, const ClientFileSpec& file) {
  const std::string path = join_path(device_dir, file.relative_path);
  const std::uint32_t mode = base_name(path) == "runtime_status" ? kModeReadOnly : kModeReadWrite;
  if (file.read_errno != 0) return tree.add_failing_file(path, mode, file.read_errno);
  tree.add_text_file(path, mode, line(file.content));
}

std::string driver_dir(const PowerMonitorSpec& m) {
  return std::string("/sys/bus/i2c/drivers/") + driver_name(m.layout);
}
std::string bus_link(const PowerMonitorSpec& m) { return "/sys/bus/i2c/devices/" + m.device_name(); }
std::string class_link(const PowerMonitorSpec& m, int number) {
  return m.layout == MonitorLayout::kIna3221xIio ? "/sys/bus/iio/devices/iio:device" + text(number)
                                                 : "/sys/class/hwmon/hwmon" + text(number);
}

void add_i2c_client(Tree& tree, const PowerMonitorSpec& m) {
  const std::string drivers = driver_dir(m);
  tree.add_text_file(join_path(m.device_dir, "name"), kModeReadOnly, line(driver_name(m.layout)));
  tree.add_sysfs_link(join_path(m.device_dir, "driver"), drivers);
  tree.add_sysfs_link(join_path(drivers, m.device_name()), m.device_dir);
  tree.add_sysfs_link(bus_link(m), m.device_dir);
  for (const ClientFileSpec& file : m.client_files) add_client_file(tree, m.device_dir, file);
}

// ---- L4T 32 staging IIO driver (ina3221x) -------------------------------

std::string iio_voltage(const RailState& r) { return line_of(r.bus_mv); }
std::string iio_current(const RailState& r) { return line_of(r.current_ma); }
std::string iio_power(const RailState& r) { return line_of(ina3221x_power_mw(r.bus_mv, r.current_ma)); }
std::string iio_ui(const RailState& r) { return line(text(r.bus_mv) + " " + text(r.current_ma)); }

// A channel file whose content is a converted value (what sensor faults hit).
void add_value_file(Tree& tree, const std::string& path, std::uint32_t mode, const std::string& id,
                    std::function<std::string(const RailState&)> format) {
  tree.add_file(path, mode, rail_content(id, std::move(format)));
  tree.tag_rail(path, id, RailFileRole::kValue);
}

// A channel file that does not change with the measurement.
void add_info_file(Tree& tree, const std::string& path, std::uint32_t mode, const std::string& id,
                   std::string content) {
  tree.add_text_file(path, mode, std::move(content));
  tree.tag_rail(path, id, RailFileRole::kInfo);
}

void add_iio_channel(Tree& tree, const std::string& dir, const std::string& id, const ChannelSpec& c) {
  const std::string i = text(c.index);
  const std::int32_t limit_ma = ina3221_full_scale_ma(c.shunt_uohm);  // A7
  add_info_file(tree, dir + "/rail_name_" + i, kModeRootOnly, id, line(c.label));
  add_value_file(tree, dir + "/in_voltage" + i + "_input", kModeReadOnly, id, iio_voltage);
  add_value_file(tree, dir + "/in_current" + i + "_input", kModeReadOnly, id, iio_current);
  add_value_file(tree, dir + "/in_power" + i + "_input", kModeReadOnly, id, iio_power);
  // Continuous mode (A6): the trigger inputs convert like the plain ones.
  add_value_file(tree, dir + "/in_current" + i + "_trigger_input", kModeReadOnly, id, iio_current);
  add_value_file(tree, dir + "/in_power" + i + "_trigger_input", kModeReadOnly, id, iio_power);
  add_value_file(tree, dir + "/ui_input_" + i, kModeRootOnly, id, iio_ui);
  add_info_file(tree, dir + "/crit_current_limit_" + i, kModeRootOnly, id, line(text(limit_ma) + " ma"));
  add_info_file(tree, dir + "/warn_current_limit_" + i, kModeRootOnly, id, line(text(limit_ma) + " ma"));
  tree.add_file(dir + "/crit_power_limit_" + i, kModeRootOnly, rail_content(id, [limit_ma](const RailState& r) {
                  return line(std::to_string(std::int64_t{limit_ma} * r.bus_mv / 1000) + " mw");
                }));
  tree.tag_rail(dir + "/crit_power_limit_" + i, id, RailFileRole::kInfo);
  add_info_file(tree, dir + "/polling_delay_" + i, kModeRootOnly, id, line("0 ms"));
}

void add_iio_monitor(Tree& tree, const PowerMonitorSpec& m, const MonitorPlacement& p) {
  const std::string& dir = p.data_dir;
  tree.add_text_file(dir + "/name", kModeReadOnly, line("ina3221x"));
  for (const ChannelSpec& c : m.channels) add_iio_channel(tree, dir, rail_id(m, c), c);
  // A7: summation not enabled; the sum limit register at reset (655320 uV).
  const std::int64_t sum_limit_ma = ina3221_current_ma(655320, m.channels.front().shunt_uohm);
  tree.add_text_file(dir + "/running_mode", kModeRootOnly, line("1"));
  tree.add_text_file(dir + "/in_current_sum_input", kModeRootOnly, line("0 ma"));
  tree.add_text_file(dir + "/crit_current_limit_sum", kModeRootOnly, line(std::to_string(sum_limit_ma) + " ma"));
  tree.add_sysfs_link(class_link(m, p.number), dir);
}

// ---- mainline INA3221 hwmon driver (ina3221) ----------------------------

struct SummedInput {
  std::string rail_id;
  std::int64_t shunt_uohm = 0;
};

// The driver sums enabled channels without ti,summation-disable, and can
// convert the sum to a current only if they share one shunt value (else 0).
std::vector<SummedInput> summed_inputs(const PowerMonitorSpec& m) {
  std::vector<SummedInput> out;
  for (const ChannelSpec& c : m.channels) {
    if (!c.disabled && !c.summation_disable) out.push_back(SummedInput{rail_id(m, c), c.shunt_uohm});
  }
  return out;
}

std::int64_t summation_shunt_uohm(const std::vector<SummedInput>& inputs) {
  std::set<std::int64_t> shunts;
  for (const SummedInput& in : inputs) shunts.insert(in.shunt_uohm);
  return shunts.size() == 1 ? *shunts.begin() : 0;
}

Result<std::int64_t> sum_shunt_uv(const std::vector<SummedInput>& inputs, const BoardState& state) {
  std::int64_t sum = 0;
  for (const SummedInput& in : inputs) {
    const auto it = state.rails.find(in.rail_id);
    if (it == state.rails.end()) return read_error(EIO, "no state for rail " + in.rail_id);
    sum += ina3221_shunt_uv(it->second.current_ma, in.shunt_uohm);
  }
  return sum;
}

void add_ina3221_sum(Tree& tree, const std::string& dir, const PowerMonitorSpec& m) {
  const std::vector<SummedInput> inputs = summed_inputs(m);
  const std::int64_t shunt = summation_shunt_uohm(inputs);
  tree.add_text_file(dir + "/in7_label", kModeReadOnly, line("sum of shunt voltages"));
  tree.add_file(dir + "/in7_input", kModeReadOnly, [inputs](const BoardState& s) -> Result<std::string> {
    Result<std::int64_t> uv = sum_shunt_uv(inputs, s);
    return uv ? Result<std::string>(line_of(*uv)) : Result<std::string>(uv.error());
  });
  tree.add_text_file(dir + "/curr4_crit_alarm", kModeReadOnly, line("0"));
  if (shunt == 0) {
    tree.add_failing_file(dir + "/curr4_input", kModeReadOnly, ENODATA);
    return tree.add_failing_file(dir + "/curr4_crit", kModeReadWrite, ENODATA);
  }
  tree.add_file(dir + "/curr4_input", kModeReadOnly, [inputs, shunt](const BoardState& s) -> Result<std::string> {
    Result<std::int64_t> uv = sum_shunt_uv(inputs, s);
    return uv ? Result<std::string>(line_of(ina3221_current_ma(*uv, shunt))) : Result<std::string>(uv.error());
  });
  tree.add_text_file(dir + "/curr4_crit", kModeReadWrite, line_of(ina3221_current_ma(655320, shunt)));
}

// A disabled channel's value files exist but every read fails with ENODATA.
void add_value(Tree& tree, const std::string& path, const std::string& id, const ChannelSpec& c,
               std::function<std::string(const RailState&)> format) {
  if (c.disabled) {
    tree.add_failing_file(path, kModeReadOnly, ENODATA);
    return tree.tag_rail(path, id, RailFileRole::kValue);
  }
  add_value_file(tree, path, kModeReadOnly, id, std::move(format));
}

void add_ina3221_values(Tree& tree, const std::string& dir, const std::string& id, const ChannelSpec& c) {
  const std::int64_t shunt = c.shunt_uohm;
  const std::string i = text(c.index);
  add_value(tree, dir + "/in" + i + "_input", id, c,
            [](const RailState& r) { return line_of(ina3221_bus_mv(r.bus_mv)); });
  add_value(tree, dir + "/in" + text(c.index + 3) + "_input", id, c,
            [shunt](const RailState& r) { return line_of(ina3221_shunt_uv(r.current_ma, shunt)); });
  add_value(tree, dir + "/curr" + i + "_input", id, c, [shunt](const RailState& r) {
    return line_of(ina3221_current_ma(ina3221_shunt_uv(r.current_ma, shunt), shunt));
  });
}

void add_ina3221_channel(Tree& tree, const std::string& dir, const std::string& id, const ChannelSpec& c) {
  const std::string i = text(c.index);
  const std::string limit = line_of(ina3221_full_scale_ma(c.shunt_uohm));  // A8
  // The driver hides the label of a channel the device tree gives none (disabled ones included).
  if (!c.disabled && !c.label.empty())
    add_info_file(tree, dir + "/in" + i + "_label", kModeReadOnly, id, line(c.label));
  add_ina3221_values(tree, dir, id, c);
  add_info_file(tree, dir + "/in" + i + "_enable", kModeReadWrite, id, line(c.disabled ? "0" : "1"));
  add_info_file(tree, dir + "/curr" + i + "_max", kModeReadWrite, id, limit);
  add_info_file(tree, dir + "/curr" + i + "_crit", kModeReadWrite, id, limit);
  add_info_file(tree, dir + "/curr" + i + "_max_alarm", kModeReadOnly, id, line("0"));
  add_info_file(tree, dir + "/curr" + i + "_crit_alarm", kModeReadOnly, id, line("0"));
  add_info_file(tree, dir + "/shunt" + i + "_resistor", kModeReadWrite, id, line_of(c.shunt_uohm));
}

void add_hwmon_common(Tree& tree, const PowerMonitorSpec& m, const MonitorPlacement& p) {
  tree.add_text_file(p.data_dir + "/name", kModeReadOnly, line(driver_name(m.layout)));
  tree.add_sysfs_link(p.data_dir + "/device", m.device_dir);
  tree.add_sysfs_link(class_link(m, p.number), p.data_dir);
}

MonitorConfig monitor_config(const BoardState& state, const std::string& device) {
  const auto it = state.monitor_config.find(device);
  return it == state.monitor_config.end() ? MonitorConfig{} : it->second;
}

// samples and update_interval show and change the chip's conversion settings;
// like the mainline driver, a write picks the closest setting the chip has.
void add_ina3221_config(Tree& tree, const std::string& dir, const std::string& device, int channels) {
  tree.add_file(
      dir + "/samples", kModeReadWrite,
      [device](const BoardState& s) -> Result<std::string> { return line_of(monitor_config(s, device).samples); },
      [device](BoardState& s, std::string_view text) -> Status {
        Result<std::int64_t> value = parse_written_integer(text);
        if (!value) return value.take_error();
        s.monitor_config[device].samples = ina3221_closest_samples(*value);
        return ok_status();
      });
  tree.add_file(
      dir + "/update_interval", kModeReadWrite,
      [device, channels](const BoardState& s) -> Result<std::string> {
        const MonitorConfig c = monitor_config(s, device);
        return line_of(ina3221_update_interval_ms(channels, c.samples, c.conversion_us));
      },
      [device, channels](BoardState& s, std::string_view text) -> Status {
        Result<std::int64_t> value = parse_written_integer(text);
        if (!value) return value.take_error();
        MonitorConfig& c = s.monitor_config[device];
        c.conversion_us = ina3221_conversion_us_for_interval(*value, channels, c.samples);
        return ok_status();
      });
}

void add_ina3221_monitor(Tree& tree, const PowerMonitorSpec& m, const MonitorPlacement& p) {
  const std::string& dir = p.data_dir;
  add_hwmon_common(tree, m, p);
  for (const ChannelSpec& c : m.channels) add_ina3221_channel(tree, dir, rail_id(m, c), c);
  add_ina3221_sum(tree, dir, m);
  add_ina3221_config(tree, dir, m.device_name(), enabled_channels(m));
}

// ---- mainline INA238 hwmon driver (Thor carrier input) --------------------

void add_ina238_limits(Tree& tree, const std::string& dir, std::int64_t shunt_uohm) {
  // A10: reset limit registers, in the driver's units.
  const std::int64_t curr_max_ma = div_round_closest(std::int64_t{163840} * 1000, shunt_uohm);
  const std::int64_t in1_max_mv = 102396;
  const std::pair<const char*, std::int64_t> limits[] = {
      {"in0_min", -164},
      {"in0_max", 164},
      {"in1_min", 0},
      {"in1_max", in1_max_mv},
      {"curr1_min", -curr_max_ma},
      {"curr1_max", curr_max_ma},
      {"power1_max", in1_max_mv * curr_max_ma},
      {"temp1_max", 255875},
  };
  for (const auto& [name, value] : limits) tree.add_text_file(dir + "/" + name, kModeReadWrite, line_of(value));
  for (const char* alarm : {"in0_min_alarm", "in0_max_alarm", "in1_min_alarm", "in1_max_alarm", "curr1_min_alarm",
                            "curr1_max_alarm", "power1_max_alarm", "temp1_max_alarm"}) {
    tree.add_text_file(dir + "/" + alarm, kModeReadOnly, line("0"));
  }
}

void add_ina238_monitor(Tree& tree, const PowerMonitorSpec& m, const MonitorPlacement& p) {
  const ChannelSpec& c = m.channels.front();
  const std::string id = rail_id(m, c);
  const std::string& dir = p.data_dir;
  const std::int64_t shunt = c.shunt_uohm;
  add_hwmon_common(tree, m, p);
  add_value_file(tree, dir + "/in0_input", kModeReadOnly, id,
                 [shunt](const RailState& r) { return line_of(ina238_shunt_mv(r.current_ma, shunt)); });
  add_value_file(tree, dir + "/in1_input", kModeReadOnly, id, [](const RailState& r) { return line_of(r.bus_mv); });
  add_value_file(tree, dir + "/curr1_input", kModeReadOnly, id,
                 [](const RailState& r) { return line_of(r.current_ma); });
  add_value_file(tree, dir + "/power1_input", kModeReadOnly, id,
                 [](const RailState& r) { return line_of(ina238_power_uw(r.bus_mv, r.current_ma)); });
  tree.add_text_file(dir + "/temp1_input", kModeReadOnly, line_of(assumed::kIna238DieMc));
  add_ina238_limits(tree, dir, shunt);
}

}  // namespace

Error read_error(int sys_errno, const std::string& what) { return make_error(ErrorCode::kIo, what, sys_errno); }

ContentFn rail_content(std::string id, std::function<std::string(const RailState&)> format) {
  return [id = std::move(id), format = std::move(format)](const BoardState& state) -> Result<std::string> {
    const auto it = state.rails.find(id);
    if (it == state.rails.end()) return read_error(EIO, "no state for rail " + id);
    return format(it->second);
  };
}

void add_i2c_adapters(Tree& tree, const BoardSpec& spec) {
  std::set<std::string> done;
  for (const PowerMonitorSpec& m : spec.monitors) {
    const std::string dir = parent_path(m.device_dir);
    if (!done.insert(dir).second) continue;
    tree.add_text_file(join_path(dir, "name"), kModeReadOnly, line(m.adapter_name));
    tree.add_sysfs_link("/sys/bus/i2c/devices/" + base_name(dir), dir);
  }
}

std::vector<std::string> monitor_paths(const BoardSpec& spec, const TreePlan& plan, std::size_t index) {
  if (index >= spec.monitors.size() || index >= plan.monitors.size()) return {};
  const PowerMonitorSpec& m = spec.monitors[index];
  return {m.device_dir, bus_link(m), driver_dir(m) + "/" + m.device_name(), class_link(m, plan.monitors[index].number)};
}

void add_power_monitor(Tree& tree, const PowerMonitorSpec& monitor, const MonitorPlacement& placement) {
  add_i2c_client(tree, monitor);
  switch (monitor.layout) {
    case MonitorLayout::kIna3221xIio: return add_iio_monitor(tree, monitor, placement);
    case MonitorLayout::kIna3221Hwmon: return add_ina3221_monitor(tree, monitor, placement);
    case MonitorLayout::kIna238Hwmon: return add_ina238_monitor(tree, monitor, placement);
  }
}

}  // namespace energy::sim
