#include "averaging_settings.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "energy/clock_pin.h"
#include "period_check.h"

namespace energy::daemon {
namespace {

// A hwmon INA3221 whose count is known and that measures at least one rail:
// a chip energyd does not read is left as it is.
bool is_settable(const MonitorChip& c, const SensorInventory& inv) {
  bool measured =
      std::any_of(inv.rails.begin(), inv.rails.end(), [&](const RailInfo& r) { return r.device == c.device; });
  return c.driver == MonitorDriver::kIna3221Hwmon && c.samples > 0 && measured;
}

const MonitorChip* chip_of(const SensorInventory& inv, const std::string& device) {
  for (const auto& c : inv.chips) {
    if (c.device == device && c.driver == MonitorDriver::kIna3221Hwmon) return &c;
  }
  return nullptr;
}

}  // namespace

AveragingSettings::AveragingSettings(SysRoot root, std::string journal_path, const Clock& clock)
    : root_(std::move(root)), journal_path_(std::move(journal_path)), clock_(clock), boot_id_(current_boot_id()) {}

void AveragingSettings::apply(SensorAveraging mode, int64_t period_ms, SensorInventory& inv) {
  load();
  std::vector<Plan> plans = plan(mode, period_ms, inv);
  if (record(plans)) {
    for (auto& p : plans) write(p);
  }
  refresh_hwmon_averaging(root_, inv);
  settle(plans, inv);
  report(inv);
}

// A journal of another boot is dropped; an unreadable one is moved aside.
void AveragingSettings::load() {
  auto loaded = load_averaging_journal(journal_path_);
  if (!loaded && loaded.error().code == ErrorCode::kParse) {
    std::string aside = journal_path_ + ".damaged-" + std::to_string(clock_.wall_ns() / kNsPerSec);
    std::rename(journal_path_.c_str(), aside.c_str());
    spdlog::error(
        "sensor averaging journal damaged ({}); moved it to {}: the chips' current samples are taken as "
        "their own",
        loaded.error().describe(), aside);
  } else if (!loaded) {
    spdlog::error("cannot read the sensor averaging journal ({}); the chips' current samples are taken as their own",
                  loaded.error().describe());
  }
  const bool have_journal = static_cast<bool>(loaded);
  journal_ = have_journal ? std::move(loaded).value() : AveragingJournal{};
  saved_text_ = have_journal && !journal_.boot_id.empty() ? averaging_journal_to_text(journal_) : std::string();
  if (!journal_.boot_id.empty() && journal_.boot_id != boot_id_ && !journal_.chips.empty()) {
    spdlog::info("dropping the sensor averaging journal of boot {}: the board rebooted since, which reset the chips",
                 journal_.boot_id);
    journal_.chips.clear();
  }
  journal_.boot_id = boot_id_;
}

namespace {

bool writes_interval(int64_t target_ms, int64_t current_ms) { return target_ms > 0 && target_ms != current_ms; }

// A chip's own averaging back: the count first, then update_interval (the
// driver derives the conversion time from it and the count it then has);
// update_interval only when known (> 0).
Status put_back_own(const SysRoot& root, const std::string& samples_path, int64_t samples,
                    const std::string& interval_path, int64_t interval_ms) {
  auto st = write_verified(root, FileWrite{samples_path, std::to_string(samples)});
  if (!st || interval_ms <= 0 || interval_path.empty()) return st;
  return write_verified(root, FileWrite{interval_path, std::to_string(interval_ms)});
}

}  // namespace

namespace {

// What the chip has now and where its files are.
AveragingPlan current_of(const MonitorChip& c) {
  AveragingPlan p;
  p.device = c.device;
  p.samples_path = join_path(c.data_dir, "samples");
  p.interval_path = join_path(c.data_dir, "update_interval");
  p.current = c.samples;
  p.current_interval_ms = c.update_interval_ms;
  return p;
}

// The chip's own settings: the journal's when energyd changed them and did
// not stop cleanly, else what it has now.
void set_originals(const MonitorChip& c, const AveragingRecord* rec, AveragingPlan& p) {
  p.original = rec ? rec->original : c.samples;
  p.original_interval_ms = c.update_interval_ms;
  if (rec && rec->original_interval_ms > 0) {
    p.original_interval_ms = rec->original_interval_ms;
  } else if (rec) {  // version 1 changed the count only: its own count at the conversion time it has
    p.original_interval_ms = ina3221_update_interval_ms(rec->original, c.channels, c.conversion_us);
  }
}

// What the mode asks for: the period's averaging (a count for the chip's own
// conversion time when its channel count is unknown), or the originals.
void set_targets(const MonitorChip& c, SensorAveraging mode, int64_t period_ms, AveragingPlan& p) {
  const bool period = mode == SensorAveraging::kPeriod;
  p.fallback = period ? ina3221_samples_for_period(c.samples, c.update_interval_ms, period_ms) : p.original;
  if (period && c.channels > 0) {
    Ina3221Setting s = ina3221_setting_for_period(c.channels, period_ms);
    p.target = s.samples;
    p.target_interval_ms = s.update_interval_ms;
  } else if (period) {
    p.target = p.fallback;
  } else {
    p.target = p.original;
    p.target_interval_ms = p.original_interval_ms;
  }
}

void log_unclean_stop(const MonitorChip& c, const AveragingRecord* rec, const AveragingPlan& p) {
  if (!rec || (rec->original == c.samples && p.original_interval_ms == c.update_interval_ms)) return;
  spdlog::info(
      "energyd did not stop cleanly before: ina3221 {}'s own averaging is samples {}, update_interval {} ms "
      "(from the journal), not the {} and {} ms it has now",
      c.device, rec->original, p.original_interval_ms, c.samples, c.update_interval_ms);
}

void warn_missing_chips(const AveragingJournal& journal, const SensorInventory& inv) {
  for (const auto& r : journal.chips) {
    if (chip_of(inv, r.device) != nullptr) continue;
    spdlog::warn(
        "sensor averaging journal names ina3221 {}, which is not found now; keeping its record "
        "(samples {}, update_interval {} ms) to put back at a later stop",
        r.device, r.original, r.original_interval_ms);
  }
}

}  // namespace

// Per hwmon INA3221 chip: its original count and update_interval (the
// journal's, if energyd changed them and did not stop cleanly), what it has
// and what it should get.
std::vector<AveragingPlan> AveragingSettings::plan(SensorAveraging mode, int64_t period_ms,
                                                   const SensorInventory& inv) const {
  std::vector<Plan> plans;
  for (const auto& c : inv.chips) {
    if (!is_settable(c, inv)) continue;
    const AveragingRecord* rec = find(c.device);
    Plan p = current_of(c);
    set_originals(c, rec, p);
    set_targets(c, mode, period_ms, p);
    log_unclean_stop(c, rec, p);
    plans.push_back(std::move(p));
  }
  warn_missing_chips(journal_, inv);
  return plans;
}

// Before any write, the journal holds every chip whose averaging will differ
// from its original. Without a durable record nothing is written.
bool AveragingSettings::record(const std::vector<Plan>& plans) {
  bool writes = false;
  for (const auto& p : plans) {
    writes = writes || p.target != p.current || writes_interval(p.target_interval_ms, p.current_interval_ms);
    bool untouched = p.target == p.original && p.current == p.original &&
                     !writes_interval(p.target_interval_ms, p.original_interval_ms) &&
                     p.current_interval_ms == p.original_interval_ms;
    if (untouched) continue;
    auto it = std::find_if(journal_.chips.begin(), journal_.chips.end(),
                           [&](const AveragingRecord& r) { return r.device == p.device; });
    // The interval is recorded whenever it is known, so that a stop puts back
    // the conversion time even when a fallback wrote only the count.
    AveragingRecord rec{p.device,        p.samples_path,         p.original,          p.target,
                        p.interval_path, p.original_interval_ms, p.target_interval_ms};
    if (it == journal_.chips.end())
      journal_.chips.push_back(rec);
    else
      *it = rec;
  }
  if (!writes) return true;
  auto st = save();
  if (st) return true;
  spdlog::error("cannot record the chips' own averaging in {} ({}); leaving every chip's averaging as it is",
                journal_path_, st.error().describe());
  return false;
}

Status AveragingSettings::write_count(const Plan& p, int64_t samples) const {
  return write_verified(root_, FileWrite{p.samples_path, std::to_string(samples)});
}

// The count first, then the update_interval (which the driver turns into a
// conversion time with the count it has). One clear line when the chip
// refuses: the file, the error, what happens next.
void AveragingSettings::write(Plan& p) const {
  if (p.target != p.current) {
    auto st = write_count(p, p.target);
    if (!st) {
      p.error = st.error().describe();
      spdlog::warn(
          "cannot set the averaging of ina3221 {}: {}; it keeps samples {} (update_interval {} ms) and energyd "
          "measures with that",
          p.device, p.error, p.current, p.current_interval_ms);
      return;
    }
  }
  if (p.target_interval_ms <= 0 || (p.target == p.current && p.target_interval_ms == p.current_interval_ms)) return;
  auto st = write_verified(root_, FileWrite{p.interval_path, std::to_string(p.target_interval_ms)});
  if (st) return;
  p.error = st.error().describe();
  // A write the driver took but that reads back otherwise may have changed
  // the conversion time: the chip's own count and update_interval first
  // (put_back_own), then the count for its own conversion time.
  std::string own = "its own conversion time";
  if (p.original_interval_ms > 0) {
    auto own_back = put_back_own(root_, p.samples_path, p.original, p.interval_path, p.original_interval_ms);
    if (!own_back)
      own = "the conversion time it has now (putting back its own failed: " + own_back.error().describe() + ")";
  }
  auto back = write_count(p, p.fallback);
  spdlog::warn("cannot set the conversion time of ina3221 {}: {}; it keeps {}, {}", p.device, p.error, own,
               back ? "with samples " + std::to_string(p.fallback)
                    : "and samples " + std::to_string(p.target) + " (setting " + std::to_string(p.fallback) +
                          " failed too: " + back.error().describe() + ")");
}

// The journal keeps the chips whose averaging now differs from their own
// (read back after the writes), and the records of chips not found this time.
void AveragingSettings::settle(const std::vector<Plan>& plans, const SensorInventory& inv) {
  std::vector<AveragingRecord> kept;
  for (const auto& r : journal_.chips) {
    if (chip_of(inv, r.device) == nullptr) kept.push_back(r);
  }
  chips_.clear();
  for (const auto& p : plans) {
    const MonitorChip* c = chip_of(inv, p.device);
    int64_t now = c != nullptr ? c->samples : 0;
    int64_t now_interval = c != nullptr ? c->update_interval_ms : 0;
    bool changed = now != p.original || (p.original_interval_ms > 0 && now_interval != p.original_interval_ms);
    if (changed) {
      kept.push_back(AveragingRecord{p.device, p.samples_path, p.original, now, p.interval_path, p.original_interval_ms,
                                     now_interval});
    }
    chips_.push_back(ChipAveraging{p.device, changed, p.original, p.original_interval_ms, p.error});
  }
  journal_.chips = std::move(kept);
  if (auto st = save(); !st) {
    spdlog::error(
        "cannot update the sensor averaging journal {}: {}; a restart after a crash may take a chip's "
        "changed averaging as its own",
        journal_path_, st.error().describe());
  }
}

void AveragingSettings::report(const SensorInventory& inv) const {
  for (const auto& a : chips_) {
    const MonitorChip* c = chip_of(inv, a.device);
    if (c == nullptr) continue;
    std::string own = a.changed ? " (set by energyd, its own samples " + std::to_string(a.original_samples) +
                                      " and update_interval " + std::to_string(a.original_interval_ms) +
                                      " ms, put back at stop)"
                                : "";
    spdlog::info("ina3221 {} averaging: samples {} of {} us conversions, update_interval {} ms, filter {} ms{}",
                 a.device, c->samples, c->conversion_us, c->update_interval_ms, ms_text(c->filter_ns), own);
  }
}

void AveragingSettings::restore() {
  std::vector<AveragingRecord> left;
  for (const auto& r : journal_.chips) {
    auto st = put_back_own(root_, r.path, r.original, r.interval_path, r.original_interval_ms);
    if (st) {
      spdlog::info("ina3221 {}: samples put back to {}, update_interval to {} ms", r.device, r.original,
                   r.original_interval_ms);
      continue;
    }
    spdlog::error(
        "cannot put the averaging of ina3221 {} back to samples {}, update_interval {} ms: {}; its record stays "
        "in {} for the next start",
        r.device, r.original, r.original_interval_ms, st.error().describe(), journal_path_);
    left.push_back(r);
  }
  journal_.chips = std::move(left);
  if (auto st = save(); !st) {
    spdlog::error("cannot update the sensor averaging journal {}: {}", journal_path_, st.error().describe());
  }
}

// Skipped when the file already says the same (or there is no file and
// nothing to record).
Status AveragingSettings::save() {
  std::string text = averaging_journal_to_text(journal_);
  if (text == saved_text_ || (saved_text_.empty() && journal_.chips.empty())) return ok_status();
  auto st = save_averaging_journal(journal_path_, journal_);
  if (st) saved_text_ = std::move(text);
  return st;
}

const AveragingRecord* AveragingSettings::find(const std::string& device) const {
  for (const auto& r : journal_.chips) {
    if (r.device == device) return &r;
  }
  return nullptr;
}

}  // namespace energy::daemon
