// Clock pinning: parsing pin requests, planning the writes that pin a clock
// domain (and the writes that put it back), and doing one verified write.
//
// Owns: the rules of a pin, stated once (docs/CLOCKS.md has the reasons):
//  * A frequency must be one the domain lists; an unlisted one is an error
//    naming the nearest listed values below and above (never rounded
//    silently: a sweep would measure the same point twice).
//  * Text frequencies carry a unit: Hz, kHz, MHz or GHz, decimals allowed
//    ("1.2GHz", "624.75MHz"); "min" and "max" mean the domain's lowest and
//    highest listed frequency. A bare number is an error (is 1200 MHz or Hz?).
//  * A request is a frequency (min = max = it) or a range "LO:HI"; LO above
//    HI is an error.
//  * Limits are written so that min <= max holds after every single write
//    (raise: max first; lower: min first); a governor is written first.
//  * Read-only domains (no min/max files, a debugfs EMC without its lock and
//    rate files), CPU policies with an offline CPU (unless allowed) and
//    governors the domain does not list are errors naming the domain and the file.
//  * A debugfs memory clock (emc_pin_files) is pinned to one rate as
//    jetson_clocks does it: the lock file set to 1, then the rate written. A
//    range is an error; a governor asked with it is for the other domains
//    (it has no governor file). Put back: the
//    saved rate request while still locked (unless it was 0: none was ever
//    written), then the saved lock.
// Units: Hz everywhere in this API; file texts are in the file's own unit
// (cpufreq kHz, devfreq Hz), converted here, once.
//
// Thread-safety: parsing and planning are pure and reentrant. write_verified
// touches the board's files (may block on a hung sysfs read; call it from a
// worker thread).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "energy/clocks.h"
#include "energy/result.h"
#include "energy/sysroot.h"

namespace energy {

// One end of a requested range.
struct FreqBound {
  enum class Kind { kLowest, kHighest, kHz };
  Kind kind = Kind::kHz;
  int64_t hz = 0;  // kHz only
};

struct FreqRange {
  FreqBound lo;
  FreqBound hi;
};

// "min", "max", "1.2GHz", "1200MHz", "1510400kHz", "1200000000Hz" (case-insensitive units).
Result<FreqBound> parse_freq_bound(std::string_view text);
// "BOUND" (lo = hi) or "LO:HI".
Result<FreqRange> parse_freq_range(std::string_view text);
// "1510.4 MHz", "624.75 MHz", "1.2 GHz" is never used: MHz with the needed decimals.
std::string format_mhz(int64_t hz);

// What the caller asks of one domain.
struct PinRequest {
  std::string domain;  // the domain's name: "cpu0", "gpu", "emc"
  FreqRange range;
  std::string governor;  // empty: leave the governor alone
};

enum class OfflineCpus { kRefuse, kAllow };

enum class PinRole { kGovernor, kMin, kMax, kLock, kRate };
const char* pin_role_name(PinRole role);

// One file a pin changes: its text before the pin and the text the pin writes.
struct PinnedFile {
  PinRole role = PinRole::kMin;
  std::string path;    // board path
  std::string saved;   // restored on release
  std::string pinned;  // what the pin writes and the watcher expects
};

// Everything a pin does to one domain. Files are listed governor, min, max
// (or lock, rate for a debugfs EMC);
// the order of the writes comes from plan_writes.
struct DomainPin {
  std::string domain;
  int64_t hz_per_unit = 1;  // 1000 for cpufreq (kHz files), 1 for devfreq
  int64_t requested_min_hz = 0;
  int64_t requested_max_hz = 0;
  std::string requested_governor;
  std::vector<PinnedFile> files;
};

// Resolves a bound against the domain's listed frequencies (ascending).
Result<int64_t> resolve_bound(const ClockDomain& domain, const FreqBound& bound);

// Plans a pin of `domain` whose current state is `now` (the saved values).
// Checks writability, offline CPUs, the governor and the range.
Result<DomainPin> plan_pin(const ClockDomain& domain, const DomainState& now, const PinRequest& request,
                           OfflineCpus offline);

struct FileWrite {
  std::string path;
  std::string text;
};

enum class PinDirection { kApply, kRestore };

// The writes taking the domain to its pinned values (kApply) or back to its
// saved ones (kRestore), ordered so that min <= max after each write, given
// the domain's maximum now (in file units). A governor is written first.
std::vector<FileWrite> plan_writes(const DomainPin& pin, PinDirection direction, int64_t current_max_units);

// The maximum the domain will have before the writes of `direction` start,
// as recorded in the pin (saved max before applying, pinned max before
// restoring); callers that can read the file should prefer its value.
int64_t recorded_max_units(const DomainPin& pin, PinDirection direction);

// Writes `text` to a board file (O_WRONLY|O_TRUNC, one write) and reads it
// back; a failed write, a failed read or a different read-back is an error
// naming the file and the value. The file is opened with SysRoot::open_file:
// a path whose real location is outside the root (kDenied), that cannot be
// resolved (ELOOP) or that is not a regular file (a FIFO) is refused and
// nothing is written; open() never blocks.
Status write_verified(const SysRoot& root, const FileWrite& w);

}  // namespace energy
