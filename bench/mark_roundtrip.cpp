// Mark round trip against a running energyd: how long until a mark is
// acknowledged (sampled on every rail and committed durably) when it comes
//   (a) from a fresh `energyctl mark start` process (fork to its output line),
//   (b) from the C++ client, on an open connection and with a new connection,
// beside the floor of (a): fork + exec of /bin/true until it exits, the cost
// of starting any process on this machine; and how long a stop takes on an
// open connection (its reply is the run's report).
// Prints one row per case: CASE N P50_MS P99_MS MAX_MS. Each run is stopped
// before the next starts (untimed, but for the stop case). bench/run_mark_roundtrip.sh
// drives it.
//
// Usage: mark_roundtrip --socket PATH --energyctl PATH [--n N]
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "bench_args.h"
#include "energy/client.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string socket;
  std::string energyctl;
  int n = 200;
};

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// Nearest-rank percentile of sorted samples.
double percentile(const std::vector<double>& sorted, double p) {
  size_t rank = static_cast<size_t>(p / 100.0 * static_cast<double>(sorted.size()) + 0.999999);
  return sorted[std::min(sorted.size(), std::max<size_t>(rank, 1)) - 1];
}

void print_row(const char* name, std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  std::printf("%s %zu %.3f %.3f %.3f\n", name, ms.size(), percentile(ms, 50), percentile(ms, 99), ms.back());
}

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "mark_roundtrip: %s\n", why.c_str());
  std::exit(1);
}

// Runs `energyctl --socket S mark start NAME`; returns ms from fork to its
// acknowledgement line on stdout (the process then exits).
double energyctl_mark(const Options& o, const std::string& name) {
  int out[2];
  if (::pipe(out) != 0) die("pipe failed");
  auto t0 = Clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::close(out[0]);
    ::execl(o.energyctl.c_str(), o.energyctl.c_str(), "--socket", o.socket.c_str(), "mark", "start", name.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out[1]);
  char c = 0;
  while (::read(out[0], &c, 1) == 1 && c != '\n') {
  }
  double ms = ms_since(t0);
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) die("energyctl mark start failed");
  return ms;
}

// fork + exec of /bin/true until it has exited, in ms.
double process_floor() {
  auto t0 = Clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/true", "true", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  double ms = ms_since(t0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) die("/bin/true failed");
  return ms;
}

void stop(energy::Client& c, const std::string& run) {
  auto r = c.mark_stop(run);
  if (!r) die("mark.stop " + run + ": " + r.error().describe());
}

energy::Client connect(const Options& o) {
  auto c = energy::Client::connect(o.socket);
  if (!c) die(c.error().describe());
  return std::move(c).value();
}

std::vector<double> measure(int n, const std::function<double(int)>& once) {
  std::vector<double> ms;
  ms.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) ms.push_back(once(i));
  return ms;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--socket")
      o.socket = argv[i + 1];
    else if (flag == "--energyctl")
      o.energyctl = argv[i + 1];
    else if (flag == "--n")
      o.n = static_cast<int>(energy::bench::whole_number_or_exit("mark_roundtrip", flag, argv[i + 1], 1, 1000000));
    else
      die("unknown option " + flag);
  }
  if (o.socket.empty() || o.energyctl.empty() || o.n < 1)
    die("usage: mark_roundtrip --socket PATH --energyctl PATH [--n N]");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  energy::Client control = connect(o);
  print_row("process_floor", measure(o.n, [&](int) { return process_floor(); }));
  print_row("energyctl_process", measure(o.n, [&](int i) {
              std::string name = "bench-ctl-" + std::to_string(i);
              double ms = energyctl_mark(o, name);
              stop(control, name);
              return ms;
            }));
  print_row("cpp_open_connection", measure(o.n, [&](int) {
              auto t0 = Clock::now();
              auto run = control.mark_start("bench-cpp");
              double ms = ms_since(t0);
              if (!run) die(run.error().describe());
              stop(control, std::to_string(run->id));
              return ms;
            }));
  // The stop's round trip, whose reply carries the run's report: on a board
  // whose reads cannot hang it waits for the stop's context poll too.
  print_row("cpp_stop_open_connection", measure(o.n, [&](int) {
              auto run = control.mark_start("bench-cpp-stop");
              if (!run) die(run.error().describe());
              auto t0 = Clock::now();
              stop(control, std::to_string(run->id));
              return ms_since(t0);
            }));
  print_row("cpp_new_connection", measure(o.n, [&](int) {
              auto t0 = Clock::now();
              energy::Client c = connect(o);
              auto run = c.mark_start("bench-cpp-connect");
              double ms = ms_since(t0);
              if (!run) die(run.error().describe());
              stop(control, std::to_string(run->id));
              return ms;
            }));
  return 0;
}
