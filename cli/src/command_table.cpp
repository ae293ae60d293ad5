#include "command_table.h"

#include <algorithm>

#include "gate_args.h"

namespace energy::cli {
namespace {

// The clock options `pin` and `run` share (pin_args.h checks their values).
std::vector<OptionSpec> clock_options() {
  return {{"--cpu", "F", "pin the CPU clocks; F: min, max, 1.2GHz, 624.75MHz or LO:HI"},
          {"--gpu", "F", "pin the GPU clock"},
          {"--emc", "F", "pin the memory (EMC) clock"},
          {"--domain", "NAME=F", "pin one clock domain by name (e.g. cpu4=1.2GHz); repeatable"},
          {"--governor", "G", "the governor to set on the pinned domains"},
          {"--allow-offline-cpus", "", "pin a CPU policy even when some of its CPUs are offline"}};
}

std::vector<OptionSpec> with(std::vector<OptionSpec> own, const std::vector<OptionSpec>& more) {
  own.insert(own.end(), more.begin(), more.end());
  return own;
}

CommandSpec run_spec() {
  return {"run",
          {"[OPTIONS] [--] CMD [ARGS...]"},
          "measure CMD in a run and report its energy",
          with({{"--name", "N", "the run's name (default: CMD's file name)"},
                {"--tag", "K=V", "a tag for the run; repeatable"},
                {"--repeat", "K", "run CMD up to K times; mean, stddev, 95% CI (1-10000)"},
                {"--items", "N", "the work items per run: energy per item"},
                {"--output", "FILE|-", "write the report to FILE, or to stdout after CMD (-)", 'o'},
                {"--baseline", "D", "measure an idle baseline of D first (at most 1h)"}},
               with(clock_options(), gate_options(true))),
          cmd_run,
          true,
          {"CMD's stdin, stdout, stderr and signals are passed through; the report goes to stderr",
           "(or FILE); --json: the report as JSON. Exits with CMD's status (128+N signal, 127 not",
           "found, 126 not executable). Clock options pin the clocks before each run opens; runs",
           "are tagged exit_status (and signal). Options after CMD are CMD's."}};
}

CommandSpec pin_spec() {
  return {"pin",
          {"[CLOCK OPTIONS] (--for DURATION | --run ID|NAME | --hold)"},
          "pin clocks under a lease",
          with(clock_options(), {{"--for", "DURATION", "the lease ends after DURATION"},
                                 {"--run", "ID|NAME", "the lease ends when the run stops"},
                                 {"--hold", "", "the lease lasts until Ctrl-C (energyctl stays)"}}),
          cmd_pin};
}

CommandSpec export_spec() {
  return {"export",
          {"[--since T] [--until T] [--rail R] [--format csv|json | --csv | --json]",
           "RUN [--csv | --json | --format csv|json] [--rail R]"},
          "raw readings, or one run's report and its raw readings",
          {{"--since", "T", "from T: now, -15m, @EPOCH or 2026-11-22T03:00:00Z"},
           {"--until", "T", "up to T (default now)"},
           {"--rail", "R", "only rail R"},
           {"--format", "csv|json", "the output format (default csv)"},
           {"--csv", "", "CSV (the default); export RUN: the report as '# ' lines, then the readings"},
           {"--json", "", "JSON; export RUN: {\"report\": ..., \"rows\": [...]}"}},
          cmd_export};
}

CommandSpec plot_spec() {
  return {"plot",
          {"RUN [--out FILE]"},
          "a run's power per rail over time with its clock events marked, drawn by gnuplot",
          {{"--out", "FILE", "the image: .png, .svg or .pdf (default run-ID-power.png)"}},
          cmd_plot};
}

CommandSpec runs_spec() {
  return {"runs",
          {"[--name N] [--tag K=V]... [--since T] [--until T] [--state S] [--limit N]"},
          "runs newest first: id, name, state, start, duration, J, W, J/item, tags",
          {{"--name", "N", "only runs named N"},
           {"--tag", "K=V", "only runs with this tag; repeatable (all must match)"},
           {"--since", "T", "runs started at or after T"},
           {"--until", "T", "runs started at or before T"},
           {"--state", "S", "open, stopped or interrupted"},
           {"--limit", "N", "at most N runs (default 100, at most 10000)"}},
          cmd_runs};
}

CommandSpec sweeps_spec() {
  return {"sweeps",
          {"[--state S] [--limit N]"},
          "stored sweeps newest first: id, name, state, points measured, runs, created",
          {{"--state", "S", "running, interrupted or complete"},
           {"--limit", "N", "at most N sweeps (default 100, at most 1000)"}},
          cmd_sweeps};
}

// The options of running a sweep (sweep_args.h checks their values).
std::vector<OptionSpec> sweep_run_options() {
  return {
      {"--cpu", "LIST", "CPU clocks: 1.2G,min,max,mid,all,every:N,LO..HI,LO..HI/K (docs/SWEEPS.md)"},
      {"--gpu", "LIST", "GPU clocks, as --cpu"},
      {"--emc", "LIST", "memory (EMC) clocks, as --cpu"},
      {"--param", "NAME=V1,V2", "a parameter: {NAME} in CMD, ENERGY_SWEEP_NAME in its environment; repeatable"},
      {"--dvfs", "", "add the default governors (no pin) as a reference point per parameter value"},
      {"--repeat", "K", "measured runs per point (default 3, 1-1000)"},
      {"--ci", "PCT", "repeat a point until its 95% CI half-width is under PCT % of its mean"},
      {"--max-repeat", "K", "with --ci: runs per point at most (default 10, 2-1000); --search: default max(K,6)"},
      {"--search", "", "search for the minimum-energy clocks with a fraction of the grid's runs, per --param value"},
      {"--max-runs", "N", "with --search: stop after N measured runs, reporting the best point so far"},
      {"--warmup", "N", "uncounted runs first (0-100)"},
      {"--cooldown", "auto|D|off", "before each run: wait for idle power/temperature (auto), D, or not"},
      {"--baseline", "D", "an idle baseline of D at the start (and every 30 min): net energy"},
      {"--items", "N|{NAME}", "work items per run, or a parameter's value: energy per item"},
      {"--seed", "S", "the seed of the run order (default random; stored with the sweep)"},
      {"--name", "N", "the sweep's and its runs' name (default: CMD's file name)"},
      {"--resume", "ID", "finish an interrupted sweep without repeating its finished runs"},
      {"--progress", "text|json", "progress on stderr as text (default) or one JSON object a line, for programs"},
      {"--retries", "N", "re-run a run that fails its quality gate up to N times (default 2, 0-10)"},
      gate_options(false)[0],
      gate_options(false)[1]};
}

// Running a sweep takes its options before CMD (cmd_sweep_run); `sweep
// show` and `sweep export` dispatch on their first word (cmd_sweep) and
// read their options after the ID.
CommandSpec sweep_spec() {
  return {"sweep",
          {"[AXES] [OPTIONS] [--] CMD [ARGS...]", "--resume ID", "show ID [--json]", "export ID [--csv | --json]",
           "plot ID [--out DIR] [--format png|svg|pdf]"},
          "run CMD under many clock settings and parameter values, each repeated; a stored sweep's results",
          with(sweep_run_options(),
               {{"--csv", "", "sweep export: one row per run with its point's clocks and params (the default)"},
                {"--json", "", "sweep show, and a sweep's end: the results as JSON; sweep export: runs and results"},
                {"--out", "DIR", "sweep plot: the directory the images are written to (default: the current one)"},
                {"--format", "png|svg|pdf", "sweep plot: the image format (default png)"}}),
          cmd_sweep,
          true,
          {"Running: each run pins the point's clocks before it opens (DVFS points pin nothing), runs",
           "CMD as run does and is added to the sweep; progress on stderr, the results at the end.",
           "Ctrl-C closes the running run, restores the clocks, marks the sweep interrupted and exits",
           "130; --resume ID goes on. show: per point energy, net energy and time per item and power",
           "with 95% CIs; the minimum-energy point and those indistinguishable from it, the fastest",
           "point, the Pareto front, the EDP minimum, the saving against DVFS; a CPU x GPU table",
           "coloured as a heatmap on a terminal. An interrupted or incomplete sweep says so.",
           "plot: the heatmap, energy against time with the Pareto front, and energy against",
           "GPU frequency, drawn by gnuplot (apt install gnuplot-nox) into DIR; prints the files."}};
}

CommandSpec baseline_spec() {
  return {"baseline",
          {"[--duration D] [--name N]", "--show"},
          "measure the idle power; reports then show idle and net energy",
          {{"--duration", "D", "how long to measure (default 10s, at most 1h)"},
           {"--name", "N", "the baseline run's name"},
           {"--show", "", "print the current baseline instead"}},
          cmd_baseline};
}

std::vector<CommandSpec> make_table() {
  return {
      {"status", {""}, "board, rails with live V/I/P, sampling and storage health", {}, cmd_status},
      {"rails", {""}, "live V, I, P per rail; which rails form the module total", {}, cmd_rails},
      {"clocks", {""}, "CPU/GPU/EMC clock domains, governors, frequencies; temperatures", {}, cmd_clocks},
      {"mark",
       {"start NAME [--tag K=V]... [--items N] [--pid PID] [--min-coverage PCT] [--max-gap K] [--exclusive]",
        "stop NAME|ID [--items N]"},
       "open a run (prints its id) or close it (prints its energy per rail and in total)",
       with({{"--tag", "K=V", "a tag for the run (mark start); repeatable"},
             {"--items", "N", "the run's work items, stored with it: energy per item (stop's replaces start's)"},
             {"--pid", "PID", "the run's processes are PID's tree: its share of the CPU rails' energy"}},
            gate_options(true)),
       cmd_mark},
      run_spec(),
      runs_spec(),
      {"show", {"RUN"}, "a run's report (by id, or the newest run of that name)", {}, cmd_show},
      {"compare",
       {"RUN RUN...", "--by TAG [--name N] [--tag K=V]... [--limit N]"},
       "runs side by side with the difference to the first in %; --by: groups of runs by a tag's value",
       {{"--by", "TAG", "group the stopped runs by TAG's value: means, 95% CIs, difference from the first group"},
        {"--name", "N", "with --by: only runs named N"},
        {"--tag", "K=V", "with --by: only runs with this tag; repeatable"},
        {"--limit", "N", "with --by: the newest N stopped runs (default 1000, at most 10000)"}},
       cmd_compare},
      export_spec(),
      plot_spec(),
      baseline_spec(),
      sweeps_spec(),
      sweep_spec(),
      {"live",
       {"[--interval D] [--count N]"},
       "a tegrastats-like view: rails V/A/W, clocks, temperatures",
       {{"--interval", "D", "refresh every D (default 1s, 100ms..1h)"}, {"--count", "N", "stop after N refreshes"}},
       cmd_live},
      pin_spec(),
      {"unpin", {"LEASE...", "--all"}, "restore the clocks a lease pinned", {{"--all", "", "every lease"}}, cmd_unpin},
      {"help", {"[COMMAND]"}, "this text, or a command's arguments and options", {}, cmd_help}};
}

}  // namespace

const std::vector<CommandSpec>& command_table() {
  static const std::vector<CommandSpec> kTable = make_table();
  return kTable;
}

const CommandSpec* find_command(const std::string& name) {
  for (const auto& c : command_table()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

const std::vector<OptionSpec>& global_options() {
  static const std::vector<OptionSpec> kOptions = {
      {"--socket", "PATH", "energyd's socket (else $ENERGYD_SOCKET, else /run/energyd/energyd.sock)"},
      {"--json", "", "print the daemon's JSON instead of tables"},
      {"--timeout", "D", "how long to wait for each reply (default 10s; $ENERGYCTL_TIMEOUT)"},
      {"--connect-timeout", "D",
       "how long to wait for energyd to take the connection (default 5s; $ENERGYCTL_CONNECT_TIMEOUT)"},
      {"--help", "", "this text", 'h'},
      {"--version", "", "energyctl's version"}};
  return kOptions;
}

std::vector<OptionSpec> common_options(const CommandSpec& command) {
  std::vector<OptionSpec> out;
  bool own_json = std::any_of(command.options.begin(), command.options.end(),
                              [](const OptionSpec& o) { return o.name == "--json"; });
  if (!own_json) out.push_back({"--json", "", "print the daemon's JSON instead of tables"});
  out.push_back({"--help", "", "this text", 'h'});
  return out;
}

std::vector<OptionSpec> all_options(const CommandSpec& command) {
  return with(command.options, common_options(command));
}

}  // namespace energy::cli
