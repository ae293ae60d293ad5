#include "measured_run.h"

#include <cstdio>
#include <optional>

namespace energy::cli {
namespace {

// The tags a run gets when it stops: how its command ended.
nlohmann::json exit_tags(const Repeat& r) {
  nlohmann::json tags = {{"exit_status", std::to_string(r.exit_status)}};
  if (r.died_of_signal != 0) tags["signal"] = signal_name(r.died_of_signal);
  return tags;
}

// Closes the run (merging `tags` into its tags); a failure is printed and
// kept in `r`. Returns energyctl's exit code for the measurement.
int stop_run(const Context& ctx, Repeat& r, const nlohmann::json& tags) {
  nlohmann::json args = {{"run", std::to_string(r.run_id)}, {"tags", tags}};
  if (r.command_start_ns > 0) {
    args["command_start_ns"] = r.command_start_ns;  // the run becomes the command's span
    args["command_end_ns"] = r.command_end_ns;
  }
  auto client = connect_daemon(ctx);
  auto report = client ? client->call("mark.stop", args) : Result<nlohmann::json>(client.take_error());
  if (report) {
    r.report = std::move(report).value();
    return kExitOk;
  }
  const Error& e = report.error();
  r.stop_error = e.describe();
  print_error("cannot close run " + std::to_string(r.run_id) + ": " + r.stop_error);
  bool transport = e.code == ErrorCode::kIo || e.code == ErrorCode::kTimeout;
  if (!transport) return kExitFailed;
  std::fprintf(stderr, "energyctl: run %lld may still be open; close it with 'energyctl --socket %s mark stop %lld'\n",
               static_cast<long long>(r.run_id), ctx.socket_path.c_str(), static_cast<long long>(r.run_id));
  return kExitUnreachable;
}

void record_child(const ChildOutcome& child, Repeat& r) {
  r.exit_status = child.exit_status;
  r.died_of_signal = child.died_of_signal;
  r.exec_error = child.exec_error;
  r.command_start_ns = child.start_ns;
  r.command_end_ns = child.end_ns;
  if (!child.exec_error.empty()) print_error(child.exec_error);
}

// mark.start. With "end_with_connection" its connection is kept in `held`
// until the run has been stopped: should energyctl die, energyd sees the
// connection close and stops the run (and ends its clock pin).
CallOutcome start_run(const Context& ctx, const nlohmann::json& args, std::optional<Client>& held) {
  if (!args.value("end_with_connection", false)) return call_daemon(ctx, "mark.start", args);
  auto client = connect_daemon(ctx);
  if (!client) {
    print_error(client.error().describe());
    return {kExitUnreachable, {}};
  }
  auto reply = client->call("mark.start", args);
  if (!reply) return {report_failure(reply.error()), {}};
  held.emplace(std::move(client).value());
  return {kExitOk, std::move(reply).value()};
}

}  // namespace

MeasuredStep measure_run(const Context& ctx, const MeasuredRunRequest& request, const SignalBlock& block, Repeat& r) {
  std::optional<Client> held;  // declared first: closed after the run is stopped
  auto start = start_run(ctx, request.start_args, held);
  if (start.exit_code != kExitOk) {
    if (request.start_args.contains("pin"))
      std::fputs("energyctl: no run was opened and the command was not run\n", stderr);
    return {start.exit_code, 0, false};
  }
  r.run_id = start.result.value("id", int64_t{-1});
  MeasuredStep step;
  step.opened = true;
  step.signal = block.take_pending();
  if (step.signal != 0) {
    r.exit_status = 128 + step.signal;
  } else {
    auto child = run_child(request.command, block, request.environment);
    step.command_s = static_cast<double>(child.end_ns - child.start_ns) / 1e9;
    record_child(child, r);
    step.signal = child.received_signal;
  }
  step.exit_code = stop_run(ctx, r, exit_tags(r));
  if (step.signal == 0) step.signal = block.take_pending();
  return step;
}

}  // namespace energy::cli
