// observer_bench: what energyd costs the board it observes, against a floor
// (issue 16), in one run on the same simulated trees.
//
// For each board and period it writes a static tree (energyd-sim create),
// starts the real energyd on it at that period, lets it settle, then runs the
// floor poller (bench/observer_floor: one thread, clock_nanosleep to an
// absolute deadline, pread of the same rail files energyd reads) for a fixed
// number of ticks. energyd is measured from /proc over exactly the floor's run,
// so both see the same machine load:
//   - CPU per tick: schedstat time on CPU (ns) of every thread / ticks taken
//     (energyd's ticks from its status; the floor's are fixed); the ratio,
//     and the `sample` thread's CPU alone against the floor's;
//   - wake-ups per second: voluntary + involuntary context switches summed
//     over /proc/PID/task/*/status, per second of the window;
//   - bytes written per day: /proc/PID/io write_bytes over the window,
//     extrapolated to 86400 s (meaningful at the 100 ms default), and
//     wchar, the bytes energyd passed to write calls, the same way.
//     write_bytes counts each page-cache folio that a write makes dirty,
//     whole; ext4 caches files in folios larger than 4 KiB from Linux 6.16
//     on, where a board's kernel (L4T: 4.9 to 6.8) uses 4 KiB pages. So the
//     bench measures, where energyd's state goes, what a 4 KiB write into a
//     cached file counts, and prints it under the table: write_bytes is a
//     board's figure only where that is 4 KiB (--tmpdir below; wchar does
//     not depend on it; docs/PERFORMANCE.md "What write_bytes counts");
//   - pages touched per tick: after the windows, both energyd and a fresh
//     floor run while the bench clears their pages' referenced bits
//     (/proc/PID/clear_refs), waits one period and counts the pages that
//     were referenced since (/proc/PID/smaps "Referenced"), 20 times; the
//     median, in pages of 4 KiB, of the process's own mappings: its
//     executable, its heap, its anonymous memory (thread stacks, other
//     arenas) and other files it maps (the sweep ring). Shared libraries
//     and the vDSO are left out: their pages are shared with every process
//     on the machine, and other processes' use shows up as referenced too.
//     Memory touched after a sleep may be cold; what a page costs depends
//     on whether its lines are still cached (observer_floor --touch prices
//     random pages of a large buffer; energyd's 26 fewer pages moved its
//     CPU by less than the noise: docs/PERFORMANCE.md "Pages a tick
//     touches"). A count, not a time: it does not spread from run to run as
//     CPU per tick does. At 100 ms only: in windows of 10 ms and
//     1 ms the counts were not consistent (4 to 16 pages for what 100 ms
//     counts as 44 every time), so they are not given ("-");
//   - RSS: VmRSS and VmHWM at the end of the window. energyd runs with its
//     read_group and clock_group given as this process's GID (a config file
//     in the bench's directory), as on an installed board, where the
//     package's groups are found in /etc/group: without them the group
//     lookup falls through to the systemd NSS module, which stays loaded
//     (about 0.5 MiB of RSS that an installed daemon does not carry).
//     Its socket is in a directory of /dev/shm, as /run/energyd is a tmpfs
//     on a board: energyd keeps its sweep ring there (issue 16).
//
// Boards: Orin Nano L4T 36 (3 hwmon rails) and TX2 L4T 32 (12 IIO rails; the
// catalogue has no 9-rail board). For 1 ms the hwmon update_interval files
// are set to 1 ms, which energyd requires of a 1 ms period.
//
// Usage: observer_bench [--short] [--board orin-nano|tx2]... [--period 100|10|1]... [--out FILE]
//                       [--energyd PATH] [--config FILE] [--db FILE] [--tmpdir DIR] [--windows N] [--settle S]
//                       [--control | --control-only]
//                       [--control-floor "FLAGS"]
//   --period MS: only that period (default: all three);
//   --energyd PATH: measure that energyd build instead of this tree's;
//   --config FILE: YAML lines added to energyd's config, to see what a
//     part costs (e.g. `clock_poll_ms: 0` and `thermal_poll_ms: 0`: the
//     sampling and storage alone; docs/PERFORMANCE.md "Where the CPU goes");
//   --db FILE: energyd starts with a copy of this database in its state
//     directory (bench/aged_database makes one of a board that has kept a
//     week of history: its retention passes then work as on such a board);
//   --settle S: seconds between energyd's start and the first window
//     (default 2, past the first commit and checkpoint; at least 2). With
//     --db, energyd's first retention pass works off the database's
//     backlog and measures its footprint in slices at the store thread's
//     wake-ups over the first tens of seconds: a start-up cost, which a
//     settle of 60 s keeps out of the windows (docs/PERFORMANCE.md "The
//     week-old board's odd window");
//   --windows N: the floor's ticks run as N windows one after the other,
//     each starting at another phase against energyd's ticks (default 5);
//     the table gives the ratio over all of them and the median and range
//     of the windows' ratios (the spread a single window would have shown);
//   --control: after each board and period's row, a control row: a second
//     floor in energyd's place (energyd starts only to name the rail
//     files, then stops), measured from /proc exactly as energyd is, its
//     ticks counted from the time elapsed. The ratio two identical pollers
//     show is what the method itself spreads: a ratio of energyd's that
//     the control's range also covers is noise;
//   --control-only: the control rows alone;
//   --control-floor "FLAGS": the control's floor runs with these of
//     observer_floor's options (--timerfd, --rearm, --touch N,
//     --clock-reads N), each of which
//     adds one thing energyd's tick does, to price it against the plain
//     floor (implies --control; docs/PERFORMANCE.md "What a tick's parts cost");
//     and --clocks, the bench's own: the control's floor also reads the
//     current-frequency file of each clock domain energyd lists (cpufreq
//     scaling_cur_freq, devfreq cur_freq, the EMC's rate) as often as
//     energyd polls them where no domain's residency counters advance, as
//     on this static tree (its status must say counted_clocks 0): every
//     tick at periods of clock_poll_ms (100 ms by default) and longer,
//     every clock_poll_ms at shorter ones (before 2026-12-06 every tick at
//     every period, which overcharged that floor at 10 ms and 1 ms). With
//     --timerfd --rearm --clocks the control does what energyd's tick must
//     do and nothing else: the floor of energyd's features
//     (docs/PERFORMANCE.md "Instructions per tick");
//   --beside: in each of energyd's windows, the floor of its features
//     (observer_floor with the --control-floor options, by default
//     "--timerfd --rearm --clocks") runs beside energyd and the floor, on
//     the same files, over the same ticks: the table's note gives its CPU
//     per tick, its ratio to the floor and energyd's ratio to it, measured
//     under the same load (the control rows run in windows of their own);
//   --tmpdir DIR: where the bench makes each run's directory: the tree
//     and energyd's state directory (default /var/tmp). For a board's
//     write_bytes, a file system that caches in 4 KiB folios, such as an
//     ext4 image made with `mkfs.ext4 -O verity` and loop-mounted
//     (bench/write_rate.sh WRITE_RATE_PAGE_FOLIOS=1 makes one for its run);
//   --short (or OBSBENCH_SHORT=1): a tenth of the ticks (a smoke run);
//   --out FILE: the rows and ratios as JSON.
// Prints a Markdown table. Exit status 1 on a measurement failure only (the
// ratios are reported, not judged); 2 on a usage error.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
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

