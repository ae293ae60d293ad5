// accuracy_bench: energyd's run energy and its precision against the
// simulator's exact ground truth (QUALITY.md M1; docs/PERFORMANCE.md
// "Accuracy").
//
// Two boards, each at its default sampling period: a simulated Orin Nano
// (jetson-orin-nano, L4T 36, 100 ms) and a Nano (jetson-nano-4gb, L4T 32,
// 50 ms: its monitors average over about 54 ms). For each case it starts the
// live board (energyd-sim run, FUSE, --cpu-load 0, its own --seed) and the
// real energyd on it, drives a load through the simulator's control socket,
// and marks runs through the C++ client as a user would: a 60 s run with
// 10 s runs marked inside it from a second connection (overlapping runs are a
// feature), then 1 s runs on their own. Each run ends 0-100 ms after its
// nominal length (random), so its edges do not keep one phase against the
// ticks.
//
// Per run and per rail (and for the module total) it compares:
//   - energyd's figure (mark.stop's report), its precision_j and accuracy_j,
//   - the right-rectangle sum most tools use (each reading x the time since
//     the previous one, tegrastats / jtop accumulators) over the same stored
//     readings (the `export` verb),
// with the simulator's `energy` over exactly [start_ns, stop_ns] (both
// CLOCK_BOOTTIME ns). A run is contained when |error| <= precision_j.
//
// Loads (GPU load in per-mille; the simulator adds its 3 % ripple at
// 3.1-9.1 Hz to every rail):
//   constant      700, held
//   step          a new level, uniform in 0..1000, every 1-4 s (uniform)
//   bursty        1000 for 20-300 ms, then 0 for 20-300 ms (uniform, seeded):
//                 bursts and pauses shorter than the sampling period, never
//                 in step with it
//   study         `energyd-sim workload --preset cpu-heavy --batch 4`: per
//                 batch 30 ms idle (the host waiting for input, A51), 4
//                 threads of CPU pre-processing (about 27 ms), 100 ms of
//                 launch and copies, about 27 ms of GPU work; the CPU load
//                 steps with the phases too
//   vi-step       the module's input rail held (`set_rail`) at 5 V x 1 A and
//                 19 V x 8 A in turn, 1-3 s each (uniform): bus voltage and
//                 current step together
// With --all, also:
//   bursty-sim    `energyd-sim workload --pattern bursty`: bursts of 4 units
//                 (about 42 ms) and 50 ms pauses
//   bursty-10ms   `bursty` with energyd sampling every 10 ms
//   bursty-snapshots  `bursty` with `sensor_averaging: keep`: the chips stay at
//                 the driver's default, each reading one conversion (how
//                 every other tool reads them)
// Every other case runs with energyd's default averaging, readings being
// running means integrated with the averaging correction
// (energy/averaging_correction.h) and the product-of-averages term
// (energy/integrate.h).
// Runs per case: 10 x 1 s (20 for bursty-sim), 5 x 10 s inside 1 x 60 s;
// about 15 minutes for the default cases of both boards.
//
// Usage: accuracy_bench [--quick] [--all] [--rails] [--board orin-nano|nano]... [--case NAME]...
//                       [--runs-1s N] [--csv FILE]
// Prints a Markdown table: per board, case and run length the module total's
// figures and the share of every rail's runs that were contained (--rails: a
// row per rail too; --quick: 3 x 1 s and 2 x 10 s runs per case, to try it;
// --runs-1s: that many 1 s runs instead; --csv: every run's figures).
// Needs /dev/fuse and fusermount3 (or root), like the FUSE integration tests.
#include <sys/mount.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_args.h"
#include "energy/client.h"
#include "harness.h"

using energy::testing::ChildProcess;
using energy::testing::SimControl;
using energy::testing::TempDir;
using json = nlohmann::json;
using std::chrono::milliseconds;

