#include "sweep_run.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>

#include "baseline_measure.h"
#include "energy/sweep_search.h"
#include "energy/sweep_stats.h"
#include "measured_run.h"
#include "pin_args.h"
#include "sweep_cooldown.h"
#include "sweep_progress.h"
#include "sweep_view.h"
#include "table.h"

namespace energy::cli {
namespace {

using SteadyClock = std::chrono::steady_clock;
using json = nlohmann::json;

// A long sweep measures its idle baseline again this often (--baseline).
constexpr std::chrono::minutes kRebaselineEvery{30};
constexpr size_t kMaxCommandTagChars = 1000;
constexpr size_t kMaxNameChars = 200;

struct Loop {
  size_t done = 0;
  size_t total = 0;
  int failures_in_row = 0;
  size_t failed = 0;
  SteadyClock::time_point started = SteadyClock::now();
  SteadyClock::time_point last_baseline = SteadyClock::now();
  double machinery_s = 0.0;  // per run: the loop's own time, without the command and the cooldown
  size_t machinery_runs = 0;
  std::string last;
};

double seconds_since(SteadyClock::time_point t) {
  return std::chrono::duration<double>(SteadyClock::now() - t).count();
}

std::string point_label(const SweepSpec& spec, const SweepPoint& p) {
  std::string out = p.dvfs ? "dvfs" : "";
  for (size_t k = 0; k < p.clock.size(); ++k) {
    out += (out.empty() ? "" : ", ") + spec.axes.clocks[k].domain + " " +
           exact_mhz(spec.axes.clocks[k].hz[p.clock[k]]) + "MHz";
  }
  for (const auto& v : point_params(spec.axes, p)) out += (out.empty() ? "" : ", ") + v.name + "=" + v.value;
  return out;
}

// mark.start's `pin` for a point: exact Hz, min = max; DVFS points pin nothing.
json point_pin(const SweepSpec& spec, const SweepPoint& p) {
  json domains = json::object();
  for (size_t k = 0; k < p.clock.size(); ++k)
    domains[spec.axes.clocks[k].domain] = std::to_string(spec.axes.clocks[k].hz[p.clock[k]]) + "Hz";
  return domains.empty() ? json() : json{{"domains", domains}};
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// Tags: the sweep, the point, its clocks ("dvfs" for the default governors) and parameters.
json run_tags(const Sweep& s, const ScheduledRun& run, const std::vector<std::string>& command) {
  const SweepPoint& p = s.points[run.point];
  json tags = {{"sweep", std::to_string(s.id)},
               {"sweep_point", std::to_string(run.point)},
               {"sweep_role", run.warmup() ? "warmup" : "measure"},
               {"command", joined(command).substr(0, kMaxCommandTagChars)}};
  if (!run.warmup()) tags["sweep_repeat"] = std::to_string(run.repeat);
  for (size_t k = 0; k < s.spec.axes.clocks.size(); ++k) {
    const auto& axis = s.spec.axes.clocks[k];
    tags[axis.domain] = p.dvfs ? "dvfs" : exact_mhz(axis.hz[p.clock[k]]) + "MHz";
  }
  for (const auto& v : point_params(s.spec.axes, p)) tags[v.name] = v.value;
  return tags;
}

MeasuredRunRequest run_request(const Sweep& s, const ScheduledRun& run) {
  const SweepPoint& p = s.points[run.point];
  auto params = point_params(s.spec.axes, p);
  MeasuredRunRequest req;
  req.command = substitute_params(s.spec.command, params);
  req.environment = param_environment(params);
  // A killed energyctl leaves no open run and no pinned clock: energyd stops the run.
  req.start_args = {{"name", s.name}, {"tags", run_tags(s, run, req.command)}, {"end_with_connection", true}};
  json pin = point_pin(s.spec, p);
  if (!pin.is_null()) req.start_args["pin"] = pin;
  if (auto items = point_items(s.spec, p)) req.start_args["items"] = *items;
  if (s.store.baseline_run) req.start_args["baseline"] = *s.store.baseline_run;
  return req;
}

// Energy per item (per run without items) from a report or a runs.list row.
std::optional<double> energy_per_item(const json& energy_j, const json& items) {
  if (!energy_j.is_number()) return std::nullopt;
  double per = items.is_number() && items.get<double>() > 0 ? items.get<double>() : 1.0;
  return energy_j.get<double>() / per;
}

// A run's RunSample (for --search) from its energy, duration and items.
std::optional<RunSample> run_sample(const json& energy_j, const json& duration_s, const json& items) {
  if (!energy_j.is_number() || !duration_s.is_number()) return std::nullopt;
  double per = items.is_number() && items.get<double>() > 0 ? items.get<double>() : 1.0;
  auto sample = make_run_sample(energy_j.get<double>(), std::nullopt, duration_s.get<double>(), 1);
  if (!sample) return std::nullopt;
  sample->energy_per_item_j /= per;
  sample->time_per_item_s /= per;
  return *sample;
}

Status call_status(const Context& ctx, const std::string& verb, const json& args) {
  auto client = connect_daemon(ctx);
  if (!client) return client.take_error();
  auto reply = client->call(verb, args);
  if (!reply) return reply.take_error();
  return ok_status();
}

Status add_run(const Context& ctx, const Sweep& s, int64_t run_id, const ScheduledRun& run, int64_t cooldown_ms,
               int warmup_index) {
  json args = {{"sweep", s.id},
               {"run", run_id},
               {"point", run.point},
               {"repeat", run.warmup() ? warmup_index : run.repeat},
               {"role", run.warmup() ? "warmup" : "measure"},
               {"cooldown_ms", cooldown_ms}};
  return call_status(ctx, "sweep.add_run", args);
}

Status set_state(const Context& ctx, int64_t id, const std::string& state) {
  return call_status(ctx, "sweep.set_state", {{"sweep", id}, {"state", state}});
}

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
    auto e = energy_per_item(member(member(run, "summary"), "energy_j"), member(run, "items"));
    if (e) out.samples[point].push_back(*e);
    const json& summary = member(run, "summary");
    auto sample = run_sample(member(summary, "energy_j"), member(summary, "duration_s"), member(run, "items"));
    if (sample) out.runs[{point, r.value("repeat", 0)}] = *sample;
  }
  return out;
}

namespace {

ProgressState progress_state(const Sweep& s, const ScheduledRun& run, const Loop& loop) {
  ProgressState st;
  st.done = loop.done;
  st.total = loop.total;
  st.point = run.point;
  st.points = s.points.size();
  st.repeat = run.warmup() ? 0 : run.repeat + 1;
  st.repeats = s.spec.repeat;
  st.label = point_label(s.spec, s.points[run.point]);
  st.elapsed_s = seconds_since(loop.started);
  if (loop.done > 0)
    st.eta_s = st.elapsed_s / static_cast<double>(loop.done) * static_cast<double>(loop.total - loop.done);
  st.last = loop.last;
  return st;
}

// Four significant digits: a small energy per item never shows as 0.000.
std::string significant(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string result_text(const Repeat& r, std::optional<double> items) {
  if (r.exit_status != 0) return "failed, exit status " + std::to_string(r.exit_status);
  if (!r.report) return "no report";
  const json& total = member(*r.report, "total");
  auto e = energy_per_item(member(total, "energy_j"), items ? json(*items) : json());
  std::string energy = e ? significant(*e) + (items ? " J/item" : " J") : "no energy";
  return energy + " in " + duration_text(r.report->value("duration_s", 0.0));
}

// A measured run's outcome: the sample, the failure count, the message.
void account(Sweep& s, const ScheduledRun& run, const Repeat& r, Loop& loop, Progress& progress) {
  auto items = point_items(s.spec, s.points[run.point]);
  loop.last = result_text(r, items);
  if (!run.warmup()) s.store.finished.insert({run.point, run.repeat});
  if (r.exit_status != 0) {
    ++loop.failed;
    ++loop.failures_in_row;
    progress.note("run " + std::to_string(r.run_id) + " (" + point_label(s.spec, s.points[run.point]) +
                  ") failed with exit status " + std::to_string(r.exit_status) + "; it is recorded, the sweep goes on");
    return;
  }
  loop.failures_in_row = 0;
  if (run.warmup() || !r.report) return;
  auto e = energy_per_item(member(*r.report, "total").value("energy_j", json()), items ? json(*items) : json());
  if (e) s.store.samples[run.point].push_back(*e);
  const json& total = member(*r.report, "total");
  auto sample =
      run_sample(total.value("energy_j", json()), r.report->value("duration_s", json()), items ? json(*items) : json());
  if (sample) s.store.runs[{run.point, run.repeat}] = *sample;
}

int interrupted(const Context& ctx, const Sweep& s, int code, const std::string& why, Progress& progress) {
  progress.finish();
  auto st = set_state(ctx, s.id, "interrupted");
  if (!st) print_error("cannot mark sweep " + std::to_string(s.id) + " interrupted: " + st.error().describe());
  std::fprintf(stderr,
               "energyctl: sweep %lld interrupted (%s); its finished runs are kept. Resume it with:\n"
               "  energyctl --socket %s sweep --resume %lld\n",
               static_cast<long long>(s.id), why.c_str(), ctx.socket_path.c_str(), static_cast<long long>(s.id));
  return code;
}

// One scheduled run: cooldown, the measured run, sweep.add_run. Returns
// kExitOk to go on, or the exit code to stop with.
int one_run(const Context& ctx, Sweep& s, const ScheduledRun& run, int warmup_index, const SignalBlock& block,
            Loop& loop, Progress& progress, Repeat& r) {
  auto began = SteadyClock::now();
  CooldownOutcome cool = cool_down(ctx, s.spec.cooldown, s.idle, block);
  if (cool.signal != 0) return interrupted(ctx, s, 128 + cool.signal, "by " + signal_name(cool.signal), progress);
  if (cool.timed_out) progress.note("the board did not cool down to idle in time; running anyway");
  if (!cool.read_error.empty())
    progress.note("cannot tell whether the board is idle (" + cool.read_error + "); running anyway");
  MeasuredStep step = measure_run(ctx, run_request(s, run), block, r);
  if (step.signal != 0) return interrupted(ctx, s, 128 + step.signal, "by " + signal_name(step.signal), progress);
  if (step.exit_code != kExitOk) return interrupted(ctx, s, step.exit_code, "a request failed", progress);
  if (auto st = add_run(ctx, s, r.run_id, run, cool.waited_ms, warmup_index); !st)
    return interrupted(ctx, s, report_failure(st.error()), "sweep.add_run failed", progress);
  account(s, run, r, loop, progress);
  loop.machinery_s += seconds_since(began) - step.command_s - static_cast<double>(cool.waited_ms) / 1000.0;
  ++loop.machinery_runs;
  if (loop.failures_in_row >= kMaxConsecutiveFailures)
    return interrupted(ctx, s, kExitFailed, std::to_string(loop.failures_in_row) + " failed runs in a row", progress);
  return kExitOk;
}

// The idle reference and, with --baseline, a fresh baseline (at the start of
// every invocation and every kRebaselineEvery).
int refresh_idle(const Context& ctx, Sweep& s, Loop& loop, Progress& progress) {
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

void print_end(const Sweep& s, const Loop& loop) {
  std::string machinery = loop.machinery_runs == 0
                              ? ""
                              : ", " + fixed(loop.machinery_s / static_cast<double>(loop.machinery_runs) * 1000.0, 1) +
                                    " ms of energyctl's own time per run";
  std::fprintf(stderr, "energyctl: sweep %lld complete: %zu runs this time (%zu failed) in %s%s\n",
               static_cast<long long>(s.id), loop.done, loop.failed, duration_text(seconds_since(loop.started)).c_str(),
               machinery.c_str());
}

// The grid's schedule, without the finished runs; kExitOk when done.
int run_grid(const Context& ctx, Sweep& s, const SignalBlock& block, Loop& loop, Progress& progress) {
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

// --search: measure(point) is the point's next repeat, a stored run first (a
// resumed search retraces its steps without running anything twice), else a
// new run. `code` is what stopped it (the sweep then is interrupted).
struct SearchRun {
  const Context& ctx;
  Sweep& s;
  const SignalBlock& block;
  Loop& loop;
  Progress& progress;
  std::map<size_t, int> calls;
  int code = kExitOk;
};

// A clock point's index in plan_points' layout (the last axis varying fastest).
size_t grid_index(const Sweep& s, const GridIndex& point) {
  size_t index = 0;
  for (size_t k = 0; k < point.size(); ++k) index = index * s.spec.axes.clocks[k].hz.size() + point[k];
  return index;
}

Result<RunSample> next_sample(SearchRun& sr, size_t index) {
  int repeat = sr.calls[index]++;
  std::pair<size_t, int> key{index, repeat};
  if (sr.s.store.finished.count(key) == 0) {
    Repeat r;
    sr.code = one_run(sr.ctx, sr.s, ScheduledRun{index, repeat}, 0, sr.block, sr.loop, sr.progress, r);
    if (sr.code != kExitOk) return make_error(ErrorCode::kState, "the sweep stopped");
    ++sr.loop.done;
    sr.progress.show(progress_state(sr.s, ScheduledRun{index, repeat}, sr.loop));
  }
  auto stored = sr.s.store.runs.find(key);
  if (stored != sr.s.store.runs.end()) return stored->second;
  std::string why = "run " + std::to_string(repeat + 1) + " of " + point_label(sr.s.spec, sr.s.points[index]) +
                    " failed or has no energy; the search needs every measurement";
  sr.code = interrupted(sr.ctx, sr.s, kExitFailed, why, sr.progress);
  return make_error(ErrorCode::kState, why);
}

void print_search_end(const Sweep& s, const SearchResult& r) {
  double pct = r.grid_runs > 0 ? 100.0 * static_cast<double>(r.runs) / static_cast<double>(r.grid_runs) : 0.0;
  std::fprintf(stderr,
               "energyctl: the search assumed energy per item is unimodal along each clock axis; it measured %zu "
               "points in %zu runs against the full grid's %zu runs (%s%%)%s; %d fallback(s) (a neighbour of the "
               "result was better, against the assumption)%s; best: %s\n",
               r.points, r.runs, r.grid_runs, fixed(pct, 1).c_str(), s.spec.dvfs ? ", plus the DVFS reference" : "",
               r.fallbacks,
               r.budget_exhausted ? "; the --max-runs budget ran out, the best point so far is reported" : "",
               point_label(s.spec, s.points[grid_index(s, r.best)]).c_str());
}

int run_search(const Context& ctx, Sweep& s, const SignalBlock& block, Loop& loop, Progress& progress) {
  const SearchSpec& spec = *s.spec.search;
  SearchOptions options;
  for (const auto& axis : s.spec.axes.clocks) options.axis_sizes.push_back(axis.hz.size());
  options.repeats = spec.repeats;
  options.max_repeats = spec.max_repeats;
  options.max_runs = spec.max_runs;
  size_t grid = grid_index(s, {}) + 1;
  for (size_t n : options.axis_sizes) grid *= n;
  loop.total = spec.max_runs > 0 ? spec.max_runs : grid * static_cast<size_t>(spec.repeats);
  SearchRun sr{ctx, s, block, loop, progress, {}, kExitOk};
  auto found = search_minimum(options, [&](const GridIndex& p) { return next_sample(sr, grid_index(s, p)); });
  if (sr.code != kExitOk) return sr.code;
  if (!found) return interrupted(ctx, s, report_failure(found.error()), "the search failed", progress);
  for (int k = 0; s.spec.dvfs && k < spec.repeats; ++k) {
    if (!next_sample(sr, grid)) return sr.code;  // the DVFS point follows the grid
  }
  progress.finish();
  print_search_end(s, *found);
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
  Loop loop;
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