struct Board {
  std::string key, board, l4t;
};

struct Period {
  int ms;
  long ticks;  // the floor's ticks: 30 s, 15 s and 10 s of them
};

struct Proc {
  int64_t cpu_ns = 0, ctxsw = 0, write_bytes = 0, wchar = 0, rss_kb = 0, hwm_kb = 0;
  int64_t sample_cpu_ns = 0;  // the `sample` thread's share of cpu_ns
};

// Pages of the process's own mappings referenced in one period (4 KiB
// each). As medians over samples, the parts need not add up to the total.
struct PageCounts {
  int64_t exe = 0, heap = 0, anon = 0, other = 0, total = -1;  // total -1: not counted
};

struct Row {
  std::string board;
  bool control = false;       // the "energyd" figures are a second floor's (--control)
  std::string control_flags;  // that floor's options (--control-floor)
  size_t rails = 0;
  int period_ms = 0;
  int64_t ticks = 0, floor_ticks = 0;
  double seconds = 0, floor_seconds = 0;
  double cpu_us = 0, floor_cpu_us = 0, wakeups = 0, floor_wakeups = 0;
  double sample_cpu_us = 0;        // of cpu_us, the `sample` thread's (the rest: storage, the loop, ...)
  double written_mb_day = 0;       // write_bytes, extrapolated to a day
  double wchar_mb_day = 0;         // wchar, the same way
  int64_t folio_probe_bytes = -1;  // what a 4 KiB write counted in write_bytes where the state was; -1: unknown
  int64_t rss_kb = 0, hwm_kb = 0;
  int settle_s = 0;                   // between energyd's start and the first window (--settle)
  std::vector<double> window_ratios;  // CPU per tick energyd / floor, one per window
  PageCounts pages, floor_pages;      // touched per tick (medians; see page_phase)
  std::string beside_flags;           // --beside: the features' floor's options
  double beside_cpu_us = 0;           // its CPU per tick, over the floor's ticks
  std::string error;
};

// A floor's observer_floor options and the files it reads.
struct FloorSpec {
  std::vector<std::string> flags;
  std::vector<std::string> files;
  int64_t clock_every = 1;  // --clocks: the clock files read every this many ticks
};

int64_t status_field(const std::string& text, const std::string& key) {
  auto at = text.find("\n" + key);
  return at == std::string::npos ? -1 : std::stoll(text.substr(at + key.size() + 1));
}

std::string slurp(const std::string& path) {
  std::stringstream s;
  s << std::ifstream(path).rdbuf();
  return s.str();
}

// Sums CPU and context switches over every thread of `pid`; the caller checks
// `cpu_ns > 0` (a vanished process reads as zero).
Proc snapshot(pid_t pid) {
  Proc p;
  std::string proc = "/proc/" + std::to_string(pid);
  std::error_code ec;
  for (const auto& t : fs::directory_iterator(proc + "/task", ec)) {
    int64_t ns = 0;
    std::ifstream(t.path().string() + "/schedstat") >> ns;
    p.cpu_ns += ns;
    std::string comm;
    std::getline(std::ifstream(t.path().string() + "/comm"), comm);
    if (comm == "sample") p.sample_cpu_ns += ns;
    std::string st = slurp(t.path().string() + "/status");
    p.ctxsw += std::max<int64_t>(0, status_field(st, "voluntary_ctxt_switches:")) +
               std::max<int64_t>(0, status_field(st, "nonvoluntary_ctxt_switches:"));
  }
  const auto io = energy::bench::proc_io(std::to_string(pid));
  p.write_bytes = io.write_bytes;
  p.wchar = io.wchar;
  std::string st = slurp(proc + "/status");
  p.rss_kb = status_field(st, "VmRSS:");
  p.hwm_kb = status_field(st, "VmHWM:");
  return p;
}

nlohmann::json call(const std::string& socket, const std::string& verb) {
  auto c = energy::Client::connect(socket);
  if (!c) return {};
  auto r = c->call(verb);
  return r ? *r : nlohmann::json{};
}

// A string member of a reply object, or "" when it is missing or of another type.
// status[section][key] when it is an integer, else -1 (a reply of another
// shape is not an exception).
int64_t status_int(const nlohmann::json& status, const char* section, const char* key) {
  if (!status.is_object() || !status.contains(section) || !status[section].is_object()) return -1;
  const auto& part = status[section];
  if (!part.contains(key) || !part[key].is_number_integer()) return -1;
  return part[key].get<int64_t>();
}