namespace {

enum class Load { kConstant, kStep, kBursty, kBurstySim, kStudy, kJointStep };

struct BoardKind {
  std::string name;        // as --board takes it
  std::string id, l4t;     // energyd-sim run --board, --l4t
  int period_ms;           // energyd's default sampling period there
  std::string input_rail;  // the module's input: the total, and the rail vi-step holds
};

const BoardKind kOrinNano{"orin-nano", "jetson-orin-nano", "36", 100, "VDD_IN"};
const BoardKind kNano{"nano", "jetson-nano-4gb", "32", 50, "POM_5V_IN"};

struct Case {
  std::string name;
  Load load;
  int period_ms;                    // 0: the board's default
  int runs_1s, runs_10s, runs_60s;  // 10 s runs are marked inside the 60 s runs
  uint64_t seed;                    // the simulator's (ripple frequencies and phases) and the load's
  bool snapshots = false;           // sensor_averaging: keep (the driver's snapshots), else energyd's default
  bool extra = false;               // only with --all
  BoardKind board = kOrinNano;
};

std::vector<Case> all_cases() {
  return {{"constant", Load::kConstant, 0, 10, 5, 1, 1},
          {"step", Load::kStep, 0, 10, 5, 1, 2},
          {"bursty", Load::kBursty, 0, 10, 5, 1, 3},
          {"study", Load::kStudy, 0, 10, 5, 1, 6},
          {"vi-step", Load::kJointStep, 0, 10, 5, 1, 7},
          {"bursty-sim", Load::kBurstySim, 0, 20, 5, 1, 4, false, true},
          {"bursty-10ms", Load::kBursty, 10, 10, 5, 1, 5, false, true},
          {"bursty-snapshots", Load::kBursty, 0, 10, 5, 1, 3, true, true}};
}

// ---- a live board with energyd on it ------------------------------------------

class Board {
 public:
  Board(const Case& c) {
    std::string seed = std::to_string(c.seed);
    sim_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{ENERGYD_SIM_BIN, "run", "--board", c.board.id, "--l4t", c.board.l4t, "--mount", mnt(),
                                 "--control", ctl(), "--cpu-load", "0", "--seed", seed},
        tmp_.path() + "/sim.log");
    if (!energy::testing::wait_for_socket(ctl(), milliseconds(15000))) return;
    std::vector<std::string> args{ENERGYD_BIN,
                                  "--root",
                                  mnt(),
                                  "--state-dir",
                                  tmp_.path() + "/state",
                                  "--socket",
                                  sock(),
                                  "--sample-period-ms",
                                  std::to_string(c.period_ms > 0 ? c.period_ms : c.board.period_ms),
                                  "--flush-interval-ms",
                                  "200"};
    if (c.snapshots) {
      std::ofstream(tmp_.path() + "/energyd.yaml") << "sensor_averaging: keep\n";
      args.insert(args.end(), {"--config", tmp_.path() + "/energyd.yaml"});
    }
    daemon_ = std::make_unique<ChildProcess>(args, tmp_.path() + "/energyd.log");
    ready_ = energy::testing::wait_for_socket(sock(), milliseconds(10000));
  }
  ~Board() {
    if (daemon_) daemon_->stop(SIGTERM);
    if (sim_) sim_->stop(SIGTERM);
    ::umount2(mnt().c_str(), MNT_DETACH);  // in case the simulator could not unmount
  }
  bool ready() const { return ready_; }
  std::string why() const {
    return energy::testing::read_file(tmp_.path() + "/sim.log") +
           energy::testing::read_file(tmp_.path() + "/energyd.log");
  }
  std::string mnt() const { return tmp_.path() + "/board"; }
  std::string ctl() const { return tmp_.path() + "/sim.ctl"; }
  std::string sock() const { return tmp_.path() + "/energyd.sock"; }
  std::string dir() const { return tmp_.path(); }

 private:
  TempDir tmp_;
  std::unique_ptr<ChildProcess> sim_;
  std::unique_ptr<ChildProcess> daemon_;
  bool ready_ = false;
};

// ---- loads ---------------------------------------------------------------------

