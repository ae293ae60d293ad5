// Board tree: turns a BoardSpec into the Tree a real board of that kind and
// generation shows under /sys, /proc and /etc - power monitors (IIO or
// hwmon), cpufreq, GPU devfreq + nvgpu, thermal zones, fan, device tree and
// /etc/nv_tegra_release.
//
// Two steps, so a caller can report paths without building anything:
// plan_tree() numbers the kernel-enumerated devices (iio:deviceN, hwmonN,
// thermal_zoneN) and build_board_tree() builds the nodes. Numbering: a number
// the reference observed on a real board is kept; the rest get the lowest
// free numbers in probe order (monitors in data-file order, then pwmfan, then
// pwm_tach). Offsets shift every number, so tests can check that a reader
// discovers N instead of assuming it.
//
// Thread-safety: pure functions of their arguments.
#pragma once

#include <string>
#include <vector>

#include "energy/result.h"
#include "energysim/board_spec.h"
#include "energysim/tree.h"

namespace energy::sim {

struct TreeOptions {
  int hwmon_offset = 0;  // added to every hwmonN (observed or assigned); >= 0
  int iio_offset = 0;    // added to every iio:deviceN; >= 0
};

struct MonitorPlacement {
  int number = 0;        // N of iio:deviceN or hwmonN
  std::string data_dir;  // physical path of that directory
};

struct TreePlan {
  std::vector<MonitorPlacement> monitors;  // parallel to BoardSpec::monitors
  std::vector<int> fan_hwmon;              // hwmonN of pwmfan, pwm_tach (L4T 35+); else empty
  std::vector<int> thermal_zones;          // parallel to BoardSpec::thermal_zones
};

// kInvalid when two observed numbers collide or an offset is negative.
Result<TreePlan> plan_tree(const BoardSpec& spec, const TreeOptions& options);

// The whole tree; kState if the spec makes two nodes collide.
Result<Tree> build_board_tree(const BoardSpec& spec, const TreePlan& plan);

// The files of one monitor channel, reached through the driver directory
// (/sys/bus/i2c/drivers/<driver>/<bus>-<addr4>/...) as readers look for them.
// An empty path means the layout has no such file (label: INA238 or a
// channel without a label; power: INA3221 hwmon).
struct RailFiles {
  std::string rail_id;
  std::string label;
  MonitorLayout layout = MonitorLayout::kIna3221Hwmon;
  bool disabled = false;
  std::string label_file;
  std::string voltage_file;  // mV
  std::string current_file;  // mA
  std::string power_file;    // mW (IIO) or uW (INA238)
};

std::vector<RailFiles> rail_files(const BoardSpec& spec, const TreePlan& plan);

// Every tree path that exists because monitor `index` is bound: its i2c
// client directory (with the data directory below it), the bus and driver
// links to it and its class link. What disappears when the device unbinds.
std::vector<std::string> monitor_paths(const BoardSpec& spec, const TreePlan& plan, std::size_t index);

}  // namespace energy::sim
