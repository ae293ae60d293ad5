// Reading one rail: voltage, current and power in integer units (mV, mA,
// uW), checked against what the rail's chip can give, with a lost sensor
// found again by device and label (rails.h's discovery).
//
// Thread-safety: a RailReader belongs to one thread (the sampler).
#pragma once

#include <cstdint>
#include <string>

#include "energy/attr_file.h"
#include "energy/rails.h"
#include "energy/result.h"
#include "energy/sysroot.h"

namespace energy {

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
  // The read that failed: its error is error_.
  RailValue failed();
  // True with `value` read and within [min, max]; false with error_ set.
  bool read_checked(AttrFile& file, int64_t min, int64_t max, const char* unit, int64_t& value);

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
  Error error_;  // the last failed read's (kept: no Error is made on a good read)
};

}  // namespace energy
