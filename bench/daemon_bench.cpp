// daemon_bench: the whole daemon's cost and timing on a simulated board.
//
// For each case it writes a static board tree (energyd-sim create), starts
// the real energyd on it, lets it settle, then measures over a window:
//   - CPU per tick: the CPU time of every energyd thread (schedstat, ns)
//     divided by the ticks taken: sampling, storage and the event loop;
//     beside it the floor (floor_us_per_tick) and their ratio;
//   - tick lateness p50/p99/max (energyd's own histogram) and missed ticks;
//   - RSS now and at peak (VmRSS, VmHWM);
//   - bytes written to storage per day (/proc/PID/io write_bytes) and the
//     database's growth per day;
//   - the board context poller (thread "context"): its CPU per clock poll
//     (thermal polls, one every tenth, included) and per tick; cases with
//     `clock_poll_ms: 0` and `thermal_poll_ms: 0` give the daemon without it.
// "busy" cases run one spinning thread per core during the window.
//
// The tree's files are regular files (reads cost what a page-cache read
// costs, not an I2C transaction). For the 1 ms cases the hwmon
// update_interval files are set to 1 ms (the INA3221 with samples=1 and
// 140 us conversions), which energyd requires of a 1 ms period.
//
// Boards: Orin Nano L4T 36 (3 hwmon rails), AGX Xavier L4T 35 (6 hwmon
// rails), TX2 L4T 32 (12 IIO rails; no board in the reference has 9).
//
// Usage: daemon_bench [--seconds N] [--case NAME]... ; prints a Markdown table.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_args.h"
#include "energy/client.h"
#include "harness.h"
#include "proc_io.h"

namespace fs = std::filesystem;
using energy::testing::ChildProcess;
using energy::testing::run_command;

namespace {

struct Case {
  std::string name;
  std::string board;
  std::string l4t;
  int period_ms;
  bool busy;
  std::vector<std::string> flags = {};  // extra energyd flags
  std::string config = {};              // energyd.yaml text, if any
};

struct ProcSnapshot {
  int64_t cpu_ns = 0;
  int64_t context_cpu_ns = 0;  // the "context" thread
  int64_t write_bytes = 0;
  int64_t rss_kb = 0;
  int64_t hwm_kb = 0;
};

int64_t field_kb(const std::string& status, const std::string& key) {
  auto at = status.find(key);
  return at == std::string::npos ? 0 : std::stoll(status.substr(at + key.size()));
}

int64_t thread_cpu_ns(const std::string& task_dir) {
  std::ifstream in(task_dir + "/schedstat");
  int64_t on_cpu = 0;
  in >> on_cpu;
  return on_cpu;
}

ProcSnapshot snapshot(pid_t pid) {
  ProcSnapshot s;
  std::string proc = "/proc/" + std::to_string(pid);
  for (const auto& t : fs::directory_iterator(proc + "/task")) {
    int64_t ns = thread_cpu_ns(t.path().string());
    s.cpu_ns += ns;
    std::string comm;
    std::getline(std::ifstream(t.path().string() + "/comm"), comm);
    if (comm == "context") s.context_cpu_ns += ns;
  }
  s.write_bytes = std::max<int64_t>(0, energy::bench::proc_io(std::to_string(pid)).write_bytes);
  std::stringstream status;
  status << std::ifstream(proc + "/status").rdbuf();
  s.rss_kb = field_kb(status.str(), "VmRSS:");
  s.hwm_kb = field_kb(status.str(), "VmHWM:");
  return s;
}

int64_t db_bytes(const std::string& state_dir) {
  int64_t total = 0;
  for (const char* f : {"/energyd.db", "/energyd.db-wal"}) {
    std::error_code ec;
    auto n = fs::file_size(state_dir + f, ec);
    if (!ec) total += static_cast<int64_t>(n);
  }
  return total;
}

void set_update_intervals(const std::string& root, const std::string& value) {
  for (auto it = fs::recursive_directory_iterator(root + "/sys/devices", fs::directory_options::none);
       it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_symlink())
      it.disable_recursion_pending();
    else if (it->path().filename() == "update_interval")
      std::ofstream(it->path()) << value << "\n";
  }
}

