// Run quality: a verdict on what a run's figures are worth, from the run's
// own data, so that a study never rests on a run that failed its checks.
//
// Checks (each pass, warn or fail; the verdict is the worst of them):
//   coverage       the total's covered share of the run >= gate.min_coverage
//                  (fail below)
//   longest_gap    the total's longest stretch without a valid reading <=
//                  gate.max_gap_periods x the run's sampling period (fail
//                  above)
//   read_errors    failed reads inside the run: on a rail of the total, fail
//                  when more than gate.max_failed_reads; on other rails, warn
//   missing_rails  a rail the board has without any reading in the run (warn:
//                  the total may be taken over other rails)
//   overlap        other runs open during the run (warn: each run's energy is
//                  the whole board's); fail when the run was exclusive
//   period         the run was sampled less often than its monitors average
//                  over (a fixed window energyd cannot set, e.g. the Nano's
//                  54 ms on L4T 32): warn, part of every period went unseen
//   clocks         a clock pinned for the run changed behind energyd's back
//                  (fail: the run was not measured at the clocks it names)
//   state          an interrupted run (fail: it ends at the board's reboot);
//                  an open run is judged on its data so far (the verdict is
//                  provisional, `final` false)
// The run's sampling period and gate are the ones stored with it at its
// start (tags energyd.period_ms, energyd.gate.*): a report never changes
// with energyd's settings of today.
//
// Gaps (stretches of the run without a valid reading of the total longer
// than the gap threshold) carry their cause: read errors (and on which
// rails), energyd not running (its restart closed the board context there),
// or the sampler stalled (energyd ran but took no sweep: a stopped or
// starved process).
//
// Thread-safety: pure functions on values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "energy/result.h"
#include "energy/store.h"

namespace energy {

// Tags energyd sets at mark.start (clients cannot set energyd.* tags).
constexpr const char* kRunPeriodTag = "energyd.period_ms";  // the sampling period, ms
// The fixed averaging window of the monitors energyd cannot set, ms (absent: none).
constexpr const char* kRunAveragingWindowTag = "energyd.averaging_window_ms";
constexpr const char* kRunMinCoverageTag = "energyd.gate.min_coverage";  // 0..1
constexpr const char* kRunMaxGapTag = "energyd.gate.max_gap_periods";    // >= 1
constexpr const char* kRunMaxFailedReadsTag = "energyd.gate.max_failed_reads";
constexpr const char* kRunExclusiveTag = "energyd.exclusive";  // "true": overlap fails
// Set after the stop from the stopped run's report: runs.list and sweeps read them.
constexpr const char* kRunQualityTag = "energyd.quality";  // pass, warn or fail
constexpr const char* kRunQualityFailedTag = "energyd.quality_failed";
// The total's precision_j (J), for listings and sweeps: whether differences exceed it.
constexpr const char* kRunPrecisionTag = "energyd.precision_j";  // the checks that failed, comma-separated

// Stretches without a valid reading longer than 2.5 sampling periods are gaps.
constexpr int64_t gap_threshold_for(int64_t period_ns) { return period_ns * 5 / 2; }

struct QualityGate {
  double min_coverage = 0.98;
  double max_gap_periods = 2.0;
  int64_t max_failed_reads = 0;
  bool exclusive = false;
};

// Limits of the gate's settings (mark.start, sweep specs and tags are checked against them).
constexpr double kMinGateCoverage = 0.0;
constexpr double kMaxGateCoverage = 1.0;
constexpr double kMinGateGapPeriods = 1.0;
constexpr double kMaxGateGapPeriods = 1000.0;
constexpr int64_t kMaxGateFailedReads = 1'000'000;

enum class Verdict { kPass, kWarn, kFail };
const char* verdict_name(Verdict v);  // "pass", "warn", "fail"
std::optional<Verdict> verdict_from_name(const std::string& name);

struct QualityCheck {
  std::string name;
  Verdict outcome = Verdict::kPass;
  std::string detail;  // what was found, against what limit
};

enum class GapCause { kReadErrors, kEnergydStopped, kSamplerStalled };
const char* gap_cause_name(GapCause c);  // "read_errors", "energyd_stopped", "sampler_stalled"

struct RunGap {
  int64_t begin_ns = 0;  // the last valid reading before it (or the run's start)
  int64_t end_ns = 0;    // the first valid reading after it (or the run's end)
  GapCause cause = GapCause::kSamplerStalled;
  std::vector<std::string> rails;  // read_errors: the rails whose reads failed in it
  int64_t failed_reads = 0;
};

struct RunOverlap {
  int64_t id = 0;
  std::string name;
  int64_t overlap_ns = 0;
  bool open = false;  // still open when the report was made
};

struct Quality {
  Verdict verdict = Verdict::kPass;
  bool final = true;  // false while the run is open
  std::vector<QualityCheck> checks;
  QualityGate gate;
  int64_t period_ns = 0;
  bool period_recorded = true;  // false: the run predates energyd.period_ms; today's period judged it
  std::vector<RunGap> gaps;
  int64_t gaps_not_listed = 0;
  std::vector<RunOverlap> overlaps;
};

// A run's gate from its tags (defaults where absent); kInvalid names a tag
// whose value is out of range.
Result<QualityGate> gate_from_tags(const RunRecord& run);
// The run's recorded period, or nullopt when it has none (or an unreadable one).
std::optional<int64_t> recorded_period_ns(const RunRecord& run);

// What the report's figures rest on, besides the report itself.
struct QualityInputs {
  int64_t period_ns = 0;  // the run's sampling period
  bool period_recorded = true;
  QualityGate gate;
  std::vector<RunOverlap> overlaps;
  int64_t external_clock_changes = 0;  // clock_events of kind external_change during the run
  int64_t averaging_window_ns = 0;     // the monitors' fixed averaging window (0: none)
};

// The run's recorded fixed averaging window (energyd.averaging_window_ms), or 0.
int64_t recorded_averaging_window_ns(const RunRecord& run);

struct RunReport;  // report.h
Quality judge_run(const RunReport& report, const QualityInputs& in);

nlohmann::json quality_to_json(const Quality& q);

// A short text of the failed (or warning) checks: "coverage 60.1% < 98%; longest gap 530 ms > 200 ms".
std::string quality_summary(const Quality& q);

}  // namespace energy
