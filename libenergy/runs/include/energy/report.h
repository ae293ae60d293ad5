// Run reports: energy per rail and in total over a run's interval, computed
// from the store with integrate_power, and their JSON form (the wire format
// of `mark stop` and `runs show`; see docs/PROTOCOL.md).
//
// Units: J in JSON as floating point (energy_j), W for power, ns for times.
// A rail with no reading at all in the run is listed under missing_rails; a
// run with no data on any rail is an error, never 0 J. Runs older than the
// raw tier's retention are reported from the downsampled tiers (tiers.h):
// energy within its error bound, counts and extremes at bucket resolution.
// The board context stored for the run's boot (context.h) gives its clock
// residency, governors and temperature ranges (`clocks`, `thermal`).
// Every energy comes with two bounds on its distance from the true energy:
// its precision (integrate.h: what the readings cannot show, the sensor's
// resolution and the averaging corrections; plus, from a tier, how far the
// tier can be from the raw readings), which is what matters between runs on
// one board, and its accuracy: the precision plus the monitor's calibration
// (uncertainty.h: gain and offset errors, shunt tolerance).
//
// Thread-safety: reentrant; the Store belongs to the calling thread.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "energy/integrate.h"
#include "energy/quality.h"
#include "energy/residency.h"
#include "energy/result.h"
#include "energy/store.h"

namespace energy {

// A report lists at most this many gaps with their causes; the rest are counted.
constexpr size_t kMaxListedGaps = 100;

struct RailEnergyReport {
  std::string label;
  bool in_total = false;
  EnergyStats stats;
  Tier resolution = Tier::kRaw;  // the coarsest tier the figures come from
  double tier_bound_uj = 0;      // |energy from the raw readings - stats.energy_uj| <= this (0 from raw)
  double precision_uj = 0;       // |the monitor's energy - stats.energy_uj| <= this: tier_bound_uj + the readings' own
  double calibration_uj = 0;     // |true energy - the monitor's energy| <= this (uncertainty.h)
  double error_bound_uj = 0;     // |true energy - stats.energy_uj| <= this: precision_uj + calibration_uj (accuracy)
};

struct RunReport {
  RunRecord run;
  EnergyWindow window;
  std::vector<RailEnergyReport> rails;
  std::vector<std::string> missing_rails;
  EnergyStats total;
  Tier total_resolution = Tier::kRaw;
  double total_precision_uj = 0;    // as RailEnergyReport's, for the total
  double total_calibration_uj = 0;  // the sum of the total's rails' (their monitors' errors may add up)
  double total_error_bound_uj = 0;  // total_precision_uj + total_calibration_uj
  std::vector<std::string> total_rails;
  std::string total_rule;
  RunContext context;  // clock residency, governors, temperatures (residency.h)
  // Stretches of the total without a valid reading longer than the gap
  // threshold, with their causes (quality.h); from the raw readings only.
  std::vector<RunGap> gaps;  // the first kMaxListedGaps of them
  int64_t gaps_not_listed = 0;
};

// end_ns: the run's stop time, or "now" for an open run.
Result<RunReport> build_run_report(Store& store, const RunRecord& run, int64_t end_ns, int64_t gap_threshold_ns);

nlohmann::json run_to_json(const RunRecord& run);
nlohmann::json report_to_json(const RunReport& report);

}  // namespace energy