std::string text_of(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// The current-frequency file of each clock domain in energyd's `clocks`
// verb, under `root`; an error when a domain's kind is not one of the three.
std::string clock_files(const nlohmann::json& clocks, const std::string& root, std::vector<std::string>& out) {
  if (!clocks.is_object() || !clocks.contains("domains") || !clocks["domains"].is_array())
    return "no domains in energyd's clocks verb";
  for (const auto& d : clocks["domains"]) {
    const std::string kind = text_of(d, "kind"), dir = text_of(d, "dir");
    const char* file = kind == "cpu" ? "/scaling_cur_freq" : kind == "gpu" ? "/cur_freq" : kind == "emc" ? "/rate" : "";
    if (*file == '\0' || dir.empty()) return "clock domain '" + text_of(d, "name") + "' of kind '" + kind + "'";
    out.push_back(root + dir + file);
  }
  return out.empty() ? "energyd lists no clock domain" : "";
}

std::vector<std::string> rail_files(const nlohmann::json& rails, const std::string& root) {
  std::vector<std::string> files;
  if (!rails.contains("rails")) return files;
  for (const auto& rail : rails["rails"]) {
    for (const char* k : {"voltage", "current", "power"}) {
      std::string f = rail["files"].value(k, "");
      if (!f.empty()) files.push_back(root + f);
    }
  }
  return files;
}

void set_update_intervals(const std::string& root) {
  for (auto it = fs::recursive_directory_iterator(root + "/sys/devices"); it != fs::recursive_directory_iterator();
       ++it) {
    if (it->is_symlink())
      it.disable_recursion_pending();
    else if (it->path().filename() == "update_interval")
      std::ofstream(it->path()) << "1\n";
  }
}

// The number after "KEY=" among the space-separated fields of `out`;
// nullopt when the field is missing or not wholly a number.
std::optional<double> floor_field(const std::string& out, const std::string& key) {
  std::istringstream in(out);
  std::string word;
  while (in >> word) {
    if (word.rfind(key + "=", 0) != 0) continue;
    const char* text = word.c_str() + key.size() + 1;
    char* end = nullptr;
    double v = std::strtod(text, &end);
    if (end == text || *end != '\0') return std::nullopt;
    return v;
  }
  return std::nullopt;
}

// Parses the floor's "ticks=N cpu_ns=N ctxsw=N seconds=F" line into `row`.
bool parse_floor(const std::string& out, Row& row) {
  auto ticks = floor_field(out, "ticks");
  auto cpu = floor_field(out, "cpu_ns");
  auto ctxsw = floor_field(out, "ctxsw");
  auto seconds = floor_field(out, "seconds");
  if (!ticks || !cpu || !ctxsw || !seconds || *ticks <= 0 || *seconds <= 0) return false;
  row.floor_ticks = static_cast<int64_t>(*ticks);
  row.floor_seconds = *seconds;
  row.floor_cpu_us = *cpu / 1e3 / *ticks;
  row.floor_wakeups = *ctxsw / *seconds;
  return true;
}

void fill_energyd(Row& row, const Proc& a, const Proc& b, int64_t ticks, double seconds) {
  row.seconds = seconds;
  row.ticks = ticks;
  row.cpu_us = row.ticks > 0 ? static_cast<double>(b.cpu_ns - a.cpu_ns) / 1e3 / static_cast<double>(row.ticks) : 0;
  row.sample_cpu_us =
      row.ticks > 0 ? static_cast<double>(b.sample_cpu_ns - a.sample_cpu_ns) / 1e3 / static_cast<double>(row.ticks) : 0;
  if (row.control) row.sample_cpu_us = row.cpu_us;  // the second floor's one thread does all it does
  row.wakeups = static_cast<double>(b.ctxsw - a.ctxsw) / seconds;
  row.written_mb_day = static_cast<double>(b.write_bytes - a.write_bytes) * 86400.0 / seconds / 1e6;
  row.wchar_mb_day = static_cast<double>(b.wchar - a.wchar) * 86400.0 / seconds / 1e6;
  row.rss_kb = b.rss_kb;
  row.hwm_kb = b.hwm_kb;
}

// One window: the floor for `ticks` ticks on `files`, the measured process
// (`pid`: energyd, or the control's second floor) from /proc over exactly
// that run; `ticks_now` gives its ticks so far (energyd's status; the
// control's elapsed periods), -1 when it cannot.
// `beside` (--beside): the features' floor's options and files, run at the
// same time as the floor for as many ticks.
Row window(const Row& base, pid_t pid, const std::function<int64_t()>& ticks_now, const std::vector<std::string>& files,
           const Period& p, long ticks, const std::optional<FloorSpec>& beside) {
  Row row = base;
  std::vector<std::string> argv = {OBSERVER_FLOOR_BIN, std::to_string(p.ms * 1000), std::to_string(ticks)};
  argv.insert(argv.end(), files.begin(), files.end());
  const auto timeout = std::chrono::milliseconds(p.ms * ticks * 3 + 10000);
  int64_t n0 = ticks_now();
  auto p0 = snapshot(pid);
  auto t0 = std::chrono::steady_clock::now();
  energy::testing::CommandResult features;
  struct Joined {  // joined on every way out, an exception's too
    std::thread t;
    ~Joined() {
      if (t.joinable()) t.join();
    }
  } beside_run;
  if (beside) {
    std::vector<std::string> fargv = {OBSERVER_FLOOR_BIN};
    fargv.insert(fargv.end(), beside->flags.begin(), beside->flags.end());
    fargv.insert(fargv.end(), {std::to_string(p.ms * 1000), std::to_string(ticks)});
    fargv.insert(fargv.end(), beside->files.begin(), beside->files.end());
    beside_run.t = std::thread([&features, fargv, timeout] { features = run_command(fargv, timeout); });
  }
  auto floor = run_command(argv, timeout);
  auto p1 = snapshot(pid);  // before the status call: its reply (~0.4 ms of energyd's CPU) is not the window's
  if (beside_run.t.joinable()) beside_run.t.join();
  if (beside) {
    Row f;
    if (features.exit_code != 0 || !parse_floor(features.out, f))
      return row.error = "the features' floor (--beside): exit " + std::to_string(features.exit_code) + " " +
                         features.out + features.err,
             row;
    row.beside_cpu_us = f.floor_cpu_us;
  }
  int64_t n1 = ticks_now();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (floor.exit_code != 0 || !parse_floor(floor.out, row))
    return row.error = "observer_floor: exit " + std::to_string(floor.exit_code) + " " + floor.out + floor.err, row;
  if (n0 < 0 || n1 < 0 || p0.cpu_ns <= 0 || p1.cpu_ns <= 0)
    return row.error =
               std::string(row.control ? "the second floor's" : "energyd's") + " ticks or /proc counters unreadable",
           row;
  fill_energyd(row, p0, p1, n1 - n0, seconds);
  row.window_ratios = {row.floor_cpu_us > 0 ? row.cpu_us / row.floor_cpu_us : 0.0};
  return row;
}

// The windows' figures as one row: per-tick and per-second figures weighted
// by ticks and seconds; RSS from the last window; every window's ratio kept.
Row combine(const std::vector<Row>& windows) {
  Row all = windows.back();
  all.ticks = all.floor_ticks = 0;
  all.seconds = all.floor_seconds = all.cpu_us = all.floor_cpu_us = all.wakeups = all.floor_wakeups = 0;
  all.sample_cpu_us = all.beside_cpu_us = 0;
  all.written_mb_day = all.wchar_mb_day = 0;
  all.window_ratios.clear();
  for (const auto& w : windows) {
    all.ticks += w.ticks;
    all.floor_ticks += w.floor_ticks;
    all.seconds += w.seconds;
    all.floor_seconds += w.floor_seconds;
    all.cpu_us += w.cpu_us * static_cast<double>(w.ticks);
    all.sample_cpu_us += w.sample_cpu_us * static_cast<double>(w.ticks);
    all.floor_cpu_us += w.floor_cpu_us * static_cast<double>(w.floor_ticks);
    all.beside_cpu_us += w.beside_cpu_us * static_cast<double>(w.floor_ticks);  // as many ticks as the floor
    all.wakeups += w.wakeups * w.seconds;
    all.floor_wakeups += w.floor_wakeups * w.floor_seconds;
    all.written_mb_day += w.written_mb_day * w.seconds;
    all.wchar_mb_day += w.wchar_mb_day * w.seconds;
    all.window_ratios.push_back(w.window_ratios.front());
  }
  all.cpu_us /= static_cast<double>(std::max<int64_t>(all.ticks, 1));
  all.sample_cpu_us /= static_cast<double>(std::max<int64_t>(all.ticks, 1));
  all.floor_cpu_us /= static_cast<double>(std::max<int64_t>(all.floor_ticks, 1));
  all.beside_cpu_us /= static_cast<double>(std::max<int64_t>(all.floor_ticks, 1));
  all.wakeups /= all.seconds;
  all.floor_wakeups /= all.floor_seconds;
  all.written_mb_day /= all.seconds;
  all.wchar_mb_day /= all.seconds;
  return all;
}

// Whether a mapping's pages are shared with other processes, whose use would
// show as referenced here: shared libraries and the kernel's vDSO pages.
bool shared_mapping(const std::string& name) {
  return name.find(".so") != std::string::npos || name == "[vdso]" || name == "[vsyscall]" ||
         name.rfind("[vvar", 0) == 0;  // [vvar] and [vvar_vclock]
}

// The referenced pages of `pid`'s own mappings since its last clear_refs,
// from /proc/PID/smaps; nullopt when the file cannot be read.
std::optional<PageCounts> referenced_pages(pid_t pid) {
  const std::string proc = "/proc/" + std::to_string(pid);
  std::error_code ec;
  const std::string exe = fs::read_symlink(proc + "/exe", ec).string();
  std::ifstream in(proc + "/smaps");
  if (!in || exe.empty()) return std::nullopt;
  PageCounts c;
  int64_t* into = nullptr;
  bool any = false;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first == "Referenced:") {
      int64_t kb = 0;
      if (!(words >> kb)) return std::nullopt;
      if (into != nullptr) *into += kb / 4;
      continue;
    }
    if (first.find('-') == std::string::npos || first.back() == ':') continue;  // another field of the mapping
    // A mapping's first line: range, permissions, offset, device, inode, [name].
    std::string perms, offset, dev, inode, name;
    words >> perms >> offset >> dev >> inode;
    std::getline(words >> std::ws, name);
    any = true;
    if (shared_mapping(name))
      into = nullptr;
    else if (name == exe)
      into = &c.exe;
    else if (name == "[heap]")
      into = &c.heap;
    else if (name.empty() || name[0] == '[')
      into = &c.anon;  // anonymous: thread stacks, other arenas, [stack]
    else
      into = &c.other;
  }
  if (!any) return std::nullopt;
  c.total = c.exe + c.heap + c.anon + c.other;
  return c;
}