class LoadDriver {
 public:
  LoadDriver(const Board& board, const Case& c) : board_(board) {
    if (c.load == Load::kBurstySim || c.load == Load::kStudy) {
      std::vector<std::string> argv = {ENERGYD_SIM_BIN, "workload", "--control", board.ctl(), "--units", "1000000"};
      const std::vector<std::string> load = c.load == Load::kStudy
                                                ? std::vector<std::string>{"--preset", "cpu-heavy", "--batch", "4"}
                                                : std::vector<std::string>{"--pattern", "bursty"};
      argv.insert(argv.end(), load.begin(), load.end());
      workload_ = std::make_unique<ChildProcess>(argv, board.dir() + "/workload.log");
      return;
    }
    thread_ = std::thread([this, c] { drive(c); });
  }
  ~LoadDriver() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (workload_) workload_->stop(SIGTERM);  // resets the GPU load
  }

 private:
  void drive(const Case& c) {
    SimControl sim(board_.ctl());
    std::mt19937_64 rng(c.seed);
    std::uniform_real_distribution<double> step_hold(1.0, 4.0), burst(0.02, 0.3), joint_hold(1.0, 3.0);
    if (c.load == Load::kJointStep) {
      drive_joint_steps(sim, c, rng, joint_hold);
      return;
    }
    if (c.load == Load::kConstant) sim.call("set_gpu_load", {{"permille", 700}});
    for (bool on = false; !stop_ && c.load != Load::kConstant; on = !on) {
      int permille = c.load == Load::kStep ? static_cast<int>(rng() % 1001) : on ? 1000 : 0;
      sim.call("set_gpu_load", {{"permille", permille}});
      sleep_unless_stopped(c.load == Load::kStep ? step_hold(rng) : burst(rng));
    }
    while (!stop_) sleep_unless_stopped(0.05);
  }
  // 5 V x 1 A and 19 V x 8 A in turn on the input rail, then released.
  void drive_joint_steps(SimControl& sim, const Case& c, std::mt19937_64& rng,
                         std::uniform_real_distribution<double>& hold) {
    for (bool high = false; !stop_; high = !high) {
      sim.call("set_rail", {{"rail", c.board.input_rail}, {"mv", high ? 19000 : 5000}, {"ma", high ? 8000 : 1000}});
      sleep_unless_stopped(hold(rng));
    }
    sim.call("clear_rail", {{"rail", c.board.input_rail}});
  }
  void sleep_unless_stopped(double seconds) {
    using Clock = std::chrono::steady_clock;
    auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    while (!stop_ && Clock::now() < until)
      std::this_thread::sleep_until(std::min(until, Clock::now() + milliseconds(50)));
  }

  const Board& board_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::unique_ptr<ChildProcess> workload_;
};

// ---- runs ------------------------------------------------------------------------

struct MarkedRun {
  double nominal_s = 0;
  json report;  // mark.stop's report
};

// `count` runs of `seconds` (+ 0-100 ms) back to back on one connection.
std::vector<MarkedRun> mark_runs(const std::string& sock, int count, double seconds, uint64_t seed) {
  std::vector<MarkedRun> out;
  auto client = energy::Client::connect(sock);
  if (!client) return out;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> extra(0.0, 0.1), pause(0.2, 0.6);
  for (int i = 0; i < count; ++i) {
    auto run = client->mark_start("accuracy-" + std::to_string(static_cast<int>(seconds)) + "s");
    if (!run) continue;
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds + extra(rng)));
    auto report = client->mark_stop(run->id);
    if (report) out.push_back({seconds, *report});
    std::this_thread::sleep_for(std::chrono::duration<double>(pause(rng)));
  }
  return out;
}

std::vector<MarkedRun> mark_all(const Case& c, const std::string& sock) {
  std::vector<MarkedRun> tens;
  std::thread inner([&] {
    std::this_thread::sleep_for(milliseconds(500));
    tens = mark_runs(sock, c.runs_10s, 10.0, c.seed * 7 + 1);
  });
  std::vector<MarkedRun> runs = mark_runs(sock, c.runs_60s, 60.0, c.seed * 7 + 2);
  inner.join();
  std::vector<MarkedRun> ones = mark_runs(sock, c.runs_1s, 1.0, c.seed * 7 + 3);
  runs.insert(runs.end(), tens.begin(), tens.end());
  runs.insert(runs.end(), ones.begin(), ones.end());
  return runs;
}

