// energyctl run [--name N] [--tag K=V]... [--repeat K] [--items N]
//               [--output FILE|-] [--json] [CLOCK OPTIONS] [--] CMD [ARGS...]
//
// --baseline D measures an idle baseline of D (baseline_measure.h) before
// the first run and ties every run to it (mark.start's `baseline`), so the
// reports give idle and net energy. Each run is tagged, when it stops, with
// its command's exit_status (shell convention) and, when a signal killed
// it, signal (e.g. SIGTERM).
//
// CLOCK OPTIONS (--cpu F, --gpu F, --emc F, --domain NAME=F, --governor G,
// --allow-offline-cpus; pin_args.h) pin the clocks for each run: they go in
// mark.start's `pin`, so the daemon pins them and reads them back before it
// opens the run (no sample of the run is at the previous clocks, and the
// pin's own writes are outside it), and restores them when the run stops.
// A refused pin opens no run: energyctl exits 1 without running CMD.
//
// Opens a run, executes CMD with energyctl's stdin, stdout and stderr,
// forwards SIGINT/SIGTERM/SIGHUP/SIGQUIT to it, and closes the run whatever
// happens to CMD; K times with --repeat, then statistics over the runs.
// The report goes to stderr (as `perf stat` and `time` do) so that CMD's
// stdout stays CMD's; --output FILE writes it to FILE instead, `--output -`
// to stdout after CMD has finished. Exit status: CMD's (128+N for a signal,
// 127 not found, 126 not executable). Documented in README.md and
// `energyctl --help`.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>

#include "baseline_measure.h"
#include "command.h"
#include "duration_arg.h"
#include "gate_args.h"
#include "measured_run.h"
#include "number_arg.h"
#include "pin_args.h"
#include "run_report.h"
#include "tag_arg.h"