bool clear_refs(pid_t pid) {
  std::ofstream out("/proc/" + std::to_string(pid) + "/clear_refs");
  return static_cast<bool>(out << "1\n" << std::flush);
}

int64_t median_of(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The pages `measured` and a fresh floor on `files` touch per tick: 20
// times, both processes' referenced bits cleared, one period waited, their
// referenced pages counted; the median of each part. Apart from the CPU
// windows, as clearing the bits makes the next accesses slower.
std::string page_phase(Row& row, pid_t measured, const std::vector<std::string>& files, const Period& p,
                       const std::string& dir) {
  constexpr int kSamples = 20;
  const long ticks = static_cast<long>((kSamples * (p.ms + 20) + 3000) / p.ms);
  std::vector<std::string> argv = {OBSERVER_FLOOR_BIN, std::to_string(p.ms * 1000), std::to_string(ticks)};
  argv.insert(argv.end(), files.begin(), files.end());
  ChildProcess floor(argv, dir + "/floor-pages.log");
  std::this_thread::sleep_for(std::chrono::seconds(1));  // past the floor's start-up
  std::vector<int64_t> parts[5], floor_parts[5];
  auto keep = [](std::vector<int64_t>(&into)[5], const PageCounts& c) {
    into[0].push_back(c.exe);
    into[1].push_back(c.heap);
    into[2].push_back(c.anon);
    into[3].push_back(c.other);
    into[4].push_back(c.total);
  };
  for (int i = 0; i < kSamples; ++i) {
    if (!clear_refs(measured) || !clear_refs(floor.pid()))
      return "cannot write /proc/PID/clear_refs (the bench needs to own both processes)";
    std::this_thread::sleep_for(std::chrono::milliseconds(p.ms));
    auto a = referenced_pages(measured);
    auto b = referenced_pages(floor.pid());
    if (!a || !b) return "cannot read /proc/PID/smaps of energyd or the floor";
    keep(parts, *a);
    keep(floor_parts, *b);
  }
  floor.stop(SIGTERM);
  auto medians = [](std::vector<int64_t>(&of)[5]) {
    return PageCounts{median_of(of[0]), median_of(of[1]), median_of(of[2]), median_of(of[3]), median_of(of[4])};
  };
  row.pages = medians(parts);
  row.floor_pages = medians(floor_parts);
  return "";
}

// A floor run with `flags` (observer_floor's options, and the bench's own
// --clocks) on the rail files and, with --clocks, each clock domain's
// current-frequency file; an error message, or empty. With --clocks it
// waits until energyd reads every domain's frequency at every clock poll (no
// residency from counters, as on this static tree), and reads the clock
// files as often as energyd polls them: every tick at periods of
// clock_poll_ms (100 ms by default) and more, every clock_poll_ms at
// shorter ones (observer_floor --last-every).
std::string floor_spec(const std::string& socket, const std::string& dir, const std::vector<std::string>& flags,
                       const std::vector<std::string>& rails, int period_ms, FloorSpec& out) {
  out.flags = flags;
  out.files = rails;  // the reference floor keeps to the rails
  auto clocks_flag = std::find(out.flags.begin(), out.flags.end(), "--clocks");
  if (clocks_flag == out.flags.end()) return "";
  out.flags.erase(clocks_flag);  // the bench's own option: more files, not a floor option
  // energyd tries each domain's counters first and gives them up after
  // about a second in which they do not advance.
  auto counted = [&socket] {
    const auto status = call(socket, "status");
    return status_int(status, "context", "counted_clocks");
  };
  for (int i = 0; i < 50 && counted() != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (counted() != 0)
    return "--clocks: energyd takes some clock residency from counters here, so it does not read every domain's "
           "frequency every tick";
  std::string why = clock_files(call(socket, "clocks"), dir + "/board", out.files);
  if (!why.empty()) return "--clocks: " + why;
  const int64_t poll_ms = status_int(call(socket, "status"), "context", "clock_poll_ms");
  if (poll_ms <= 0) return "--clocks: energyd's status gives no clock_poll_ms, or its clock poll is off";
  const int64_t period = std::max(period_ms, 1);
  out.clock_every = (poll_ms + period - 1) / period;      // a poll rides the first sweep at or after it is due
  const size_t clocks = out.files.size() - rails.size();  // at least one: clock_files found some
  if (out.clock_every > 1) {
    out.flags.insert(out.flags.end(), {"--last-every", std::to_string(clocks), std::to_string(out.clock_every)});
  }
  return "";
}

// Runs energyd on `root` and, over `windows` windows one after the other,
// the floor on the same files. Before each window the floor's start moves by
// a different fraction of the period (i * 0.382, modulo 1), so its phase
// against energyd's ticks differs from window to window: a floor that wakes
// just after energyd on the same CPU finds the kernel's paths warm, one that
// wakes apart from it does not.
// `run_dir`: the socket's directory, energyd's runtime directory: on a tmpfs
// (/dev/shm here, /run/energyd when installed) it keeps its sweep ring there.
// `extra`: YAML lines added to energyd's config (--config). With `control`
// energyd stops once it has named the rail files, and a second floor on
// them, started as energyd was, is measured in its place. With `beside`
// (and no `control`) the floor of energyd's features, run with these
// options, shares each window (window()).
Row measure_on(const Row& base, const std::string& dir, const std::string& run_dir, const Period& p,
               const std::string& energyd, const std::string& extra, int windows, int settle_s,
               const std::optional<std::vector<std::string>>& control,
               const std::optional<std::vector<std::string>>& beside) {
  Row row = base;
  row.settle_s = settle_s;
  row.control = control.has_value();
  if (control) {
    for (const auto& f : *control) row.control_flags += (row.control_flags.empty() ? "" : " ") + f;
  }
  std::string socket = run_dir + "/energyd.sock";
  const std::string gid = std::to_string(::getgid());
  if (!(std::ofstream(dir + "/energyd.yaml") << "read_group: \"" << gid << "\"\nclock_group: \"" << gid << "\"\n"
                                             << extra << "\n"))
    return row.error = "cannot write " + dir + "/energyd.yaml", row;
  ChildProcess d({energyd, "--config", dir + "/energyd.yaml", "--root", dir + "/board", "--state-dir", dir + "/state",
                  "--socket", socket, "--sample-period-ms", std::to_string(p.ms), "--log-level", "warn"},
                 dir + "/energyd.log");
  if (!energy::testing::wait_for_socket(socket, std::chrono::seconds(20)) || call(socket, "status").is_null())
    return row.error = "energyd did not start: " + energy::testing::read_file(dir + "/energyd.log"), row;
  auto rails = call(socket, "rails");
  auto files = rail_files(rails, dir + "/board");
  row.rails = rails.contains("rails") ? rails["rails"].size() : 0;
  if (files.empty()) return row.error = "no rail files from energyd's rails verb", row;
  std::function<int64_t()> ticks_now = [&socket] {
    auto s = call(socket, "status");
    return status_int(s, "sampler", "ticks");
  };
  pid_t measured = d.pid();
  std::optional<ChildProcess> second;
  std::optional<FloorSpec> features;  // --beside
  if (beside && !control) {
    features.emplace();
    std::string why = floor_spec(socket, dir, *beside, files, p.ms, *features);
    if (!why.empty()) return row.error = why, row;
    for (const auto& f : *beside) row.beside_flags += (row.beside_flags.empty() ? "" : " ") + f;
    if (features->clock_every > 1)
      row.beside_flags += ", the clock files every " + std::to_string(features->clock_every) + " ticks";
  }
  if (control) {
    FloorSpec spec;
    std::string why = floor_spec(socket, dir, *control, files, p.ms, spec);
    if (!why.empty()) return row.error = why, row;
    d.stop(SIGTERM);
    // Ticks enough for every window, the phase shifts and the floors'
    // start-up; stopped with SIGTERM after the last window.
    long total = p.ticks * 2 + static_cast<long>(2000 / p.ms) * (windows + 2) + 1000L * settle_s / p.ms;
    std::vector<std::string> argv = {OBSERVER_FLOOR_BIN};
    argv.insert(argv.end(), spec.flags.begin(), spec.flags.end());
    argv.insert(argv.end(), {std::to_string(p.ms * 1000), std::to_string(total)});
    argv.insert(argv.end(), spec.files.begin(), spec.files.end());
    second.emplace(argv, dir + "/floor-b.log");
    measured = second->pid();
    // Its deadlines fall every period from its start: the periods elapsed
    // between two calls are its ticks, to within one.
    auto started = std::chrono::steady_clock::now();
    ticks_now = [started, p] {
      auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started);
      return static_cast<int64_t>(ns.count() / (static_cast<int64_t>(p.ms) * 1000000));
    };
  }
  std::this_thread::sleep_for(std::chrono::seconds(settle_s));  // past the first commit and checkpoint
  std::vector<Row> done;
  for (int i = 0; i < windows; ++i) {
    double shift = static_cast<double>(i) * 0.382 - static_cast<int>(static_cast<double>(i) * 0.382);
    std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(shift * p.ms * 1000)));
    done.push_back(window(row, measured, ticks_now, files, p, std::max<long>(1, p.ticks / windows), features));
    if (!done.back().error.empty()) return done.back();
  }
  Row all = combine(done);
  std::string pages_error = p.ms >= 100 ? page_phase(all, measured, files, p, dir) : "";
  if (!pages_error.empty()) all.error = pages_error;
  if (second) second->stop(SIGTERM);
  d.stop(SIGTERM);
  return all;
}

