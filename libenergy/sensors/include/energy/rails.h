// Power-rail discovery for Jetson power monitors.
//
// Owns: the mapping from a board's sysfs tree to named rails and their
// chips, with the averaging each chip applies. Neighbours: ina3221.h (the
// chip's averaging arithmetic), rail_total.h (which rails form the module
// total), rail_reader.h (reading a rail in mV, mA and uW).
// Driver generations (see docs/BOARDS.md and shared reference data):
//   - L4T 32 staging IIO driver `ina3221x`: channels 0..2, label in
//     rail_name_<c>, in_voltage<c>_input mV, in_current<c>_input mA,
//     in_power<c>_input mW from one conversion.
//   - L4T 34+ mainline hwmon `ina3221`: channels 1..3, label in in<c>_label,
//     in<c>_input mV, curr<c>_input mA, no power file: P = V x I read back to
//     back. No label, ENODATA or in<c>_enable == 0 means disabled; label `NC`
//     means not connected; in7 is the shunt sum and never a rail.
//   - Thor `ina238` hwmon: in1_input mV, curr1_input mA, power1_input uW.
// Rails are identified by label, never by channel index, bus or hwmon number.
// Averaging (RailInfo::filter_ns): hwmon `samples` and `update_interval` are
// read at discovery; L4T 32 shows no averaging file, so its device-tree
// configuration is filled in by board (apply_device_tree_averaging).
//
// Thread-safety: discovery functions are reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "energy/board.h"
#include "energy/result.h"
#include "energy/sysroot.h"

namespace energy {

enum class MonitorDriver { kIna3221xIio, kIna3221Hwmon, kIna238Hwmon };
// "ina3221x", "ina3221" or "ina238": the kernel's driver name.
const char* driver_name(MonitorDriver driver);

struct RailInfo {
  std::string label;  // e.g. "VDD_IN"; unique within a board
  MonitorDriver driver = MonitorDriver::kIna3221Hwmon;
  std::string device;        // I2C device, e.g. "1-0040"
  int channel = 0;           // the driver's own channel number
  std::string data_dir;      // board path of iio:deviceN or hwmon/hwmonN
  std::string voltage_file;  // board paths; power_file empty when the
  std::string current_file;  // driver has none (ina3221 hwmon)
  std::string power_file;
  // The monitor's averaging lag (0: none). An INA3221 averages as a running
  // mean: each conversion moves the register by 1/N of its difference to the
  // new value (TI SBOS576, "Averaging Function"), N = `samples`, one
  // conversion of the channel every cycle T_c = update_interval / N. The
  // input's integral over [a, b] is then the readings' integral plus
  // filter_ns x (reading(b) - reading(a)), filter_ns = (N - 1) x T_c.
  int64_t filter_ns = 0;
};

struct SkippedChannel {
  std::string device;
  int channel = 0;
  std::string label;   // empty when the channel has none
  std::string reason;  // e.g. "not connected (label NC)"
};

// One power-monitor chip and the averaging its rails carry.
struct MonitorChip {
  std::string device;  // I2C device, e.g. "1-0040"
  MonitorDriver driver = MonitorDriver::kIna3221Hwmon;
  std::string data_dir;            // board path of iio:deviceN or hwmon/hwmonN
  int64_t samples = 0;             // averaging count N; 0 when unknown
  int64_t update_interval_ms = 0;  // N conversions of every channel; 0 when unknown
  int64_t channels = 0;            // enabled channels (hwmon in<k>_enable); 0 when unknown
  int64_t conversion_us = 0;       // one bus or shunt conversion; 0 when unknown
  int64_t filter_ns = 0;           // the filter_ns of this chip's rails
  std::string averaging;           // where samples and update_interval come from
};

struct SensorInventory {
  std::vector<RailInfo> rails;
  std::vector<MonitorChip> chips;  // every chip found, rails or not, in discovery order
  std::vector<SkippedChannel> skipped;
  std::vector<std::string> notes;  // non-fatal findings, each a full sentence
  // Largest sensor refresh period found (hwmon update_interval), 0 if unknown.
  int64_t max_update_interval_ms = 0;
};

// Walks /sys/bus/i2c/devices under the root. A tree without power monitors
// gives an empty inventory with a note, not an error.
SensorInventory discover_rails(const SysRoot& root);

// Reads the hwmon INA3221 chips' `samples` and `update_interval` again (after
// energyd wrote them) and sets their conversion_us, filter_ns, their rails'
// and max_update_interval_ms. A file that cannot be read gives filter 0 and
// a note. conversion_us is the offered time closest to update_interval /
// (channels x N x 2), known when the channel count is.
void refresh_hwmon_averaging(const SysRoot& root, SensorInventory& inv);

// L4T 32 `ina3221x` chips average as their device tree configures them, which
// sysfs does not show: fills their samples, update_interval and filter_ns from
// the configuration NVIDIA's device tree gives `board` (Nano 0x7607, TX2 and
// AGX Xavier 0x7c07; Xavier NX assumed as AGX Xavier; other boards the
// staging driver's default 0x7727), with a note when that is an assumption.
void apply_device_tree_averaging(const BoardIdentity& board, SensorInventory& inv);

// Finds the rail labelled `label` on I2C device `device` again (after the
// sensor vanished, or its hwmon node was renumbered). An L4T 32 rail comes
// back with filter_ns 0: the board is not known here.
std::optional<RailInfo> find_rail(const SysRoot& root, const std::string& device, const std::string& label);

}  // namespace energy