// ---- the stored readings ---------------------------------------------------------

using Series = std::map<std::string, std::vector<std::pair<int64_t, double>>>;  // rail -> (t_ns, uW), valid only

Series export_readings(const std::string& sock) {
  Series out;
  auto client = energy::Client::connect(sock, std::chrono::seconds(120));  // a page of 10 ms sweeps takes a while
  if (!client) return out;
  int64_t since = 0;
  for (;;) {
    auto page = client->call("export", {{"since_wall_ns", since}});
    if (!page) {
      std::fprintf(stderr, "accuracy_bench: export: %s\n", page.error().describe().c_str());
      break;
    }
    for (const auto& row : (*page)["rows"]) {
      if (row.contains("power_uw")) out[row["rail"]].emplace_back(row["t_ns"], row["power_uw"].get<double>());
    }
    if (!page->value("truncated", false)) break;
    since = (*page)["next_since_wall_ns"];
  }
  return out;
}

// Right rectangles over [from, to]: each reading times the time since the
// previous one (the first reading of the run is the start mark's).
double right_rectangle_uj(const std::vector<std::pair<int64_t, double>>& pts, int64_t from, int64_t to) {
  double sum = 0;
  int64_t prev = -1;
  for (const auto& [t, uw] : pts) {
    if (t < from || t > to) continue;
    if (prev >= 0) sum += uw * static_cast<double>(t - prev) / 1e9;
    prev = t;
  }
  return sum;
}

// ---- comparison ------------------------------------------------------------------

struct Outcome {
  std::string rail;  // "total" or a label
  double seconds = 0;
  double truth_j = 0, energyd_j = 0, precision_j = 0, accuracy_j = 0, rect_j = 0;
  json parts;  // precision_parts_j
  double error_pct() const { return 100.0 * (energyd_j - truth_j) / truth_j; }
  double rect_error_pct() const { return 100.0 * (rect_j - truth_j) / truth_j; }
  bool contained() const { return std::abs(energyd_j - truth_j) <= precision_j; }
};

double truth_j(SimControl& sim, const std::string& rail, int64_t from, int64_t to) {
  json r = sim.call("energy", {{"rail", rail}, {"from_ns", from}, {"to_ns", to}});
  if (!r.contains("energy_uj")) std::fprintf(stderr, "accuracy_bench: energy %s: %s\n", rail.c_str(), r.dump().c_str());
  return r.value("energy_uj", std::nan("")) / 1e6;
}

Outcome outcome(const std::string& rail, double seconds, double truth, const json& stats, double rect_j) {
  return {rail,
          seconds,
          truth,
          stats["energy_j"].get<double>(),
          stats.value("precision_j", stats["error_bound_j"].get<double>()),
          stats.value("accuracy_j", stats["error_bound_j"].get<double>()),
          rect_j,
          stats.value("precision_parts_j", json::object())};
}

std::vector<Outcome> compare(const MarkedRun& run, const Series& readings, SimControl& sim) {
  const json& rep = run.report;
  int64_t from = rep["run"]["start_ns"], to = rep["run"]["stop_ns"];
  std::vector<Outcome> out;
  std::map<int64_t, double> total_points;
  for (const auto& r : rep["rails"]) {
    std::string label = r["label"];
    auto it = readings.find(label);
    if (it == readings.end()) continue;
    out.push_back(outcome(label, run.nominal_s, truth_j(sim, label, from, to), r,
                          right_rectangle_uj(it->second, from, to) / 1e6));
    if (!r["in_total"].get<bool>()) continue;
    for (const auto& [t, uw] : it->second) total_points[t] += uw;
  }
  std::vector<std::pair<int64_t, double>> total(total_points.begin(), total_points.end());
  out.push_back(outcome("total", run.nominal_s, truth_j(sim, "total", from, to), rep["total"],
                        right_rectangle_uj(total, from, to) / 1e6));
  return out;
}