// Copies the database `db` (and its marks journal, when there is one) into
// energyd's state directory under `dir`; an error message, or empty.
std::string start_with_database(const std::string& db, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir + "/state", ec);
  if (!ec) fs::copy_file(db, dir + "/state/energyd.db", ec);
  if (!ec && fs::exists(db + "-marks", ec)) fs::copy_file(db + "-marks", dir + "/state/energyd.db-marks", ec);
  return ec ? "--db: cannot copy " + db + ": " + ec.message() : std::string();
}

// What write_bytes counts for a 4 KiB write into a file in `dir` that the
// page cache holds whole (written in one 1 MiB write and synced): 4096
// where the cache holds it in 4 KiB folios, more where in larger ones; -1
// when it cannot be measured. The bench runs no other thread meanwhile.
int64_t folio_probe(const std::string& dir) {
  const std::string path = dir + "/folio-probe";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  constexpr size_t kFile = size_t{1} << 20, kWrite = 4096;
  const std::vector<char> bytes(kFile, 1);
  int64_t counted = -1;
  if (::write(fd, bytes.data(), kFile) == static_cast<ssize_t>(kFile) && ::fsync(fd) == 0) {
    const int64_t before = energy::bench::proc_io("self").write_bytes;
    if (before >= 0 && ::pwrite(fd, bytes.data(), kWrite, kFile / 2) == static_cast<ssize_t>(kWrite)) {
      const int64_t after = energy::bench::proc_io("self").write_bytes;
      if (after >= 0) counted = after - before;
    }
  }
  ::close(fd);
  ::unlink(path.c_str());
  return counted;
}