class BusyCores {
 public:
  explicit BusyCores(bool on) {
    if (!on) return;
    for (unsigned i = 0; i < std::thread::hardware_concurrency(); ++i) {
      threads_.emplace_back([this] {
        volatile uint64_t x = 0;
        while (!stop_) x = x + 1;
      });
    }
  }
  ~BusyCores() {
    stop_ = true;
    for (auto& t : threads_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

// The floor: one thread that wakes on a timerfd at the same period and
// preads the same rail files the daemon reads, nothing else. Its CPU per tick
// is what any sampler at that period pays on this machine (wake-up, syscalls);
// the daemon's own work is what it costs beyond this.
double floor_us_per_tick(const std::vector<std::string>& files, int period_ms, int64_t ticks) {
  std::vector<int> fds;
  fds.reserve(files.size());
  for (const auto& f : files) fds.push_back(::open(f.c_str(), O_RDONLY | O_CLOEXEC));
  int tfd = ::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
  itimerspec spec{{period_ms / 1000, (period_ms % 1000) * 1000000L}, {0, 1}};
  ::timerfd_settime(tfd, 0, &spec, nullptr);
  auto cpu = [] {
    std::ifstream in("/proc/thread-self/schedstat");
    int64_t ns = 0;
    in >> ns;
    return ns;
  };
  int64_t before = cpu();
  long sink = 0;
  for (int64_t i = 0; i < ticks; ++i) {
    uint64_t n = 0;
    if (::read(tfd, &n, sizeof n) != static_cast<ssize_t>(sizeof n)) break;
    for (int fd : fds) {
      char buf[32];
      ssize_t got = ::pread(fd, buf, sizeof buf - 1, 0);
      buf[got > 0 ? got : 0] = '\0';
      sink += std::strtol(buf, nullptr, 10);
    }
  }
  int64_t after = cpu();
  ::close(tfd);
  for (int fd : fds) ::close(fd);
  (void)sink;
  return static_cast<double>(after - before) / 1e3 / static_cast<double>(ticks);
}

std::vector<std::string> rail_files(const std::string& socket, const std::string& root) {
  std::vector<std::string> files;
  auto c = energy::Client::connect(socket);
  if (!c) return files;
  auto r = c->call("rails");
  if (!r) return files;
  for (const auto& rail : (*r)["rails"]) {
    for (const char* k : {"voltage", "current", "power"}) {
      std::string f = rail["files"].value(k, "");
      if (!f.empty()) files.push_back(root + f);
    }
  }
  return files;
}

struct Row {
  Case c;
  double floor_us_per_tick = 0;
  size_t rails = 0;
  int64_t ticks = 0, missed = 0, p50 = 0, p99 = 0, max = 0;
  double cpu_us_per_tick = 0, written_mb_day = 0, db_mb_day = 0, seconds = 0;
  int64_t clock_polls = 0;
  double context_us_per_poll = 0, context_us_per_tick = 0;
  int64_t rss_kb = 0, hwm_kb = 0;
  std::string error;
};

nlohmann::json status(const std::string& socket) {
  auto c = energy::Client::connect(socket);
  if (!c) return {};
  auto r = c->call("status");
  return r ? *r : nlohmann::json{};
}

bool wait_ready(const std::string& socket) {
  return energy::testing::wait_for_socket(socket, std::chrono::seconds(20)) && !status(socket).is_null();
}

// A fresh board and daemon per case; the state directory is on disk.
Row measure(const Case& c, int seconds, const std::string& energyd, const std::string& sim) {
  Row row;
  row.c = c;
  char tmpl[] = "/var/tmp/energyd-bench-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) return row.error = "mkdtemp failed", row;
  std::string dir = tmpl;
  auto made = run_command({sim, "create", "--board", c.board, "--l4t", c.l4t, "--root", dir + "/board"});
  if (made.exit_code != 0) return row.error = "energyd-sim: " + made.err, row;
  if (c.period_ms < 7) set_update_intervals(dir + "/board", "1");
  std::string socket = dir + "/energyd.sock";
  {
    std::vector<std::string> argv = {energyd,
                                     "--root",
                                     dir + "/board",
                                     "--state-dir",
                                     dir + "/state",
                                     "--socket",
                                     socket,
                                     "--sample-period-ms",
                                     std::to_string(c.period_ms),
                                     "--log-level",
                                     "warn"};
    argv.insert(argv.end(), c.flags.begin(), c.flags.end());
    if (!c.config.empty()) {
      std::ofstream(dir + "/energyd.yaml") << c.config;
      argv.insert(argv.end(), {"--config", dir + "/energyd.yaml"});
    }
    ChildProcess d(argv, dir + "/energyd.log");
    if (!wait_ready(socket))
      return row.error = "energyd did not start: " + energy::testing::read_file(dir + "/energyd.log"), row;
    std::this_thread::sleep_for(std::chrono::seconds(2));  // past the first commit and checkpoint
    BusyCores busy(c.busy);
    auto s0 = status(socket);
    auto p0 = snapshot(d.pid());
    int64_t db0 = db_bytes(dir + "/state");
    auto t0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
    auto s1 = status(socket);
    auto p1 = snapshot(d.pid());
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    int64_t db1 = db_bytes(dir + "/state");
    const auto& a = s0["sampler"];
    const auto& b = s1["sampler"];
    row.rails = s1["rails"].size();
    row.ticks = b["ticks"].get<int64_t>() - a["ticks"].get<int64_t>();
    row.missed = b["missed_ticks"].get<int64_t>() - a["missed_ticks"].get<int64_t>();
    row.p50 = b["lateness_p50_ns"];
    row.p99 = b["lateness_p99_ns"];
    row.max = b["max_lateness_ns"];
    row.cpu_us_per_tick =
        row.ticks > 0 ? static_cast<double>(p1.cpu_ns - p0.cpu_ns) / 1e3 / static_cast<double>(row.ticks) : 0;
    double per_day = 86400.0 / row.seconds;
    row.written_mb_day = static_cast<double>(p1.write_bytes - p0.write_bytes) * per_day / 1e6;
    row.db_mb_day = static_cast<double>(db1 - db0) * per_day / 1e6;
    row.rss_kb = p1.rss_kb;
    row.clock_polls = s1["context"]["clock_polls"].get<int64_t>() - s0["context"]["clock_polls"].get<int64_t>();
    double context_us = static_cast<double>(p1.context_cpu_ns - p0.context_cpu_ns) / 1e3;
    row.context_us_per_poll = row.clock_polls > 0 ? context_us / static_cast<double>(row.clock_polls) : 0;
    row.context_us_per_tick = row.ticks > 0 ? context_us / static_cast<double>(row.ticks) : 0;
    row.hwm_kb = p1.hwm_kb;
    auto files = rail_files(socket, dir + "/board");
    d.stop(SIGTERM);
    int64_t floor_ticks = std::max<int64_t>(30, 3000 / c.period_ms);
    row.floor_us_per_tick = floor_us_per_tick(files, c.period_ms, floor_ticks);
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return row;
}

double ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }
double mib(int64_t kb) { return static_cast<double>(kb) / 1024.0; }

void print(const std::vector<Row>& rows) {
  std::printf(
      "| case | rails | period | load | ticks | missed | CPU/tick | floor/tick | daemon/floor | lateness p50 / p99 / "
      "max | RSS (peak) | written/day | DB growth/day | clock polls | context CPU/poll | context CPU/tick |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& r : rows) {
    if (!r.error.empty()) {
      std::printf("| %s | error: %s |\n", r.c.name.c_str(), r.error.c_str());
      continue;
    }
    std::printf(
        "| %s | %zu | %d ms | %s | %lld | %lld | %.1f us | %.1f us | %.2f | %.3f / %.3f / %.3f ms | %.1f (%.1f) MiB | "
        "%.1f MB | %.1f MB | %lld | %.1f us | %.1f us |\n",
        r.c.name.c_str(), r.rails, r.c.period_ms, r.c.busy ? "all cores busy" : "idle", static_cast<long long>(r.ticks),
        static_cast<long long>(r.missed), r.cpu_us_per_tick, r.floor_us_per_tick,
        r.floor_us_per_tick > 0 ? r.cpu_us_per_tick / r.floor_us_per_tick : 0.0, ms(r.p50), ms(r.p99), ms(r.max),
        mib(r.rss_kb), mib(r.hwm_kb), r.written_mb_day, r.db_mb_day, static_cast<long long>(r.clock_polls),
        r.context_us_per_poll, r.context_us_per_tick);
  }
}

}  // namespace

constexpr const char* kContextOff = "clock_poll_ms: 0\nthermal_poll_ms: 0\n";

int main(int argc, char** argv) {
  int seconds = 30;
  std::vector<std::string> only;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--seconds")
      seconds = static_cast<int>(energy::bench::whole_number_or_exit("daemon_bench", flag, argv[i + 1], 1, 86400));
    else if (flag == "--case")
      only.push_back(argv[i + 1]);
    else {
      std::fprintf(stderr, "daemon_bench: unknown option '%s'\n", argv[i]);
      return 2;
    }
  }
  const std::vector<Case> cases = {
      {"3-rails-100ms", "jetson-orin-nano", "36", 100, false},
      {"3-rails-100ms-busy", "jetson-orin-nano", "36", 100, true},
      {"3-rails-100ms-context-off", "jetson-orin-nano", "36", 100, false, {}, kContextOff},
      {"3-rails-100ms-clock-10ms", "jetson-orin-nano", "36", 100, false, {}, "clock_poll_ms: 10\n"},
      {"agx-orin-100ms", "jetson-agx-orin", "36", 100, false},
      {"agx-orin-100ms-context-off", "jetson-agx-orin", "36", 100, false, {}, kContextOff},
      {"3-rails-100ms-flush-10s",
       "jetson-orin-nano",
       "36",
       100,
       false,
       {"--flush-interval-ms", "10000", "--checkpoint-interval-ms", "30000"}},
      {"6-rails-100ms", "jetson-agx-xavier", "35", 100, false},
      {"12-rails-100ms", "jetson-tx2", "32", 100, false},
      {"3-rails-1ms", "jetson-orin-nano", "36", 1, false},
      {"3-rails-1ms-busy", "jetson-orin-nano", "36", 1, true},
      {"6-rails-1ms", "jetson-agx-xavier", "35", 1, false},
      {"12-rails-1ms", "jetson-tx2", "32", 1, false},
  };
  std::vector<Row> rows;
  for (const auto& c : cases) {
    if (!only.empty() && std::find(only.begin(), only.end(), c.name) == only.end()) continue;
    std::fprintf(stderr, "daemon_bench: %s (%d s)\n", c.name.c_str(), seconds);
    rows.push_back(measure(c, seconds, ENERGYD_BIN, ENERGYD_SIM_BIN));
  }
  print(rows);
  for (const auto& r : rows) {
    if (!r.error.empty()) return 1;
  }
  return 0;
}
