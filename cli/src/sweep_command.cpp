// `energyctl sweep [OPTIONS] -- CMD` and `energyctl sweep --resume ID`:
// a new sweep is resolved against the board's clock tables and created
// (sweep.create, with the spec of sweep_args.h); a resumed one is read back
// (sweep.show), its runs left open by a killed energyctl are closed, and it
// is set running again. Both then go to run_sweep (sweep_run.h).
#include <cstdio>
#include <random>

#include "sweep_run.h"
#include "sweep_sampling.h"

namespace energy::cli {
namespace {

using json = nlohmann::json;

std::string default_name(const SweepArgs& a) {
  if (!a.name.empty()) return a.name;
  const std::string& cmd = a.command.front();
  size_t slash = cmd.find_last_of('/');
  std::string base = slash == std::string::npos ? cmd : cmd.substr(slash + 1);
  return (base.empty() ? cmd : base).substr(0, protocol::kMaxNameChars);
}

uint64_t draw_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

Result<std::vector<SweepPoint>> points_of(const SweepSpec& spec) {
  return plan_points(spec.axes, spec.dvfs ? DvfsReference::kPerParamValue : DvfsReference::kNone);
}

Result<json> call(const Context& ctx, const std::string& verb, const json& args) {
  auto client = connect_daemon(ctx);
  if (!client) return client.take_error();
  return client->call(verb, args);
}

// Usage errors (exit 2) for what the user typed wrong; daemon errors as they are.
int fail(const Context& ctx, const Error& e) {
  return e.code == ErrorCode::kInvalid ? usage_error(ctx, e.message) : report_failure(e);
}

// A warning only: the sweep still runs (the user may have chosen the period).
void warn_about_sampling(const Context& ctx) {
  auto status = call(ctx, "status", json::object());
  if (!status) return;
  if (auto w = sampling_gap_warning(*status)) std::fprintf(stderr, "energyctl: warning: %s\n", w->c_str());
}

int create_and_run(const Context& ctx, const SweepArgs& a) {
  warn_about_sampling(ctx);
  auto clocks = call(ctx, "clocks", json::object());
  if (!clocks) return report_failure(clocks.error());
  auto axes = resolve_clock_axes(a, *clocks);
  if (!axes) return fail(ctx, axes.error());
  Sweep s;
  s.json = a.json;
  s.progress_json = a.progress_json;
  s.spec = make_spec(a, std::move(axes).value(), a.seed ? *a.seed : draw_seed());
  auto points = points_of(s.spec);
  if (!points) return fail(ctx, points.error());
  s.points = std::move(points).value();
  s.name = default_name(a);
  auto created = call(ctx, "sweep.create", {{"name", s.name}, {"spec", spec_to_json(s.spec)}});
  if (!created) return report_failure(created.error());
  s.id = member(*created, "sweep").value("id", int64_t{0});
  if (s.spec.search)
    std::fprintf(stderr, "energyctl: sweep %lld (%s): a search over %zu points, %d to %d runs per point measured\n",
                 static_cast<long long>(s.id), s.name.c_str(), s.points.size(), s.spec.search->repeats,
                 s.spec.search->max_repeats);
  else
    std::fprintf(stderr, "energyctl: sweep %lld (%s): %zu points x %d repeats, seed %llu\n",
                 static_cast<long long>(s.id), s.name.c_str(), s.points.size(), s.spec.repeat,
                 static_cast<unsigned long long>(s.spec.seed));
  return run_sweep(ctx, s);
}

// Runs of the sweep a killed energyctl left open: closed, tagged, never added to it.
Status close_left_open(const Context& ctx, int64_t id) {
  auto open = call(ctx, "runs.list", {{"state", "open"}, {"tags", {{"sweep", std::to_string(id)}}}});
  if (!open) return open.take_error();
  for (const auto& run : member(*open, "runs")) {
    int64_t run_id = run.value("id", int64_t{0});
    auto stopped = call(ctx, "mark.stop", {{"run", run_id}, {"tags", {{"sweep_left_open", "1"}}}});
    if (!stopped && stopped.error().code != ErrorCode::kNotFound) return stopped.take_error();
    std::fprintf(stderr, "energyctl: closed run %lld, left open by an energyctl that ended; it is not counted\n",
                 static_cast<long long>(run_id));
  }
  return ok_status();
}

int resume(const Context& ctx, int64_t id, const SweepArgs& a) {
  auto shown = call(ctx, "sweep.show", {{"sweep", id}});
  if (!shown) return report_failure(shown.error());
  const json& sweep = member(*shown, "sweep");
  if (sweep.value("state", "") == "complete") {
    std::fprintf(stderr, "energyctl: sweep %lld is complete; nothing to resume\n", static_cast<long long>(id));
    return kExitOk;
  }
  auto spec = spec_from_json(member(sweep, "spec"));
  if (!spec) return report_failure(spec.error());
  Sweep s;
  s.json = a.json;
  s.progress_json = a.progress_json;
  s.id = id;
  s.name = sweep.value("name", "sweep");
  s.spec = std::move(spec).value();
  auto points = points_of(s.spec);
  if (!points) return report_failure(points.error());
  s.points = std::move(points).value();
  s.store = progress_from_show(sweep);
  if (auto st = close_left_open(ctx, id); !st) return report_failure(st.error());
  auto running = call(ctx, "sweep.set_state", {{"sweep", id}, {"state", "running"}});
  if (!running) return report_failure(running.error());
  std::fprintf(stderr, "energyctl: resuming sweep %lld (%s): %zu measured runs kept\n", static_cast<long long>(id),
               s.name.c_str(), s.store.finished.size());
  warn_about_sampling(ctx);
  return run_sweep(ctx, s);
}

}  // namespace

int cmd_sweep_run(const Context& ctx, const Args& args) {
  auto a = parse_sweep_args(args);
  if (!a) return usage_error(ctx, a.error().message);
  return a->resume ? resume(ctx, *a->resume, *a) : create_and_run(ctx, *a);
}

}  // namespace energy::cli