namespace energy::cli {
namespace {

constexpr int kMaxRunRepeat = 10000;

struct RunArgs {
  std::string name;
  nlohmann::json tags = nlohmann::json::object();
  int repeat = 1;
  std::optional<double> items;
  bool json = false;
  std::string output;                              // empty: stderr; "-": stdout
  nlohmann::json pin = empty_pin_args();           // clocks.pin arguments without the lease
  std::optional<int64_t> baseline_ms;              // --baseline: measure an idle baseline this long first
  nlohmann::json gate = nlohmann::json::object();  // mark.start's quality gate arguments (gate_args.h)
  std::vector<std::string> command;
};

Result<int64_t> parse_baseline(const std::string& v) {
  auto ms = parse_duration_ms(v);
  if (!ms) return make_error(ErrorCode::kInvalid, "--baseline: " + ms.error().message);
  if (*ms > kMaxBaselineMs) return make_error(ErrorCode::kInvalid, "--baseline must be at most 1h, got '" + v + "'");
  return *ms;
}

// Applies one option of the table's run entry.
Status apply_option(const std::string& flag, const std::string& value, RunArgs& out) {
  if (is_pin_option(flag) || is_pin_flag(flag)) return apply_pin_option(flag, value, out.pin);
  if (is_gate_option(flag, true)) return apply_gate_option(flag, value, out.gate);
  if ((flag == "--name" || flag == "--output") && value.empty())
    return make_error(ErrorCode::kInvalid, flag + " needs a value, got ''");
  if (flag == "--name") {
    out.name = value;
  } else if (flag == "--output") {
    out.output = value;
  } else if (flag == "--tag") {
    return add_tag_arg(value, out.tags);
  } else if (flag == "--repeat") {
    auto r = parse_whole_option("--repeat", value, 1, kMaxRunRepeat);
    if (!r) return r.take_error();
    out.repeat = static_cast<int>(*r);
  } else if (flag == "--items") {
    auto n = parse_positive_option("--items", value);
    if (!n) return n.take_error();
    out.items = *n;
  } else if (flag == "--baseline") {
    auto ms = parse_baseline(value);
    if (!ms) return ms.take_error();
    out.baseline_ms = *ms;
  } else {
    return make_error(ErrorCode::kInvalid, "unknown option '" + flag + "' for run");
  }
  return ok_status();
}

// The table's parser stopped at "--" or at the first word: the words are CMD.
Result<RunArgs> parse_run_args(const Context& ctx, const Args& args) {
  RunArgs out;
  out.json = ctx.json;
  auto applied = for_each_option(
      args, [&](const std::string& flag, const std::string& value) { return apply_option(flag, value, out); });
  if (!applied) return applied.take_error();
  out.command = args.words;
  if (out.command.empty()) {
    return make_error(ErrorCode::kInvalid, "run needs a command: energyctl run [OPTIONS] -- CMD [ARGS...]");
  }
  return out;
}

std::string basename_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return base.empty() ? path : base;
}

std::string default_name(const RunArgs& a) {
  std::string name = a.name.empty() ? basename_of(a.command.front()) : a.name;
  return name.substr(0, protocol::kMaxNameChars);
}

// The user's tags, plus the command line (and the repeat) unless the user set them.
nlohmann::json run_tags(const RunArgs& a, int index) {
  nlohmann::json tags = a.tags;
  std::string line;
  for (const auto& w : a.command) line += (line.empty() ? "" : " ") + w;
  if (!tags.contains("command")) tags["command"] = line.substr(0, kMaxCommandTagChars);
  if (a.repeat > 1 && !tags.contains("repeat")) {
    tags["repeat"] = std::to_string(index) + "/" + std::to_string(a.repeat);
  }
  return tags;
}

// mark.start's arguments; with clock options, the pin the run opens under.
nlohmann::json start_args(const RunArgs& a, const std::string& name, const RunDocument& doc, int index) {
  nlohmann::json args = {{"name", name}, {"tags", run_tags(a, index)}};
  if (doc.baseline_run) args["baseline"] = *doc.baseline_run;
  if (pins_anything(a.pin)) args["pin"] = a.pin;
  if (a.items) args["items"] = *a.items;
  args.update(a.gate);
  // energyctl is CMD's parent: the run's processes are its own tree (CPU attribution).
  args["pid"] = static_cast<int64_t>(::getpid());
  return args;
}

// One repeat (measured_run.h): mark start (pinned first), CMD, mark stop.
MeasuredStep run_once(const Context& ctx, const RunArgs& a, const SignalBlock& block, RunDocument& doc) {
  Repeat r;
  r.index = static_cast<int>(doc.repeats.size()) + 1;
  MeasuredRunRequest request{start_args(a, doc.name, doc, r.index), a.command, {}};
  MeasuredStep step = measure_run(ctx, request, block, r);
  if (step.opened) doc.repeats.push_back(std::move(r));
  return step;
}

// CMD's status; a measurement failure turns a success into energyctl's error code.
int final_status(const RunDocument& doc, int measurement_exit) {
  if (doc.repeats.empty()) return measurement_exit;
  int cmd = doc.repeats.back().exit_status;
  return cmd == 0 && measurement_exit != kExitOk ? measurement_exit : cmd;
}

bool keep_repeating(const MeasuredStep& step, const RunDocument& doc, size_t repeats_before) {
  if (step.signal != 0 || step.exit_code != kExitOk) return false;
  return doc.repeats.size() > repeats_before && doc.repeats.back().exit_status == 0;
}

// --baseline: an idle baseline right before the runs, which they are tied
// to. False (doc.exit_status set) when it failed or was interrupted: then
// the command is not run.
bool take_baseline(const Context& ctx, int64_t ms, RunDocument& doc) {
  auto out = measure_baseline(ctx, BaselineRequest{ms, doc.name + " baseline"});
  if (out.exit_code == kExitOk) {
    doc.baseline_run = member(out.report, "run").value("id", int64_t{0});
    return true;
  }
  if (out.signal != 0) {
    doc.interrupted_by = signal_name(out.signal);
    std::fprintf(stderr, "energyctl: interrupted by %s while measuring the baseline; the command was not run\n",
                 doc.interrupted_by.c_str());
  }
  doc.exit_status = out.exit_code;
  return false;
}

// Repeats stop at the first interruption, failed command or failed mark:
// their statistics would describe a different workload.
void execute(const Context& ctx, const RunArgs& a, RunDocument& doc) {
  SignalBlock block;
  if (a.baseline_ms && !take_baseline(ctx, *a.baseline_ms, doc)) return;
  int measurement_exit = kExitOk;
  for (int i = 0; i < a.repeat; ++i) {
    size_t before = doc.repeats.size();
    MeasuredStep step = run_once(ctx, a, block, doc);
    if (step.exit_code != kExitOk) measurement_exit = step.exit_code;
    if (step.signal != 0) doc.interrupted_by = signal_name(step.signal);
    if (!keep_repeating(step, doc, before)) break;
  }
  doc.exit_status = final_status(doc, measurement_exit);
}

using FilePtr = std::unique_ptr<FILE, int (*)(FILE*)>;

int no_close(FILE*) { return 0; }

// Where the report goes, opened before the command runs so that a bad path
// costs no measurement; "e": the command does not inherit the descriptor.
Result<FilePtr> open_output(const std::string& output) {
  if (output.empty()) return FilePtr(stderr, no_close);
  if (output == "-") return FilePtr(stdout, no_close);
  FILE* f = std::fopen(output.c_str(), "we");
  if (f == nullptr) return errno_error("cannot open the report file " + output);
  return FilePtr(f, std::fclose);
}

int write_output(const RunArgs& a, const RunDocument& doc, FILE* out) {
  std::string text = a.json ? run_document_json(doc).dump(2) + "\n" : render_run_text(doc);
  bool written = std::fputs(text.c_str(), out) >= 0 && std::fflush(out) == 0;
  if (written) return kExitOk;
  std::fprintf(stderr, "energyctl: cannot write the report to %s\n%s", a.output.c_str(), text.c_str());
  return kExitFailed;
}

}  // namespace

int cmd_run(const Context& ctx, const Args& args) {
  auto a = parse_run_args(ctx, args);
  if (!a) return usage_error(ctx, a.error().message);
  auto out = open_output(a->output);
  if (!out) {
    print_error(out.error().describe());
    return kExitFailed;
  }
  RunDocument doc;
  doc.name = default_name(*a);
  doc.command = a->command;
  doc.repeat = a->repeat;
  doc.items = a->items;
  execute(ctx, *a, doc);
  if (doc.repeats.empty()) return doc.exit_status;
  int written = write_output(*a, doc, out->get());
  return doc.exit_status == kExitOk ? written : doc.exit_status;
}

}  // namespace energy::cli
