// AveragingSettings: energyd's changes to the INA3221 hwmon chips' averaging
// count (`samples`) and conversion time (through `update_interval`) under
// `sensor_averaging: period`, and putting them back.
//
// With `period`, each chip that measures a rail gets the shortest conversion
// time and the smallest count whose update_interval spans kFilterPeriods
// sampling periods (ina3221_setting_for_period, rails.h), so that every
// reading is a running mean, smooth between samples, over conversions as
// close together as the chip allows (docs/BOARDS.md, "Sensor averaging");
// `keep` never writes. `samples` is written first: the driver turns an
// update_interval into a conversion time with the count it has.
// A chip that refuses the count keeps its setting; one that takes the count
// but refuses the update_interval gets the count for its own conversion
// time instead. Each refusal is one log line naming the file and the error,
// and energyd measures with what the chip has.
//
// Owns: the chips' `samples` while energyd runs, and the averaging journal
// (averaging_journal.h). Invariant, as for clock leases (pin_engine.h): a
// chip's original count is in the journal on disk before energyd writes its
// file, and leaves it only once the file reads the original back. A journal
// of this boot found at start was left by a daemon that did not stop (kill
// -9, a crash): its values, not the chips' current ones, are the originals.
// A journal of an earlier boot is dropped: the driver resets the chip at probe.
//
// Thread-safety: the main thread, at start (before the sampler) and at stop
// (after it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "averaging_journal.h"
#include "energy/config.h"
#include "energy/ina3221.h"
#include "energy/rails.h"
#include "energy/sysroot.h"
#include "energy/time_source.h"

namespace energy::daemon {

// What energyd did to one hwmon INA3221 chip, for `status`.
struct ChipAveraging {
  std::string device;
  bool changed = false;              // energyd holds a change of this chip's averaging
  int64_t original_samples = 0;      // the chip's own count (put back at stop)
  int64_t original_interval_ms = 0;  // its own update_interval (put back at stop); 0 when unknown
  std::string error;                 // the write that failed, when one did
};

// One INA3221 chip's averaging: the chip's own settings, what it has and
// what it gets (AveragingSettings::plan).
struct AveragingPlan {
  std::string device;
  std::string samples_path;   // board path of `samples`
  std::string interval_path;  // board path of `update_interval`
  int64_t original = 0;       // samples: the chip's own, what it has, what it gets
  int64_t current = 0;
  int64_t target = 0;
  int64_t fallback = 0;              // the count for its own conversion time, if it refuses target_interval
  int64_t original_interval_ms = 0;  // update_interval: the chip's own (0 unknown), what it has, what it gets
  int64_t current_interval_ms = 0;
  int64_t target_interval_ms = 0;  // 0: not written
  std::string error;
};

class AveragingSettings {
 public:
  AveragingSettings(SysRoot root, std::string journal_path, const Clock& clock);

  // Start: sets the hwmon INA3221 chips for `period_ms` (`period`) or puts
  // back what a journal of this boot recorded (`keep`), then reads the chips
  // again into `inv`: samples, update_interval, filter_ns of chips and rails.
  void apply(SensorAveraging mode, int64_t period_ms, SensorInventory& inv);
  // Stop: every chip in the journal gets its original count and
  // update_interval back; one that refuses stays in the journal for the next
  // start.
  void restore();
  const std::vector<ChipAveraging>& chips() const { return chips_; }

 private:
  using Plan = AveragingPlan;

  void load();
  std::vector<Plan> plan(SensorAveraging mode, int64_t period_ms, const SensorInventory& inv) const;
  bool record(const std::vector<Plan>& plans);
  void write(Plan& p) const;
  Status write_count(const Plan& p, int64_t samples) const;
  void settle(const std::vector<Plan>& plans, const SensorInventory& inv);
  void report(const SensorInventory& inv) const;
  Status save();
  const AveragingRecord* find(const std::string& device) const;

  SysRoot root_;
  std::string journal_path_;
  const Clock& clock_;
  std::string boot_id_;
  AveragingJournal journal_;
  std::string saved_text_;  // the journal as on disk; empty when there is no file
  std::vector<ChipAveraging> chips_;
};

}  // namespace energy::daemon
