#include "energy/rails.h"

#include <algorithm>
#include <cerrno>

namespace energy {
namespace {

constexpr const char* kI2cDevices = "/sys/bus/i2c/devices";
// Labels of input rails that already include every other rail of the board.
const std::vector<std::string> kInputRails = {"VIN", "POM_5V_IN", "VDD_IN"};
// Rails fed from another metered rail: adding them would double count.
const std::vector<std::string> kFedRails = {"VDDQ_VDD2_1V8AO"};

std::string first_child_with_prefix(const SysRoot& root, const std::string& dir,
                                    const std::vector<std::string>& prefixes) {
  auto names = root.list_dir(dir);
  if (!names) return {};
  for (const auto& name : *names) {
    for (const auto& p : prefixes) {
      if (name.rfind(p, 0) == 0) return join_path(dir, name);
    }
  }
  return {};
}

std::string chan_file(const std::string& dir, const std::string& pattern, int c) {
  std::string name = pattern;
  name.replace(name.find('#'), 1, std::to_string(c));
  return join_path(dir, name);
}

void skip(SensorInventory& inv, const std::string& dev, int c, std::string label, std::string why) {
  inv.skipped.push_back(SkippedChannel{dev, c, std::move(label), std::move(why)});
}

void discover_iio(const SysRoot& root, const std::string& dev, SensorInventory& inv) {
  std::string dir = first_child_with_prefix(root, join_path(kI2cDevices, dev), {"iio:device", "iio_device"});
  if (dir.empty()) {
    inv.notes.push_back("ina3221x device " + dev + " has no iio:device directory; skipping it.");
    return;
  }
  for (int c = 0; c <= 2; ++c) {
    auto label = root.read_text(chan_file(dir, "rail_name_#", c));
    if (!label) {
      skip(inv, dev, c, "", "rail name unreadable: " + label.error().describe());
      continue;
    }
    if (*label == "NC" || label->empty()) {
      skip(inv, dev, c, *label, "not connected (label " + (label->empty() ? std::string("empty") : *label) + ")");
      continue;
    }
    inv.rails.push_back(RailInfo{*label, MonitorDriver::kIna3221xIio, dev, c, dir,
                                 chan_file(dir, "in_voltage#_input", c), chan_file(dir, "in_current#_input", c),
                                 chan_file(dir, "in_power#_input", c)});
  }
}

// A channel is disabled when in<c>_enable reads 0 or its input reads ENODATA.
bool hwmon_channel_disabled(const SysRoot& root, const std::string& dir, int c) {
  auto enable = root.read_text(chan_file(dir, "in#_enable", c));
  if (enable && *enable == "0") return true;
  auto probe = root.read_text(chan_file(dir, "in#_input", c));
  return !probe && probe.error().sys_errno == ENODATA;
}

void note_update_interval(const SysRoot& root, const std::string& dir, SensorInventory& inv) {
  auto text = root.read_text(join_path(dir, "update_interval"));
  if (!text) return;
  auto ms = parse_sysfs_int(*text, "update_interval");
  if (ms) inv.max_update_interval_ms = std::max(inv.max_update_interval_ms, *ms);
}

void discover_ina3221_channels(const SysRoot& root, const std::string& dev, const std::string& dir,
                               SensorInventory& inv) {
  for (int c = 1; c <= 3; ++c) {
    auto label = root.read_text(chan_file(dir, "in#_label", c));
    if (!label) {
      skip(inv, dev, c, "", "disabled (no label)");
      continue;
    }
    if (*label == "NC") {
      skip(inv, dev, c, *label, "not connected (label NC)");
      continue;
    }
    if (hwmon_channel_disabled(root, dir, c)) {
      skip(inv, dev, c, *label, "disabled (ENODATA or in" + std::to_string(c) + "_enable = 0)");
      continue;
    }
    inv.rails.push_back(RailInfo{*label, MonitorDriver::kIna3221Hwmon, dev, c, dir,
                                 chan_file(dir, "in#_input", c), chan_file(dir, "curr#_input", c), ""});
  }
}

void discover_hwmon(const SysRoot& root, const std::string& dev, MonitorDriver driver, SensorInventory& inv) {
  std::string dir = first_child_with_prefix(root, join_path(join_path(kI2cDevices, dev), "hwmon"), {"hwmon"});
  if (dir.empty()) {
    inv.notes.push_back(std::string(driver_name(driver)) + " device " + dev + " has no hwmon directory; skipping it.");
    return;
  }
  if (driver == MonitorDriver::kIna238Hwmon) {
    // jtop and NVIDIA's tools call Thor's carrier input monitor VIN.
    inv.rails.push_back(RailInfo{"VIN", driver, dev, 1, dir, join_path(dir, "in1_input"),
                                 join_path(dir, "curr1_input"), join_path(dir, "power1_input")});
    return;
  }
  note_update_interval(root, dir, inv);
  discover_ina3221_channels(root, dev, dir, inv);
}

void drop_duplicate_labels(SensorInventory& inv) {
  std::vector<RailInfo> kept;
  for (auto& r : inv.rails) {
    bool dup = std::any_of(kept.begin(), kept.end(), [&](const RailInfo& k) { return k.label == r.label; });
    if (dup) {
      skip(inv, r.device, r.channel, r.label, "duplicate label; the first device with it is used");
    } else {
      kept.push_back(std::move(r));
    }
  }
  inv.rails = std::move(kept);
}

}  // namespace

const char* driver_name(MonitorDriver driver) {
  switch (driver) {
    case MonitorDriver::kIna3221xIio: return "ina3221x";
    case MonitorDriver::kIna3221Hwmon: return "ina3221";
    case MonitorDriver::kIna238Hwmon: return "ina238";
  }
  return "unknown";
}

SensorInventory discover_rails(const SysRoot& root) {
  SensorInventory inv;
  auto devices = root.list_dir(kI2cDevices);
  if (!devices) inv.notes.push_back("No I2C devices under " + root.root_dir() + ".");
  for (const auto& dev : devices.value_or(std::vector<std::string>{})) {
    auto name = root.read_text(join_path(join_path(kI2cDevices, dev), "name"));
    if (!name) continue;
    if (*name == "ina3221x") discover_iio(root, dev, inv);
    if (*name == "ina3221") discover_hwmon(root, dev, MonitorDriver::kIna3221Hwmon, inv);
    if (*name == "ina238") discover_hwmon(root, dev, MonitorDriver::kIna238Hwmon, inv);
  }
  drop_duplicate_labels(inv);
  if (inv.rails.empty()) inv.notes.push_back("No power-monitor rails found: energy cannot be measured on this board.");
  return inv;
}

TotalRule select_total_rails(const std::vector<std::string>& labels) {
  for (const auto& input : kInputRails) {
    for (size_t i = 0; i < labels.size(); ++i) {
      if (labels[i] == input) return TotalRule{{i}, input + " is the board input and includes every other rail"};
    }
  }
  TotalRule rule;
  std::string left_out;
  for (size_t i = 0; i < labels.size(); ++i) {
    bool fed = std::find(kFedRails.begin(), kFedRails.end(), labels[i]) != kFedRails.end();
    if (fed) left_out += (left_out.empty() ? "" : ", ") + labels[i];
    if (!fed) rule.rail_indices.push_back(i);
  }
  rule.explanation = "no input rail; total is the sum of the module rails";
  if (!left_out.empty()) rule.explanation += " except " + left_out + " (fed from another metered rail)";
  return rule;
}

std::optional<RailInfo> find_rail(const SysRoot& root, const std::string& device, const std::string& label) {
  auto name = root.read_text(join_path(join_path(kI2cDevices, device), "name"));
  if (!name) return std::nullopt;
  SensorInventory inv;
  if (*name == "ina3221x") discover_iio(root, device, inv);
  if (*name == "ina3221") discover_hwmon(root, device, MonitorDriver::kIna3221Hwmon, inv);
  if (*name == "ina238") discover_hwmon(root, device, MonitorDriver::kIna238Hwmon, inv);
  for (auto& r : inv.rails) {
    if (r.label == label) return r;
  }
  return std::nullopt;
}

RailReader::RailReader(const SysRoot& root, const RailInfo& rail) : root_(root), info_(rail) { open_files(); }

void RailReader::open_files() {
  voltage_ = AttrFile(root_.resolve(info_.voltage_file), info_.voltage_file);
  current_ = AttrFile(root_.resolve(info_.current_file), info_.current_file);
  power_ = info_.power_file.empty() ? AttrFile() : AttrFile(root_.resolve(info_.power_file), info_.power_file);
}

RailValue RailReader::read() {
  if (lost_) return read_lost();
  RailValue v = read_files();
  if (v.err == ENOENT || v.err == ENODEV || v.err == ENXIO || v.err == ESTALE) {
    lost_ = true;
    lost_errno_ = v.err;
    reads_while_lost_ = 0;
  }
  return v;
}

RailValue RailReader::read_lost() {
  if (++reads_while_lost_ % kRediscoverEvery != 0) return RailValue{0, 0, 0, lost_errno_};
  auto found = find_rail(root_, info_.device, info_.label);
  if (!found) return RailValue{0, 0, 0, lost_errno_};
  info_ = *found;
  open_files();
  lost_ = false;
  ++rediscoveries_;
  return read();
}

RailValue RailReader::read_files() {
  switch (info_.driver) {
    case MonitorDriver::kIna3221xIio: return read_with_power_file(1000);  // in_power<c>_input is mW
    case MonitorDriver::kIna3221Hwmon: return read_hwmon();
    case MonitorDriver::kIna238Hwmon: return read_with_power_file(1);  // power1_input is uW
  }
  return RailValue{0, 0, 0, EINVAL};
}

namespace {

RailValue failed(const Error& e) { return RailValue{0, 0, 0, e.sys_errno != 0 ? e.sys_errno : EINVAL}; }

}  // namespace

// Drivers with a power file (IIO mW, INA238 uW): the power comes from one
// conversion, so it is the power; V and I are kept for display and may come
// from a neighbouring conversion.
RailValue RailReader::read_with_power_file(int64_t unit_uw) {
  auto p = power_.read_int();
  if (!p) return failed(p.error());
  auto v = voltage_.read_int();
  auto i = current_.read_int();
  if (!v) return failed(v.error());
  if (!i) return failed(i.error());
  return RailValue{*p * unit_uw, static_cast<int32_t>(*v), static_cast<int32_t>(*i), 0};
}

// mV x mA = uW exactly; both read back to back.
RailValue RailReader::read_hwmon() {
  auto v = voltage_.read_int();
  if (!v) return failed(v.error());
  auto i = current_.read_int();
  if (!i) return failed(i.error());
  return RailValue{*v * *i, static_cast<int32_t>(*v), static_cast<int32_t>(*i), 0};
}

}  // namespace energy