// `control`: a control row, its floor run with these options. `db`: a
// database energyd starts with (--db), or empty. `tmpdir`: where the run's
// directory (the tree, energyd's state) is made (--tmpdir).
Row measure(const Board& b, const Period& p, const std::string& energyd, const std::string& extra, int windows,
            int settle_s, const std::string& db, const std::string& tmpdir,
            const std::optional<std::vector<std::string>>& control,
            const std::optional<std::vector<std::string>>& beside) {
  Row row;
  row.board = b.key;
  row.period_ms = p.ms;
  std::string tmpl = tmpdir + "/energyd-obsbench-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) return row.error = "mkdtemp in " + tmpdir + " failed", row;
  std::string dir = tmpl;
  row.folio_probe_bytes = folio_probe(dir);
  char run_tmpl[] = "/dev/shm/energyd-obsbench-XXXXXX";
  if (::mkdtemp(run_tmpl) == nullptr) return row.error = "mkdtemp in /dev/shm failed", row;
  std::string run_dir = run_tmpl;
  auto made = run_command({ENERGYD_SIM_BIN, "create", "--board", b.board, "--l4t", b.l4t, "--root", dir + "/board"});
  if (made.exit_code != 0) row.error = "energyd-sim: " + made.err;
  if (row.error.empty() && !db.empty()) row.error = start_with_database(db, dir);
  if (row.error.empty()) {
    if (p.ms < 7) set_update_intervals(dir + "/board");
    row = measure_on(row, dir, run_dir, p, energyd, extra, windows, settle_s, control, beside);
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::remove_all(run_dir, ec);
  return row;
}

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

// The median of the windows' ratios (the mean of the middle two for an even count).
double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string spread(const std::vector<double>& v) {
  if (v.empty()) return "-";
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  char text[64];
  std::snprintf(text, sizeof text, "%.2f (%.2f-%.2f)", median(v), *lo, *hi);
  return text;
}

// "44 (15 16 11 2)": the total, then the executable, heap, anonymous and
// other files' pages; "-" where they were not counted (periods under 100 ms).
std::string shown_pages(const PageCounts& c, bool parts) {
  if (c.total < 0) return "-";
  if (!parts) return std::to_string(c.total);
  return std::to_string(c.total) + " (" + std::to_string(c.exe) + " " + std::to_string(c.heap) + " " +
         std::to_string(c.anon) + " " + std::to_string(c.other) + ")";
}

void print(const std::vector<Row>& rows) {
  std::printf(
      "| board | rails | period | ticks energyd / floor | window | CPU/tick energyd | floor | energyd/floor | "
      "median of windows (min-max) | `sample` thread / floor | wake-ups/s energyd | floor | energyd/floor | "
      "written/day (wchar) | RSS (peak) | pages/tick energyd (exe heap anon other) | floor |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& r : rows) {
    if (!r.error.empty()) {
      std::printf("| %s | %d ms | error: %s |\n", r.board.c_str(), r.period_ms, r.error.c_str());
      continue;
    }
    std::printf(
        "| %s | %zu | %d ms | %lld / %lld | %.1f s | %.1f us | %.1f us | %.2f | %s | %.2f | %.1f | %.1f | %.2f | "
        "%.0f MB (%.0f) | %.1f (%.1f) MiB | %s | %s |\n",
        (r.board + (!r.control                ? ""
                    : r.control_flags.empty() ? " (control)"
                                              : " (control: " + r.control_flags + ")"))
            .c_str(),
        r.rails, r.period_ms, static_cast<long long>(r.ticks), static_cast<long long>(r.floor_ticks), r.seconds,
        r.cpu_us, r.floor_cpu_us, ratio(r.cpu_us, r.floor_cpu_us), spread(r.window_ratios).c_str(),
        ratio(r.sample_cpu_us, r.floor_cpu_us), r.wakeups, r.floor_wakeups, ratio(r.wakeups, r.floor_wakeups),
        r.written_mb_day, r.wchar_mb_day, static_cast<double>(r.rss_kb) / 1024.0,
        static_cast<double>(r.hwm_kb) / 1024.0, shown_pages(r.pages, true).c_str(),
        shown_pages(r.floor_pages, false).c_str());
  }
}

// Under the table: what a 4 KiB write counted in write_bytes where energyd's
// state was, and whether the written/day column is then a board's figure.
void print_folios(const std::vector<Row>& rows, const std::string& tmpdir) {
  int64_t most = -1;
  for (const auto& r : rows) most = std::max(most, r.folio_probe_bytes);
  if (most < 0) {
    std::printf("\nwrite_bytes: what a 4 KiB write counts in %s could not be measured.\n", tmpdir.c_str());
    return;
  }
  std::printf("\nA 4 KiB write into a cached file counted %lld KiB of write_bytes in %s%s\n",
              static_cast<long long>(most / 1024), tmpdir.c_str(),
              most == 0      ? ": write_bytes counts nothing there (no writeback, as on a tmpfs), so the written/day "
                               "column reads 0; wchar still counts what energyd wrote."
              : most <= 4096 ? ", as on a board's kernel."
                             : ": its page cache holds files in larger folios than a board's kernel does (4 KiB), and "
                               "write_bytes counts each dirtied folio whole, so the written/day column overstates what "
                               "a board would count; wchar does not depend on it (--tmpdir on a file system with 4 KiB "
                               "folios gives a board's figure).");
}

// --beside: the features' floor's figures under the table.
void print_beside(const std::vector<Row>& rows) {
  for (const auto& r : rows) {
    if (r.beside_flags.empty() || !r.error.empty()) continue;
    std::printf(
        "\n%s %d ms: beside energyd and the floor, in the same windows, the floor of energyd's features "
        "(observer_floor %s) took %.1f us a tick: %.2f times the floor; energyd took %.2f times it (its `sample` "
        "thread %.2f).\n",
        r.board.c_str(), r.period_ms, r.beside_flags.c_str(), r.beside_cpu_us, ratio(r.beside_cpu_us, r.floor_cpu_us),
        ratio(r.cpu_us, r.beside_cpu_us), ratio(r.sample_cpu_us, r.beside_cpu_us));
  }
}

nlohmann::json to_json(const Row& r) {
  return {{"board", r.board},
          {"control", r.control},
          {"control_floor_flags", r.control_flags},
          {"rails", r.rails},
          {"period_ms", r.period_ms},
          {"error", r.error},
          {"energyd_ticks", r.ticks},
          {"floor_ticks", r.floor_ticks},
          {"window_s", r.seconds},
          {"settle_s", r.settle_s},
          {"energyd_cpu_us_per_tick", r.cpu_us},
          {"floor_cpu_us_per_tick", r.floor_cpu_us},
          {"cpu_ratio", ratio(r.cpu_us, r.floor_cpu_us)},
          {"energyd_sample_thread_cpu_us_per_tick", r.sample_cpu_us},
          {"sample_thread_cpu_ratio", ratio(r.sample_cpu_us, r.floor_cpu_us)},
          {"cpu_ratio_median", median(r.window_ratios)},
          {"cpu_ratio_windows", r.window_ratios},
          {"energyd_wakeups_per_s", r.wakeups},
          {"floor_wakeups_per_s", r.floor_wakeups},
          {"wakeup_ratio", ratio(r.wakeups, r.floor_wakeups)},
          {"energyd_written_mb_per_day", r.written_mb_day},
          {"energyd_wchar_mb_per_day", r.wchar_mb_day},
          {"write_bytes_of_a_4k_write", r.folio_probe_bytes},
          {"energyd_rss_kb", r.rss_kb},
          {"energyd_hwm_kb", r.hwm_kb},
          {"energyd_pages_per_tick",
           {{"total", r.pages.total},
            {"exe", r.pages.exe},
            {"heap", r.pages.heap},
            {"anon", r.pages.anon},
            {"other", r.pages.other}}},
          {"floor_pages_per_tick", r.floor_pages.total},
          {"beside_floor_flags", r.beside_flags},
          {"beside_floor_cpu_us_per_tick", r.beside_cpu_us},
          {"beside_floor_cpu_ratio", ratio(r.beside_cpu_us, r.floor_cpu_us)},
          {"energyd_to_beside_floor_cpu_ratio", ratio(r.cpu_us, r.beside_cpu_us)}};
}

struct Options {
  bool shorter = false;
  std::vector<std::string> boards;
  std::vector<int> periods;  // --period: only these (ms)
  std::string out;
  std::string extra;                       // --config: the file's YAML lines, added to energyd's config
  std::string energyd = ENERGYD_BIN;       // --energyd: another build, for a before/after pair
  std::string db;                          // --db: a database energyd starts with
  std::string tmpdir = "/var/tmp";         // --tmpdir: where each run's directory is made
  int windows = 5;                         // --windows: the floor's ticks split into this many windows
  int settle_s = 2;                        // --settle: seconds from energyd's start to the first window
  bool control = false;                    // --control: a control row after each energyd row
  bool control_only = false;               // --control-only: the control rows alone
  bool beside = false;                     // --beside: the features' floor in energyd's windows
  std::vector<std::string> control_flags;  // --control-floor: the control floor's options
};

// observer_floor's variant options, from one --control-floor argument.
bool parse_floor_flags(const std::string& text, std::vector<std::string>& out) {
  std::istringstream in(text);
  for (std::string word; in >> word;) {
    if (word == "--timerfd" || word == "--rearm" || word == "--clocks") {
      out.push_back(word);
      continue;
    }
    // --touch N (pages, 1-16384) and --clock-reads N (1-256), as observer_floor takes them
    const long most = word == "--touch" ? 16384 : word == "--clock-reads" ? 256 : 0;
    std::string n;
    if (most == 0 || !(in >> n) || n.empty() || n.find_first_not_of("0123456789") != std::string::npos ||
        n.size() > 5 || std::stol(n) < 1 || std::stol(n) > most) {
      std::fprintf(stderr,
                   "observer_bench: --control-floor: '%s' is not --timerfd, --rearm, --clocks, --touch N (1-16384) "
                   "or --clock-reads N (1-256)\n",
                   word.c_str());
      return false;
    }
    out.insert(out.end(), {word, n});
  }
  if (out.empty()) return std::fprintf(stderr, "observer_bench: --control-floor: no option given\n"), false;
  return true;
}

bool parse(int argc, char** argv, Options& o) {
  const char* env = std::getenv("OBSBENCH_SHORT");
  o.shorter = env != nullptr && std::string(env) == "1";
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--short")
      o.shorter = true;
    else if (flag == "--control")
      o.control = true;
    else if (flag == "--control-only")
      o.control = o.control_only = true;
    else if (flag == "--beside")
      o.beside = true;
    else if (flag == "--control-floor" && i + 1 < argc) {
      if (!parse_floor_flags(argv[++i], o.control_flags)) return false;
      o.control = true;
    } else if (flag == "--board" && i + 1 < argc)
      o.boards.push_back(argv[++i]);
    else if (flag == "--out" && i + 1 < argc)
      o.out = argv[++i];
    else if (flag == "--energyd" && i + 1 < argc && ::access(argv[i + 1], X_OK) != 0)
      return std::fprintf(stderr, "observer_bench: --energyd: '%s' is not an executable\n", argv[i + 1]), false;
    else if (flag == "--energyd" && i + 1 < argc)
      o.energyd = argv[++i];
    else if (flag == "--period" && i + 1 < argc) {
      std::string ms = argv[++i];
      if (ms != "100" && ms != "10" && ms != "1")
        return std::fprintf(stderr, "observer_bench: --period: '%s' is not one of 100, 10, 1\n", ms.c_str()), false;
      o.periods.push_back(std::stoi(ms));
    } else if (flag == "--config" && i + 1 < argc) {
      std::ifstream in(argv[++i]);
      if (!in) return std::fprintf(stderr, "observer_bench: --config: cannot read '%s'\n", argv[i]), false;
      o.extra = slurp(argv[i]);
    } else if (flag == "--db" && i + 1 < argc) {
      o.db = argv[++i];
      if (::access(o.db.c_str(), R_OK) != 0)
        return std::fprintf(stderr, "observer_bench: --db: cannot read '%s'\n", o.db.c_str()), false;
    } else if (flag == "--tmpdir" && i + 1 < argc) {
      o.tmpdir = argv[++i];
      std::error_code ec;
      if (!fs::is_directory(o.tmpdir, ec) || ::access(o.tmpdir.c_str(), W_OK | X_OK) != 0)
        return std::fprintf(stderr, "observer_bench: --tmpdir: '%s' is not a writable directory\n", o.tmpdir.c_str()),
               false;
    } else if (flag == "--windows" && i + 1 < argc)
      o.windows = static_cast<int>(energy::bench::whole_number_or_exit("observer_bench", flag, argv[++i], 1, 50));
    else if (flag == "--settle" && i + 1 < argc)
      o.settle_s = static_cast<int>(energy::bench::whole_number_or_exit("observer_bench", flag, argv[++i], 2, 3600));
    else
      return std::fprintf(
                 stderr,
                 "observer_bench: unknown option '%s' (--short, --board orin-nano|tx2, --period 100|10|1, "
                 "--out FILE, --energyd PATH, --config FILE, --db FILE, --tmpdir DIR, --windows N, --settle S, "
                 "--control, --control-only, --control-floor \"FLAGS\", --beside)\n",
                 argv[i]),
             false;
  }
  return true;
}

