#include "sweep_run_step.h"

#include <algorithm>
#include <cstdio>

#include "measured_run.h"
#include "pin_args.h"
#include "table.h"
#include "terminal_text.h"

namespace energy::cli {
namespace {

using json = nlohmann::json;

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
  req.start_args.update(s.spec.gate);
  return req;
}

Status add_run(const Context& ctx, const Sweep& s, int64_t run_id, const ScheduledRun& run, int64_t cooldown_ms,
               int warmup_index, bool rejected) {
  json args = {{"sweep", s.id},
               {"run", run_id},
               {"point", run.point},
               {"repeat", run.warmup() ? warmup_index : run.repeat},
               {"role", run.warmup() ? "warmup"
                        : rejected   ? "rejected"
                                     : "measure"},
               {"cooldown_ms", cooldown_ms}};
  return call_status(ctx, "sweep.add_run", args);
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

// What failed in a report's quality verdict ("coverage 60.1% < 98.0%; ..."),
// or "" when the run passed its gate (or was not judged).
std::string gate_failure(const Repeat& r) {
  if (!r.report || r.exit_status != 0) return "";
  const json& q = member(*r.report, "quality");
  if (!q.is_object() || q.value("verdict", "") != "fail") return "";  // an energyd without quality: not judged
  std::string out;
  for (const auto& c : member(q, "checks")) {
    if (c.is_object() && c.value("outcome", "") == "fail")
      out += (out.empty() ? "" : "; ") + c.value("name", "") + " " + c.value("detail", "");
  }
  return out;
}

// A measured run's outcome: the sample, the failure count, the message.
void account(Sweep& s, const ScheduledRun& run, const Repeat& r, SweepLoop& loop, Progress& progress) {
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
  if (run.warmup() || !r.report || !gate_failure(r).empty()) return;  // a failed gate never decides a minimum
  auto e = energy_per_item(member(*r.report, "total").value("energy_j", json()), items ? json(*items) : json());
  if (e) s.store.samples[run.point].push_back(*e);
  const json& total = member(*r.report, "total");
  auto sample =
      run_sample(total.value("energy_j", json()), r.report->value("duration_s", json()), items ? json(*items) : json());
  if (sample) s.store.runs[{run.point, run.repeat}] = *sample;
}

}  // namespace

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

Status set_state(const Context& ctx, int64_t id, const std::string& state) {
  return call_status(ctx, "sweep.set_state", {{"sweep", id}, {"state", state}});
}

ProgressState progress_state(const Sweep& s, const ScheduledRun& run, const SweepLoop& loop) {
  ProgressState st;
  st.done = loop.done;
  // An estimate stays ahead of the runs made: the search is not over until it says so.
  st.total = loop.total_estimated ? std::max(loop.total, loop.done + 1) : loop.total;
  st.total_estimated = loop.total_estimated;
  st.point = run.point;
  st.points = s.spec.search ? 0 : s.points.size();  // a search visits only some, in no set order
  st.repeat = run.warmup() ? 0 : run.repeat + 1;
  st.repeats = s.spec.search ? 0 : s.spec.repeat;  // a search decides each point's runs
  st.label = point_label(s.spec, s.points[run.point]);
  st.elapsed_s = seconds_since(loop.started);
  if (loop.done > 0)
    st.eta_s = st.elapsed_s / static_cast<double>(loop.done) * static_cast<double>(st.total - loop.done);
  st.last = loop.last;
  return st;
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
// A measured run that fails its quality gate is kept as "rejected" and run
// again, up to the spec's retries; the last attempt is kept as the point's
// measure run whatever its verdict (sweep show leaves a failed one out).
int one_run(const Context& ctx, Sweep& s, const ScheduledRun& run, int warmup_index, const SignalBlock& block,
            SweepLoop& loop, Progress& progress, Repeat& r) {
  for (int attempt = 0;; ++attempt) {
    r = Repeat{};
    int code = one_attempt(ctx, s, run, warmup_index, block, loop, progress, r, attempt < s.spec.retries);
    if (code != kExitRetry) return code;
  }
}

int one_attempt(const Context& ctx, Sweep& s, const ScheduledRun& run, int warmup_index, const SignalBlock& block,
                SweepLoop& loop, Progress& progress, Repeat& r, bool may_retry) {
  auto began = SteadyClock::now();
  CooldownOutcome cool = cool_down(ctx, s.spec.cooldown, s.idle, block);
  if (cool.signal != 0) return interrupted(ctx, s, 128 + cool.signal, "by " + signal_name(cool.signal), progress);
  if (cool.timed_out) progress.note("the board did not cool down to idle in time; running anyway");
  if (!cool.read_error.empty())
    progress.note("cannot tell whether the board is idle (" + cool.read_error + "); running anyway");
  MeasuredStep step = measure_run(ctx, run_request(s, run), block, r);
  if (step.signal != 0) return interrupted(ctx, s, 128 + step.signal, "by " + signal_name(step.signal), progress);
  if (step.exit_code != kExitOk) return interrupted(ctx, s, step.exit_code, "a request failed", progress);
  std::string failure = run.warmup() ? "" : gate_failure(r);
  bool rejected = !failure.empty() && may_retry;
  if (auto st = add_run(ctx, s, r.run_id, run, cool.waited_ms, warmup_index, rejected); !st)
    return interrupted(ctx, s, report_failure(st.error()), "sweep.add_run failed", progress);
  if (rejected) {
    progress.note("run " + std::to_string(r.run_id) + " (" + point_label(s.spec, s.points[run.point]) +
                  ") failed its quality gate (" + terminal_safe(failure) + "); running it again");
    ++loop.rejected;
    return kExitRetry;
  }
  if (!failure.empty()) {
    progress.note("run " + std::to_string(r.run_id) + " (" + point_label(s.spec, s.points[run.point]) +
                  ") failed its quality gate again (" + terminal_safe(failure) +
                  "); it is kept, and left out of the point's figures");
  }
  account(s, run, r, loop, progress);
  loop.machinery_s += seconds_since(began) - step.command_s - static_cast<double>(cool.waited_ms) / 1000.0;
  ++loop.machinery_runs;
  if (loop.failures_in_row >= kMaxConsecutiveFailures)
    return interrupted(ctx, s, kExitFailed, std::to_string(loop.failures_in_row) + " failed runs in a row", progress);
  return kExitOk;
}

}  // namespace energy::cli
