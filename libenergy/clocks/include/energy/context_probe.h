// ContextProbe: reads the board context (context.h) of a clock inventory -
// each clock domain's current frequency and governor, each thermal zone's
// temperature - through files kept open and re-read with pread at offset 0
// (AttrFile), the cheap way to poll them many times a second.
//
// Files: cpufreq scaling_cur_freq (kHz, converted to Hz) and
// scaling_governor; devfreq cur_freq (Hz) and governor; a debugfs EMC clock
// its rate (no governor); thermal zones' temp (milli-degC; -256000 is a
// gated zone, Orin). A read that fails, or text that is not a number, gives
// an unknown value, never a zero. A read may block (Thor's devfreq files can
// hang): call from a thread that nothing else waits on.
//
// Residency counters (residency_counters.h): a CPU policy's
// stats/time_in_state and a devfreq GPU's trans_stat, when the file exists
// at construction; the EMC has none.
//
// Thread-safety: one thread at a time per object.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "energy/attr_file.h"
#include "energy/clocks.h"
#include "energy/context.h"
#include "energy/residency_counters.h"
#include "energy/sysroot.h"

namespace energy {

class ContextProbe {
 public:
  ContextProbe(const SysRoot& root, const ClockInventory& inventory);

  size_t domain_count() const { return domains_.size(); }
  const std::string& domain_name(size_t i) const { return domains_[i].name; }
  bool has_governor(size_t i) const { return domains_[i].governor.configured(); }
  ContextValue read_frequency(size_t i);  // Hz
  ContextValue read_governor(size_t i);   // unknown for a domain without one
  bool has_counters(size_t i) const { return domains_[i].counters.configured(); }
  const std::string& counters_label(size_t i) const { return domains_[i].counters.label(); }
  int64_t counter_unit_ns(size_t i) const { return energy::counter_unit_ns(domains_[i].counter_format); }
  // The domain's counters; kIo, kParse (the file's name in the message) or kUnsupported without counters.
  Result<ResidencyCounters> read_counters(size_t i);

  size_t zone_count() const { return zones_.size(); }
  // The zone's type; a type that several zones share gets "@thermal_zoneN".
  const std::string& zone_name(size_t i) const { return zones_[i].name; }
  ContextValue read_temperature(size_t i);  // milli-degC, or unknown with text "gated"

 private:
  struct Domain {
    std::string name;
    AttrFile cur;
    int64_t hz_per_unit = 1;
    AttrFile governor;
    AttrFile counters;
    CounterFormat counter_format = CounterFormat::kTimeInState;
  };
  struct Zone {
    std::string name;
    AttrFile temp;
  };

  std::vector<Domain> domains_;
  std::vector<Zone> zones_;
};

}  // namespace energy
