// The sensor averaging journal: the original `samples` and `update_interval`
// of every INA3221 hwmon chip energyd changed, written before the first
// write so that a stop, a crash or a restart can put each chip back (as
// lease_journal.h does for clocks; the same durable replacement,
// durable_file.h).
//
// Format (JSON): {"format": "energyd-sensor-averaging", "version": 2,
// "boot_id": ..., "chips": [{"device": "1-0040", "path": board path of the
// samples file, "original": 1, "set": 512, "interval_path": board path of
// update_interval, "original_interval_ms": 7, "set_interval_ms": 430}]}.
// "original"/"set" are averaging counts, the *_interval_ms update_interval
// values (the conversion time follows from them and the count). Version 1
// (energyd before it set conversion times) has no interval fields: it is
// read with original_interval_ms 0, nothing to put back.
//
// Thread-safety: plain values and reentrant functions; one writer per path.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "energy/result.h"

namespace energy::daemon {

struct AveragingRecord {
  std::string device;                // I2C device, e.g. "1-0040"
  std::string path;                  // board path of its hwmon `samples`
  int64_t original = 0;              // the chip's samples before energyd: put back at stop
  int64_t set = 0;                   // what energyd wrote
  std::string interval_path;         // board path of its hwmon `update_interval`; empty in version 1
  int64_t original_interval_ms = 0;  // update_interval before energyd (with `original` samples); 0: not changed
  int64_t set_interval_ms = 0;       // what energyd wrote
};

struct AveragingJournal {
  std::string boot_id;  // the boot whose chips the records changed
  std::vector<AveragingRecord> chips;
};

std::string averaging_journal_to_text(const AveragingJournal& journal);
// Errors (kParse) name `what` and the field at fault.
Result<AveragingJournal> averaging_journal_from_text(const std::string& text, const std::string& what);

// A missing file is an empty journal.
Result<AveragingJournal> load_averaging_journal(const std::string& path);
Status save_averaging_journal(const std::string& path, const AveragingJournal& journal);

}  // namespace energy::daemon