// ---- summary ---------------------------------------------------------------------

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Row {
  int n = 0, contained = 0;
  double sum_abs = 0, max_abs = 0, rect_sum = 0, rect_max = 0;
  std::vector<double> precision_pct, accuracy_pct;
  void add(const Outcome& o) {
    n += 1;
    contained += o.contained() ? 1 : 0;
    sum_abs += std::abs(o.error_pct());
    max_abs = std::max(max_abs, std::abs(o.error_pct()));
    precision_pct.push_back(100.0 * o.precision_j / o.truth_j);
    accuracy_pct.push_back(100.0 * o.accuracy_j / o.truth_j);
    rect_sum += std::abs(o.rect_error_pct());
    rect_max = std::max(rect_max, std::abs(o.rect_error_pct()));
  }
  double max_precision() const { return *std::max_element(precision_pct.begin(), precision_pct.end()); }
};

struct Tally {
  int n = 0, contained = 0;
  void add(const Outcome& o) { n += 1, contained += o.contained() ? 1 : 0; }
};

void print_header() {
  std::printf(
      "| board | case | run | N | mean / max abs error | precision median / max | contained (total; rails) | accuracy "
      "median | right-rectangle mean / max abs error |\n|---|---|---|---|---|---|---|---|---|\n");
}

void print_row(const std::string& board, const std::string& name, double seconds, const Row& r, const Tally& rails) {
  std::printf("| %s | %s | %.0f s | %d | %.3f / %.3f %% | %.3f / %.3f %% | %d/%d; %d/%d | %.2f %% | %.3f / %.3f %% |\n",
              board.c_str(), name.c_str(), seconds, r.n, r.sum_abs / r.n, r.max_abs, median(r.precision_pct),
              r.max_precision(), r.contained, r.n, rails.contained, rails.n, median(r.accuracy_pct), r.rect_sum / r.n,
              r.rect_max);
}

// One row per run length: the module total's figures, and the share of the
// single rails' runs that were contained.
void print_rows(const std::string& board, const std::string& name, const std::vector<Outcome>& outcomes) {
  std::map<double, Row> total;
  std::map<double, Tally> rails;
  for (const auto& o : outcomes) {
    if (o.rail == "total") total[o.seconds].add(o);
    if (o.rail != "total") rails[o.seconds].add(o);
  }
  for (const auto& [seconds, r] : total) print_row(board, name, seconds, r, rails[seconds]);
  std::fflush(stdout);
}

// Per rail, with --rails.
void print_rail_rows(const std::string& board, const std::string& name, const std::vector<Outcome>& outcomes) {
  std::map<std::pair<std::string, double>, Row> rows;
  for (const auto& o : outcomes) {
    if (o.rail != "total") rows[{o.rail, o.seconds}].add(o);
  }
  for (const auto& [key, r] : rows) print_row(board, name + " " + key.first, key.second, r, Tally{r.n, r.contained});
  std::fflush(stdout);
}

// Every run of a board: the total's and the rails' containment.
void print_board_summary(const std::string& board, const std::vector<Outcome>& outcomes) {
  Tally total, rails;
  for (const auto& o : outcomes) (o.rail == "total" ? total : rails).add(o);
  std::printf("| %s | **all cases** | all | %d | | | %d/%d; %d/%d | | |\n", board.c_str(), total.n, total.contained,
              total.n, rails.contained, rails.n);
  std::fflush(stdout);
}

void write_csv(std::ofstream& csv, const std::string& board, const std::string& name,
               const std::vector<Outcome>& outcomes) {
  for (const auto& o : outcomes) {
    csv << board << ',' << name << ',' << o.seconds << ',' << o.rail << ',' << o.truth_j << ',' << o.energyd_j << ','
        << o.precision_j << ',' << o.accuracy_j << ',' << o.rect_j << ',' << o.parts.value("sampling", 0.0) << ','
        << o.parts.value("resolution", 0.0) << ',' << o.parts.value("averaging", 0.0) << ','
        << o.parts.value("product", 0.0) << '\n';
  }
}

