#include "sweep_run.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "baseline_measure.h"
#include "energy/sweep_stats.h"
#include "sweep_cooldown.h"
#include "sweep_progress.h"
#include "sweep_run_step.h"
#include "sweep_search_run.h"
#include "sweep_view.h"
#include "table.h"

namespace energy::cli {
namespace {

using json = nlohmann::json;

// A long sweep measures its idle baseline again this often (--baseline).
constexpr std::chrono::minutes kRebaselineEvery{30};

// --ci: a point whose interval already meets the target is not run again.
bool ci_met(const Sweep& s, size_t point) {
  if (!s.spec.ci_pct) return false;
  auto it = s.store.samples.find(point);
  if (it == s.store.samples.end() || it->second.size() < 2) return false;
  auto summary = summarize_sample(it->second);
  return summary && ci_target_met(*summary, *s.spec.ci_pct / 100.0);
}

// --baseline: an idle baseline, added to the sweep (role baseline); later runs are tied to it.
int take_baseline(const Context& ctx, Sweep& s, Progress& progress) {
  progress.note("measuring the idle baseline for " + duration_text(static_cast<double>(*s.spec.baseline_ms) / 1000.0));
  auto out = measure_baseline(ctx, BaselineRequest{*s.spec.baseline_ms, s.name + " baseline"});
  if (out.exit_code != kExitOk) return out.exit_code;
  int64_t run_id = member(out.report, "run").value("id", int64_t{0});
  auto added = call_status(ctx, "sweep.add_run",
                           {{"sweep", s.id}, {"run", run_id}, {"point", 0}, {"repeat", 0}, {"role", "baseline"}});
  if (!added) return report_failure(added.error());
  s.store.baseline_run = run_id;
  const auto& power = member(member(out.report, "total"), "avg_power_w");
  if (power.is_number()) s.idle.power_w = power.get<double>();
  return kExitOk;
}

}  // namespace

SweepProgressStore progress_from_show(const json& sweep) {
  SweepProgressStore out;
  for (const auto& r : member(sweep, "runs")) {
    std::string role = r.value("role", "");
    const json& run = member(r, "run");
    if (role == "baseline") out.baseline_run = r.value("run_id", int64_t{0});
    if (role != "measure") continue;
    size_t point = r.value("point", size_t{0});
    out.finished.insert({point, r.value("repeat", 0)});
    if (member(run, "tags").value("exit_status", "") != "0") continue;
    const json& quality = member(run, "quality");
    if (quality.is_object() && quality.value("verdict", "") == "fail") continue;  // never decides a search
    auto e = energy_per_item(member(member(run, "summary"), "energy_j"), member(run, "items"));
    if (e) out.samples[point].push_back(*e);
    const json& summary = member(run, "summary");
    auto sample = run_sample(member(summary, "energy_j"), member(summary, "duration_s"), member(run, "items"));
    if (sample) out.runs[{point, r.value("repeat", 0)}] = *sample;
  }
  return out;
}

namespace {

// The idle reference and, with --baseline, a fresh baseline (at the start of
// every invocation and every kRebaselineEvery).
int refresh_idle(const Context& ctx, Sweep& s, SweepLoop& loop, Progress& progress) {
  loop.last_baseline = SteadyClock::now();
  if (s.spec.baseline_ms) return take_baseline(ctx, s, progress);
  if (s.spec.cooldown.mode != CooldownMode::kAuto) return kExitOk;
  auto idle = read_board(ctx);
  if (!idle) return report_failure(idle.error());
  s.idle = *idle;
  return kExitOk;
}

// Why the baseline ended the sweep: a signal (exit 128+N) or a failed request.
std::string baseline_failure(int code) {
  return code > 128 ? "by " + signal_name(code - 128) + " during the idle baseline" : "the idle baseline failed";
}

void print_end(const Sweep& s, const SweepLoop& loop) {
  std::string machinery = loop.machinery_runs == 0
                              ? ""
                              : ", " + fixed(loop.machinery_s / static_cast<double>(loop.machinery_runs) * 1000.0, 1) +
                                    " ms of energyctl's own time per run";
  std::fprintf(stderr, "energyctl: sweep %lld complete: %zu runs this time (%zu failed) in %s%s\n",
               static_cast<long long>(s.id), loop.done, loop.failed, duration_text(seconds_since(loop.started)).c_str(),
               machinery.c_str());
}

// The grid's schedule, without the finished runs; kExitOk when done.
int run_grid(const Context& ctx, Sweep& s, const SignalBlock& block, SweepLoop& loop, Progress& progress) {
  PlanOptions plan{s.spec.repeat, s.spec.warmup, s.spec.seed,
                   s.spec.dvfs ? DvfsReference::kPerParamValue : DvfsReference::kNone};
  auto schedule = remaining_schedule(s.points.size(), plan, s.store.finished);
  if (!schedule) return report_failure(schedule.error());
  loop.total = schedule->size();
  int warmup_index = 0;
  for (const ScheduledRun& run : *schedule) {
    if (!run.warmup() && run.repeat >= 2 && ci_met(s, run.point)) {
      --loop.total;
      continue;
    }
    if (s.spec.baseline_ms && SteadyClock::now() - loop.last_baseline > kRebaselineEvery) {
      if (int code = refresh_idle(ctx, s, loop, progress); code != kExitOk)
        return interrupted(ctx, s, code, baseline_failure(code), progress);
    }
    Repeat r;
    if (int code = one_run(ctx, s, run, run.warmup() ? warmup_index++ : 0, block, loop, progress, r); code != kExitOk)
      return code;
    ++loop.done;
    progress.show(progress_state(s, run, loop));
  }
  return kExitOk;
}

ProgressStyle progress_style(const Sweep& s) {
  if (s.progress_json) return ProgressStyle::kJson;
  return ::isatty(STDERR_FILENO) == 1 ? ProgressStyle::kRedraw : ProgressStyle::kLines;
}

// --progress json: which sweep this is, first, so a program can resume it.
json sweep_event(const Sweep& s) {
  return {{"event", "sweep"},
          {"sweep", s.id},
          {"name", s.name},
          {"points", s.points.size()},
          {"search", s.spec.search.has_value()},
          {"resumed_runs", s.store.finished.size()}};
}

}  // namespace

int run_sweep(const Context& ctx, Sweep& s) {
  SignalBlock block;
  Progress progress(progress_style(s));
  progress.event(sweep_event(s));
  SweepLoop loop;
  if (int code = refresh_idle(ctx, s, loop, progress); code != kExitOk)
    return interrupted(ctx, s, code, baseline_failure(code), progress);
  int code = s.spec.search ? run_search(ctx, s, block, loop, progress) : run_grid(ctx, s, block, loop, progress);
  if (code != kExitOk) return code;
  progress.finish();
  if (auto st = set_state(ctx, s.id, "complete"); !st) return report_failure(st.error());
  print_end(s, loop);
  Context out = ctx;
  out.json = s.json;
  return print_sweep_results(out, s.id);
}

}  // namespace energy::cli