int run(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) return 2;
  if (o.beside && o.control_only)
    return std::fprintf(stderr,
                        "observer_bench: --beside runs beside energyd's rows, which --control-only leaves out\n"),
           2;
  // --beside with --control-floor runs that floor beside energyd; without, the floor of energyd's features.
  std::optional<std::vector<std::string>> beside;
  if (o.beside)
    beside = o.control_flags.empty() ? std::vector<std::string>{"--timerfd", "--rearm", "--clocks"} : o.control_flags;
  const std::vector<Board> boards = {{"orin-nano", "jetson-orin-nano", "36"}, {"tx2", "jetson-tx2", "32"}};
  const std::vector<Period> periods = {{100, 300}, {10, 1500}, {1, 10000}};
  std::vector<Row> rows;
  for (const auto& b : boards) {
    if (!o.boards.empty() && std::find(o.boards.begin(), o.boards.end(), b.key) == o.boards.end()) continue;
    for (auto p : periods) {
      if (!o.periods.empty() && std::find(o.periods.begin(), o.periods.end(), p.ms) == o.periods.end()) continue;
      if (o.shorter) p.ticks /= 10;
      std::fprintf(stderr, "observer_bench: %s %d ms, %ld floor ticks\n", b.key.c_str(), p.ms, p.ticks);
      if (!o.control_only)
        rows.push_back(measure(b, p, o.energyd, o.extra, o.windows, o.settle_s, o.db, o.tmpdir, std::nullopt, beside));
      if (o.control)
        rows.push_back(
            measure(b, p, o.energyd, o.extra, o.windows, o.settle_s, o.db, o.tmpdir, o.control_flags, std::nullopt));
    }
  }
  if (rows.empty()) return std::fprintf(stderr, "observer_bench: no board selected (orin-nano, tx2)\n"), 2;
  std::string shown = o.extra;
  while (!shown.empty() && shown.back() == '\n') shown.pop_back();
  if (!shown.empty()) std::printf("energyd's config adds:\n```\n%s\n```\n", shown.c_str());
  if (o.control)
    std::printf(
        "In the control rows the \"energyd\" columns are a second floor's, on the same files, started as "
        "energyd is.\n\n");
  print(rows);
  print_beside(rows);
  print_folios(rows, o.tmpdir);
  nlohmann::json all = nlohmann::json::array();
  for (const auto& r : rows) {
    all.push_back(to_json(r));
    all.back()["config_added"] = o.extra;
  }
  if (!o.out.empty() && !(std::ofstream(o.out) << all.dump(2) << "\n"))
    return std::fprintf(stderr, "observer_bench: cannot write %s\n", o.out.c_str()), 1;
  for (const auto& r : rows) {
    if (!r.error.empty()) return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return energy::bench::guarded_main("observer_bench", [&] { return run(argc, argv); });
}
