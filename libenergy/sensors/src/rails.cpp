#include "energy/rails.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "energy/attr_file.h"
#include "energy/ina3221.h"
#include "energy/time_source.h"

namespace energy {
namespace {

constexpr const char* kI2cDevices = "/sys/bus/i2c/devices";

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
  inv.chips.push_back(
      MonitorChip{dev, MonitorDriver::kIna3221xIio, dir, 0, 0, 0, 0, 0, "not shown by the L4T 32 driver"});
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

// An integer file whose value must lie in [min, max].
Result<int64_t> read_int_file(const SysRoot& root, const std::string& path, int64_t min, int64_t max) {
  auto text = root.read_text(path);
  if (!text) return text.take_error();
  auto v = parse_sysfs_int(*text, path);
  if (!v) return v.take_error();
  return check_range(*v, path, min, max, "");
}

// The largest update_interval an INA3221 can have: 3 channels x 1024 samples
// x 2 conversions of 8244 us, 50.7 s.
constexpr int64_t kMaxUpdateIntervalMs = 3 * 1024 * 2 * 8244 / 1000 + 1;

void add_note_once(SensorInventory& inv, std::string note) {
  if (std::find(inv.notes.begin(), inv.notes.end(), note) == inv.notes.end()) inv.notes.push_back(std::move(note));
}

// The channels the chip converts: those whose in<k>_enable reads 1. 0 when
// a file cannot be read (an older driver without them).
int64_t ina3221_enabled_channels(const SysRoot& root, const std::string& dir) {
  int64_t count = 0;
  for (int c = 1; c <= 3; ++c) {
    auto enable = read_int_file(root, chan_file(dir, "in#_enable", c), 0, 1);
    if (!enable) return 0;
    count += *enable != 0 ? 1 : 0;
  }
  return count;
}

int64_t closest_conversion_us(int64_t us) {
  int64_t best = kIna3221ConversionTimesUs[0];
  for (int64_t t : kIna3221ConversionTimesUs) {
    if (std::llabs(t - us) < std::llabs(best - us)) best = t;
  }
  return best;
}

// hwmon shows the averaging: `samples` (N) and `update_interval` (N
// conversions of every enabled channel, ms). Either unreadable: filter 0.
// With the channel count known, the conversion time and from it the exact
// cycle (update_interval is rounded to the millisecond).
void read_ina3221_averaging(const SysRoot& root, MonitorChip& chip, SensorInventory& inv) {
  chip.averaging = "hwmon samples and update_interval";
  auto samples = read_int_file(root, join_path(chip.data_dir, "samples"), 1, 1024);
  auto interval = read_int_file(root, join_path(chip.data_dir, "update_interval"), 0, kMaxUpdateIntervalMs);
  chip.samples = samples.value_or(0);
  chip.update_interval_ms = interval.value_or(0);
  chip.channels = ina3221_enabled_channels(root, chip.data_dir);
  chip.conversion_us = 0;
  chip.filter_ns = 0;
  if (samples && interval && *samples > 0 && chip.channels > 0) {
    chip.conversion_us = closest_conversion_us(*interval * 1000 / (2 * chip.channels * *samples));
    chip.filter_ns = ina3221_filter_ns(*samples, chip.channels, chip.conversion_us);
  } else if (samples && interval) {
    chip.filter_ns = ina3221_filter_ns(*samples, *interval);
  }
  const Error* bad = !samples ? &samples.error() : (!interval ? &interval.error() : nullptr);
  if (bad == nullptr) return;
  add_note_once(inv, "ina3221 device " + chip.device + ": " + bad->describe() +
                         "; its rails are integrated without an averaging correction (filter 0).");
}

void note_max_update_interval(SensorInventory& inv) {
  inv.max_update_interval_ms = 0;
  for (const auto& c : inv.chips) {
    if (c.driver == MonitorDriver::kIna3221Hwmon)
      inv.max_update_interval_ms = std::max(inv.max_update_interval_ms, c.update_interval_ms);
  }
}

// Every rail carries its chip's filter.
void set_rail_filters(SensorInventory& inv) {
  for (auto& r : inv.rails) {
    for (const auto& c : inv.chips) {
      if (c.device == r.device) r.filter_ns = c.filter_ns;
    }
  }
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
    inv.rails.push_back(RailInfo{*label, MonitorDriver::kIna3221Hwmon, dev, c, dir, chan_file(dir, "in#_input", c),
                                 chan_file(dir, "curr#_input", c), ""});
  }
}

void discover_hwmon(const SysRoot& root, const std::string& dev, MonitorDriver driver, SensorInventory& inv) {
  std::string dir = first_child_with_prefix(root, join_path(join_path(kI2cDevices, dev), "hwmon"), {"hwmon"});
  if (dir.empty()) {
    inv.notes.push_back(std::string(driver_name(driver)) + " device " + dev + " has no hwmon directory; skipping it.");
    return;
  }
  if (driver == MonitorDriver::kIna238Hwmon) {
    inv.chips.push_back(MonitorChip{dev, driver, dir, 0, 0, 0, 0, 0, "none (INA238: not averaged)"});
    // jtop and NVIDIA's tools call Thor's carrier input monitor VIN.
    inv.rails.push_back(RailInfo{"VIN", driver, dev, 1, dir, join_path(dir, "in1_input"), join_path(dir, "curr1_input"),
                                 join_path(dir, "power1_input")});
    return;
  }
  inv.chips.push_back(MonitorChip{dev, driver, dir, 0, 0, 0, 0, 0, ""});
  read_ina3221_averaging(root, inv.chips.back(), inv);
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
  set_rail_filters(inv);
  note_max_update_interval(inv);
  if (inv.rails.empty()) inv.notes.push_back("No power-monitor rails found: energy cannot be measured on this board.");
  return inv;
}

// ---- INA3221 averaging on L4T 32 (device tree) ---------------------------

namespace {

// The continuous-mode configuration a board's L4T 32 device tree gives its
// INA3221s (jetson-sysfs.md 1.4 and 1.6), and whether that is an assumption.
struct DeviceTreeConfig {
  uint16_t config = 0;
  std::string source;
  bool assumed = false;
};

bool has_compatible(const BoardIdentity& b, const std::string& prefix) {
  return std::any_of(b.compatible.begin(), b.compatible.end(),
                     [&](const std::string& c) { return c.rfind(prefix, 0) == 0; });
}

bool model_has(const BoardIdentity& b, const char* words) { return b.model.find(words) != std::string::npos; }

bool is_nano(const BoardIdentity& b) {
  return has_compatible(b, "nvidia,p3448") || has_compatible(b, "nvidia,p3450") || model_has(b, "Jetson Nano");
}

bool is_xavier_nx(const BoardIdentity& b) { return has_compatible(b, "nvidia,p3668") || model_has(b, "Xavier NX"); }

bool is_tx2_nx(const BoardIdentity& b) {
  return has_compatible(b, "nvidia,p3636") || has_compatible(b, "nvidia,p3509") || model_has(b, "TX2 NX");
}

DeviceTreeConfig device_tree_config(const BoardIdentity& b) {
  if (has_compatible(b, "nvidia,tegra210") && is_nano(b)) return {0x7607, "Jetson Nano device tree", false};
  if (has_compatible(b, "nvidia,tegra186") && is_tx2_nx(b))
    return {0x7c07, "TX2 device tree, assumed for TX2 NX (same T186 platform)", true};
  if (has_compatible(b, "nvidia,tegra186")) return {0x7c07, "TX2 device tree", false};
  if (has_compatible(b, "nvidia,tegra194") && is_xavier_nx(b))
    return {0x7c07, "AGX Xavier device tree, assumed for Xavier NX (same T194 platform)", true};
  if (has_compatible(b, "nvidia,tegra194")) return {0x7c07, "AGX Xavier device tree", false};
  return {0x7727, "staging driver default, assumed (no device-tree value known for this board)", true};
}

std::string hex4(uint16_t v) {
  constexpr char kDigits[] = "0123456789abcdef";
  std::string out = "0x";
  for (int shift = 12; shift >= 0; shift -= 4) out += kDigits[(v >> shift) & 0xf];
  return out;
}

std::string ms_text(int64_t ns) {
  std::string s = std::to_string(ns / kNsPerMs);
  int64_t frac = (ns % kNsPerMs) / 10'000;  // two decimals
  return s + "." + (frac < 10 ? "0" : "") + std::to_string(frac);
}

}  // namespace

void refresh_hwmon_averaging(const SysRoot& root, SensorInventory& inv) {
  for (auto& c : inv.chips) {
    if (c.driver == MonitorDriver::kIna3221Hwmon) read_ina3221_averaging(root, c, inv);
  }
  set_rail_filters(inv);
  note_max_update_interval(inv);
}

void apply_device_tree_averaging(const BoardIdentity& board, SensorInventory& inv) {
  DeviceTreeConfig dt = device_tree_config(board);
  Ina3221Timing t = decode_ina3221_config(dt.config);
  const int64_t cycle_us = t.channels * (t.bus_us + t.shunt_us);
  bool any = false;
  for (auto& c : inv.chips) {
    if (c.driver != MonitorDriver::kIna3221xIio) continue;
    c.samples = t.samples;
    c.channels = t.channels;
    c.conversion_us = t.shunt_us;
    c.update_interval_ms = (t.samples * cycle_us + 500) / 1000;
    c.filter_ns = (t.samples - 1) * cycle_us * 1000;
    c.averaging = hex4(dt.config) + " (" + dt.source + ")";
    any = true;
  }
  set_rail_filters(inv);
  if (!any || !dt.assumed) return;
  inv.notes.push_back("L4T 32 does not show the INA3221 averaging; using configuration " + hex4(dt.config) + " (" +
                      dt.source + "): " + std::to_string(t.samples) + " samples of " + std::to_string(t.bus_us) +
                      " + " + std::to_string(t.shunt_us) + " us on " + std::to_string(t.channels) +
                      " channels, filter " + ms_text((t.samples - 1) * cycle_us * 1000) + " ms.");
}

std::optional<RailInfo> find_rail(const SysRoot& root, const std::string& device, const std::string& label) {
  auto name = root.read_text(join_path(join_path(kI2cDevices, device), "name"));
  if (!name) return std::nullopt;
  SensorInventory inv;
  if (*name == "ina3221x") discover_iio(root, device, inv);
  if (*name == "ina3221") discover_hwmon(root, device, MonitorDriver::kIna3221Hwmon, inv);
  if (*name == "ina238") discover_hwmon(root, device, MonitorDriver::kIna238Hwmon, inv);
  set_rail_filters(inv);
  for (auto& r : inv.rails) {
    if (r.label == label) return r;
  }
  return std::nullopt;
}

}  // namespace energy
