#include "energysim/board_spec.h"

#include <algorithm>

namespace energy::sim {

const char* layout_name(MonitorLayout layout) {
  switch (layout) {
    case MonitorLayout::kIna3221xIio: return "ina3221x_iio";
    case MonitorLayout::kIna3221Hwmon: return "ina3221_hwmon";
    case MonitorLayout::kIna238Hwmon: return "ina238_hwmon";
  }
  return "unknown";
}

const char* driver_name(MonitorLayout layout) {
  switch (layout) {
    case MonitorLayout::kIna3221xIio: return "ina3221x";
    case MonitorLayout::kIna3221Hwmon: return "ina3221";
    case MonitorLayout::kIna238Hwmon: return "ina238";
  }
  return "unknown";
}

std::string PowerMonitorSpec::device_name() const { return std::to_string(bus) + "-" + addr4; }

std::string rail_id(const PowerMonitorSpec& monitor, const ChannelSpec& channel) {
  return monitor.device_name() + ":" + std::to_string(channel.index);
}

std::vector<int> CpuSpec::all_cpus() const {
  std::vector<int> out;
  for (const CpuPolicySpec& policy : policies) out.insert(out.end(), policy.cpus.begin(), policy.cpus.end());
  std::sort(out.begin(), out.end());
  return out;
}

int enabled_channels(const PowerMonitorSpec& m) {
  int n = 0;
  for (const ChannelSpec& c : m.channels) n += c.disabled ? 0 : 1;
  return n;
}

}  // namespace energy::sim
