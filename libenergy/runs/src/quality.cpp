#include "energy/quality.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "energy/baseline.h"
#include "energy/report.h"

namespace energy {
namespace {

std::string ms_text(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f ms", static_cast<double>(ns) / 1e6);
  return buf;
}

std::string percent_text(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100.0);
  return buf;
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::optional<double> tag_number(const RunRecord& run, const char* key) {
  auto text = run_tag(run, key);
  if (!text) return std::nullopt;
  // strtod, not from_chars: g++ 10's library has no floating-point from_chars.
  if (text->empty() || std::isspace(static_cast<unsigned char>(text->front())) != 0) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(text->c_str(), &end);
  if (end != text->c_str() + text->size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

Error tag_error(const RunRecord& run, const char* key, const std::string& expected) {
  return make_error(ErrorCode::kInvalid, "run " + std::to_string(run.id) + ": tag " + key + " (" +
                                             run_tag(run, key).value_or("") + ") is not " + expected);
}

void add_check(Quality& q, const std::string& name, Verdict outcome, std::string detail) {
  q.checks.push_back(QualityCheck{name, outcome, std::move(detail)});
  q.verdict = std::max(q.verdict, outcome);
}

void check_coverage(Quality& q, const RunReport& rep) {
  double c = rep.total.coverage();
  bool ok = c + 1e-12 >= q.gate.min_coverage;
  add_check(q, "coverage", ok ? Verdict::kPass : Verdict::kFail,
            percent_text(c) + (ok ? " >= " : " < ") + percent_text(q.gate.min_coverage));
}

void check_gap(Quality& q, const RunReport& rep) {
  auto limit = static_cast<int64_t>(std::llround(q.gate.max_gap_periods * static_cast<double>(q.period_ns)));
  bool ok = rep.total.largest_gap_ns <= limit;
  add_check(q, "longest_gap", ok ? Verdict::kPass : Verdict::kFail,
            ms_text(rep.total.largest_gap_ns) + (ok ? " <= " : " > ") + ms_text(limit) + " (" +
                number_text(q.gate.max_gap_periods) + " periods of " + ms_text(q.period_ns) + ")");
}

void check_reads(Quality& q, const RunReport& rep) {
  int64_t in_total = 0;
  int64_t outside = 0;
  std::string outside_rails;
  for (const auto& r : rep.rails) {
    if (r.in_total) {
      in_total += r.stats.failed_samples;
    } else if (r.stats.failed_samples > 0) {
      outside += r.stats.failed_samples;
      outside_rails += (outside_rails.empty() ? "" : ", ") + r.label;
    }
  }
  if (in_total > q.gate.max_failed_reads) {
    add_check(
        q, "read_errors", Verdict::kFail,
        std::to_string(in_total) + " failed reads on the total's rails > " + std::to_string(q.gate.max_failed_reads));
  } else if (outside > 0) {
    add_check(q, "read_errors", Verdict::kWarn,
              std::to_string(outside) + " failed reads on rails outside the total (" + outside_rails + ")");
  } else {
    add_check(q, "read_errors", Verdict::kPass,
              std::to_string(in_total) + " failed reads <= " + std::to_string(q.gate.max_failed_reads));
  }
}

void check_missing(Quality& q, const RunReport& rep) {
  if (rep.missing_rails.empty()) return add_check(q, "missing_rails", Verdict::kPass, "every rail has readings");
  std::string names;
  for (const auto& m : rep.missing_rails) names += (names.empty() ? "" : ", ") + m;
  add_check(q, "missing_rails", Verdict::kWarn, "no reading at all from " + names);
}

void check_overlap(Quality& q) {
  if (q.overlaps.empty()) return add_check(q, "overlap", Verdict::kPass, "no other run was open");
  int64_t longest = 0;
  for (const auto& o : q.overlaps) longest = std::max(longest, o.overlap_ns);
  std::string detail = std::to_string(q.overlaps.size()) + " other run" + (q.overlaps.size() == 1 ? "" : "s") +
                       " open during it (longest overlap " + ms_text(longest) + ")";
  if (q.gate.exclusive) return add_check(q, "overlap", Verdict::kFail, detail + "; the run was exclusive");
  add_check(q, "overlap", Verdict::kWarn, detail + ": each run's energy is the whole board's");
}

void check_period(Quality& q, int64_t window_ns) {
  if (window_ns <= 0 || q.period_ns <= window_ns) return;
  add_check(q, "period", Verdict::kWarn,
            "sampled every " + ms_text(q.period_ns) + " while the monitors average over " + ms_text(window_ns) +
                ": part of every period went unseen");
}

void check_clocks(Quality& q, int64_t external_changes) {
  if (external_changes == 0) return add_check(q, "clocks", Verdict::kPass, "no pinned clock changed");
  add_check(q, "clocks", Verdict::kFail,
            std::to_string(external_changes) + " change" + (external_changes == 1 ? "" : "s") +
                " of a pinned clock by another writer during the run");
}

void check_state(Quality& q, const RunReport& rep) {
  if (rep.run.state == RunState::kInterrupted) {
    return add_check(q, "state", Verdict::kFail, "interrupted: the board rebooted while the run was open");
  }
  q.final = rep.run.state != RunState::kOpen;
  add_check(q, "state", Verdict::kPass, q.final ? "stopped" : "open: judged on its data so far");
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "pass";
    case Verdict::kWarn: return "warn";
    case Verdict::kFail: return "fail";
  }
  return "fail";
}

std::optional<Verdict> verdict_from_name(const std::string& name) {
  for (Verdict v : {Verdict::kPass, Verdict::kWarn, Verdict::kFail}) {
    if (name == verdict_name(v)) return v;
  }
  return std::nullopt;
}

const char* gap_cause_name(GapCause c) {
  switch (c) {
    case GapCause::kReadErrors: return "read_errors";
    case GapCause::kEnergydStopped: return "energyd_stopped";
    case GapCause::kSamplerStalled: return "sampler_stalled";
  }
  return "sampler_stalled";
}

Result<QualityGate> gate_from_tags(const RunRecord& run) {
  QualityGate g;
  if (run_tag(run, kRunMinCoverageTag)) {
    auto v = tag_number(run, kRunMinCoverageTag);
    if (!v || *v < kMinGateCoverage || *v > kMaxGateCoverage)
      return tag_error(run, kRunMinCoverageTag, "a number in [0, 1]");
    g.min_coverage = *v;
  }
  if (run_tag(run, kRunMaxGapTag)) {
    auto v = tag_number(run, kRunMaxGapTag);
    if (!v || *v < kMinGateGapPeriods || *v > kMaxGateGapPeriods)
      return tag_error(run, kRunMaxGapTag, "a number in [1, 1000]");
    g.max_gap_periods = *v;
  }
  if (run_tag(run, kRunMaxFailedReadsTag)) {
    auto v = tag_number(run, kRunMaxFailedReadsTag);
    if (!v || *v < 0 || *v > static_cast<double>(kMaxGateFailedReads) || std::floor(*v) != *v)
      return tag_error(run, kRunMaxFailedReadsTag, "a whole number in [0, 1000000]");
    g.max_failed_reads = static_cast<int64_t>(*v);
  }
  g.exclusive = run_tag(run, kRunExclusiveTag) == std::string("true");
  return g;
}

std::optional<int64_t> recorded_period_ns(const RunRecord& run) {
  auto ms = tag_number(run, kRunPeriodTag);
  if (!ms || *ms <= 0 || *ms > 3'600'000) return std::nullopt;
  return static_cast<int64_t>(std::llround(*ms * 1e6));
}

int64_t recorded_averaging_window_ns(const RunRecord& run) {
  auto ms = tag_number(run, kRunAveragingWindowTag);
  if (!ms || *ms <= 0 || *ms > 3'600'000) return 0;
  return static_cast<int64_t>(std::llround(*ms * 1e6));
}

Quality judge_run(const RunReport& rep, const QualityInputs& in) {
  Quality q;
  q.gate = in.gate;
  q.period_ns = in.period_ns;
  q.period_recorded = in.period_recorded;
  q.overlaps = in.overlaps;
  q.gaps = rep.gaps;
  q.gaps_not_listed = rep.gaps_not_listed;
  check_state(q, rep);
  check_coverage(q, rep);
  check_gap(q, rep);
  check_reads(q, rep);
  check_missing(q, rep);
  check_overlap(q);
  check_period(q, in.averaging_window_ns);
  check_clocks(q, in.external_clock_changes);
  return q;
}

nlohmann::json quality_to_json(const Quality& q) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : q.checks) {
    checks.push_back({{"name", c.name}, {"outcome", verdict_name(c.outcome)}, {"detail", c.detail}});
  }
  nlohmann::json gaps = nlohmann::json::array();
  for (const auto& g : q.gaps) {
    nlohmann::json j = {{"begin_ns", g.begin_ns},
                        {"end_ns", g.end_ns},
                        {"length_ns", g.end_ns - g.begin_ns},
                        {"cause", gap_cause_name(g.cause)}};
    if (g.cause == GapCause::kReadErrors) {
      j["rails"] = g.rails;
      j["failed_reads"] = g.failed_reads;
    }
    gaps.push_back(std::move(j));
  }
  nlohmann::json overlaps = nlohmann::json::array();
  for (const auto& o : q.overlaps) {
    overlaps.push_back(
        {{"id", o.id}, {"name", o.name}, {"overlap_s", static_cast<double>(o.overlap_ns) / 1e9}, {"open", o.open}});
  }
  return {{"verdict", verdict_name(q.verdict)},
          {"final", q.final},
          {"checks", std::move(checks)},
          {"gate",
           {{"min_coverage", q.gate.min_coverage},
            {"max_gap_periods", q.gate.max_gap_periods},
            {"max_failed_reads", q.gate.max_failed_reads},
            {"exclusive", q.gate.exclusive}}},
          {"period_ms", static_cast<double>(q.period_ns) / 1e6},
          {"period_recorded", q.period_recorded},
          {"gaps", std::move(gaps)},
          {"gaps_not_listed", q.gaps_not_listed},
          {"overlaps", std::move(overlaps)}};
}

std::string quality_summary(const Quality& q) {
  std::string out;
  for (const auto& c : q.checks) {
    if (c.outcome == Verdict::kPass) continue;
    out += (out.empty() ? "" : "; ") + c.name + " " + c.detail;
  }
  return out;
}

}  // namespace energy