std::vector<Outcome> run_case(const Case& c) {
  Board board(c);
  if (!board.ready()) {
    std::fprintf(stderr, "accuracy_bench: %s: the board did not start:\n%s\n", c.name.c_str(), board.why().c_str());
    return {};
  }
  std::vector<MarkedRun> runs;
  {
    LoadDriver load(board, c);
    std::this_thread::sleep_for(milliseconds(1000));
    runs = mark_all(c, board.sock());
  }
  std::this_thread::sleep_for(milliseconds(1000));  // the flush interval commits the last sweeps
  Series readings = export_readings(board.sock());
  SimControl sim(board.ctl());
  std::vector<Outcome> out;
  for (const auto& run : runs) {
    auto o = compare(run, readings, sim);
    out.insert(out.end(), o.begin(), o.end());
  }
  return out;
}

}  // namespace

// --runs-1s N: a whole number 0..100000; -2 for anything else (usage).
int parse_runs(const char* text) {
  auto v = energy::bench::whole_number(text, 0, 100000);
  return v ? static_cast<int>(*v) : -2;
}

struct Options {
  std::vector<std::string> cases, boards;
  std::string csv_path;
  bool quick = false, rails = false, all = false;
  int runs_1s = -1;
};

// 0 on success, else the exit code (2: usage).
int parse_options(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    bool has_value = i + 1 < argc;
    if (flag == "--quick") {
      o.quick = true;
    } else if (flag == "--rails") {
      o.rails = true;
    } else if (flag == "--all") {
      o.all = true;
    } else if (flag == "--case" && has_value) {
      o.cases.push_back(argv[++i]);
    } else if (flag == "--board" && has_value) {
      o.boards.push_back(argv[++i]);
    } else if (flag == "--csv" && has_value) {
      o.csv_path = argv[++i];
    } else if (flag == "--runs-1s" && has_value && (o.runs_1s = parse_runs(argv[++i])) >= 0) {
      continue;
    } else {
      std::fprintf(stderr,
                   "usage: accuracy_bench [--quick] [--all] [--rails] [--board orin-nano|nano]... [--case NAME]... "
                   "[--runs-1s N] [--csv FILE]\n");
      return 2;
    }
  }
  return 0;
}

bool chosen(const std::vector<std::string>& only, const std::string& name) {
  return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
}

int run_bench(int argc, char** argv) {
  Options opt;
  if (int rc = parse_options(argc, argv, opt); rc != 0) return rc;
  std::ofstream csv;
  if (!opt.csv_path.empty())
    csv.open(opt.csv_path), csv << "board,case,run_s,rail,truth_j,energyd_j,precision_j,accuracy_j,right_rectangle_j,"
                                   "sampling_j,resolution_j,averaging_j,product_j\n";
  print_header();
  for (const BoardKind& board : {kOrinNano, kNano}) {
    if (!chosen(opt.boards, board.name)) continue;
    std::vector<Outcome> every;
    for (const auto& c : all_cases()) {
      if (!chosen(opt.cases, c.name) || (c.extra && !opt.all && opt.cases.empty())) continue;
      Case run = c;
      run.board = board;
      if (opt.quick) run.runs_1s = 3, run.runs_10s = 2, run.runs_60s = 0;
      if (opt.runs_1s >= 0) run.runs_1s = opt.runs_1s;
      auto outcomes = run_case(run);
      print_rows(board.name, c.name, outcomes);
      if (opt.rails) print_rail_rows(board.name, c.name, outcomes);
      if (csv.is_open()) write_csv(csv, board.name, c.name, outcomes);
      every.insert(every.end(), outcomes.begin(), outcomes.end());
    }
    print_board_summary(board.name, every);
  }
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run_bench(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accuracy_bench: %s\n", e.what());
    return 1;
  }
}
