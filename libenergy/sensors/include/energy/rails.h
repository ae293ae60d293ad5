// Power-rail discovery and reading for Jetson power monitors.
//
// Owns: the mapping from a board's sysfs tree to named rails, and reading a
// rail's voltage, current and power in integer units (mV, mA, uW).
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
// Thread-safety: discovery functions are reentrant. A RailReader belongs to
// one thread (the sampler).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "energy/attr_file.h"
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

// ---- INA3221 averaging ------------------------------------------------------

// The averaging counts an INA3221 offers (TI SBOS576; hwmon `samples`).
inline constexpr int64_t kIna3221SampleCounts[] = {1, 4, 16, 64, 128, 256, 512, 1024};

// (N - 1) x T_c with T_c = update_interval / N: a running mean over N
// conversions. 0 for N <= 1 or an unknown (0) update_interval.
int64_t ina3221_filter_ns(int64_t samples, int64_t update_interval_ms);
// The same from the exact cycle, channels x 2 x conversion_us.
int64_t ina3221_filter_ns(int64_t samples, int64_t channels, int64_t conversion_us);
// update_interval as the hwmon driver shows it: channels x N x 2 x
// conversion_us, rounded to the millisecond; 0 when either is unknown (<= 0).
int64_t ina3221_update_interval_ms(int64_t samples, int64_t channels, int64_t conversion_us);

// The conversion times an INA3221 offers, per bus or shunt measurement (TI
// SBOS576); the hwmon driver sets both to one value through update_interval.
inline constexpr int64_t kIna3221ConversionTimesUs[] = {140, 204, 332, 588, 1100, 2116, 4156, 8244};

// The averaging a chip gets under `sensor_averaging: period`.
struct Ina3221Setting {
  int64_t samples = 0;             // averaging count N
  int64_t conversion_us = 0;       // one bus or shunt conversion
  int64_t update_interval_ms = 0;  // channels x N x 2 x conversion, rounded as the driver shows it
};

// For a chip with `channels` enabled channels: the shortest conversion time,
// and with it the smallest count, whose update_interval spans at least
// kFilterPeriods sampling periods (the longest setting if none does).
//
// Why four periods: between readings h apart, the trapezoid misses the
// curvature of the running mean, about h^2 / (8 x K) x each step of the
// load; with K >= 4 h that is under 1/30 of a step's h x dP, against
// h x dP / 2 for snapshot readings (docs/PERFORMANCE.md "Accuracy").
// Why the shortest conversion: the chip measures a channel's current during
// one shunt conversion of every cycle of channels x 2 conversions and is
// blind in between; a load that repeats in step with that cycle is measured
// at the same phases for seconds, and the mean misses the load's by up to
// the blind time over the load's period at each of its edges. At 140 us the
// blind time is 0.7 ms of a 0.84 ms cycle (3 channels) instead of 5.5 ms of
// 6.6 ms at the driver's 1.1 ms. 3 channels at 100 ms: 512 x 140 us, 430 ms.
constexpr int64_t kFilterPeriods = 4;
Ina3221Setting ina3221_setting_for_period(int64_t channels, int64_t period_ms);
// With the conversion time left as it is (the channel count unknown, or the
// chip refused a new update_interval): the smallest count whose
// update_interval spans kFilterPeriods periods, for a chip that now has
// `samples` and `update_interval_ms` (its cycle does not depend on N; the
// largest count if none does); `samples` when either is unknown.
int64_t ina3221_samples_for_period(int64_t samples, int64_t update_interval_ms, int64_t period_ms);

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

// The rails whose sum is the module's total power, chosen by label:
// VIN (Thor INA238) or POM_5V_IN or VDD_IN alone when present (the input
// rail already contains every other rail); otherwise the sum of all rails
// except those fed from another metered rail (AGX Orin's VDDQ_VDD2_1V8AO is
// fed from VIN_SYS_5V0).
struct TotalRule {
  std::vector<size_t> rail_indices;  // indices into the rail list
  std::string explanation;
};
TotalRule select_total_rails(const std::vector<std::string>& labels);

// One reading of a rail. err != 0 means the read failed with that errno and
// the numbers are meaningless (a gap, never a zero).
struct RailValue {
  int64_t power_uw = 0;
  int32_t voltage_mv = 0;
  int32_t current_ma = 0;
  int32_t err = 0;
};

// The readings a rail's chip can give (docs/BOARDS.md "Plausible readings").
// A value outside is a read error (ERANGE) naming the file and the value,
// never a number in a report: a corrupt or hostile file must not become
// 294,967 A. Every bound comes from the chip's facts:
//   bus voltage: INA3221 0-26 V (its pins' limit), INA238 0-85 V;
//   current: both measure at most 163.84 mV across the shunt, and the
//     smallest Jetson shunt is 1 mOhm (TX2 VDD_IN): |I| <= 163,840 mA;
//   power file: INA3221x mW, |P| <= 26 V x 163.84 A; INA238 uW, unsigned
//     register, 0 <= P <= 85 V x 163.84 A.
// Within these bounds mV x mA cannot overflow int64 (checked at compile time).
struct RailLimits {
  int64_t max_mv = 0;      // bus voltage in [0, max_mv]
  int64_t max_abs_ma = 0;  // current in [-max_abs_ma, max_abs_ma]
  int64_t min_power = 0;   // power file, in its own unit
  int64_t max_power = 0;
  const char* power_unit = "";  // "mW" or "uW"; "" for a driver without a power file
};
RailLimits rail_limits(MonitorDriver driver);

// Finds the rail labelled `label` on I2C device `device` again (after the
// sensor vanished, or its hwmon node was renumbered). An L4T 32 rail comes
// back with filter_ns 0: the board is not known here.
std::optional<RailInfo> find_rail(const SysRoot& root, const std::string& device, const std::string& label);

// Reads one rail. Files stay open between reads. When a read finds the files
// gone (ENOENT, ENODEV, ...) the rail is "lost": reads keep failing with that
// errno, and every kRediscoverEvery-th read looks the rail up again by device
// and label, so a returning or renumbered sensor is picked up by itself (an
// L4T 32 rail keeps its device-tree filter_ns).
class RailReader {
 public:
  static constexpr int kRediscoverEvery = 10;

  RailReader(const SysRoot& root, const RailInfo& rail);
  RailValue read();
  const std::string& label() const { return info_.label; }
  const RailInfo& info() const { return info_; }
  bool lost() const { return lost_; }
  // What the last failed read found, naming the file (and the value when it
  // was out of range or not a number); empty after a good read.
  const std::string& last_error() const { return last_error_; }
  int64_t rediscoveries() const { return rediscoveries_; }

 private:
  void open_files();
  RailValue read_files();
  RailValue read_with_power_file(int64_t unit_uw);
  RailValue read_hwmon();
  RailValue read_lost();
  RailValue failed(const Error& e);
  Result<int64_t> read_checked(AttrFile& file, int64_t min, int64_t max, const char* unit);

  SysRoot root_;
  RailInfo info_;
  AttrFile voltage_;
  AttrFile current_;
  AttrFile power_;
  bool lost_ = false;
  int32_t lost_errno_ = 0;
  int reads_while_lost_ = 0;
  int64_t rediscoveries_ = 0;
  std::string last_error_;
};

}  // namespace energy
