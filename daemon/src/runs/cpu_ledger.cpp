#include "cpu_ledger.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace energy::daemon {
namespace {

constexpr size_t kMaxProcFileBytes = 4096;

std::string read_small(const std::string& path) {
  std::ifstream f(path);
  std::string text(kMaxProcFileBytes, '\0');
  f.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(std::max<std::streamsize>(0, f.gcount())));
  return text;
}

std::vector<ProcStat> all_processes(const std::string& proc_dir) {
  std::vector<ProcStat> out;
  DIR* d = ::opendir(proc_dir.c_str());
  if (d == nullptr) return out;
  while (const dirent* e = ::readdir(d)) {
    const char* n = e->d_name;
    if (!std::isdigit(static_cast<unsigned char>(n[0]))) continue;
    if (auto p = parse_proc_stat(read_small(proc_dir + "/" + n + "/stat"))) out.push_back(*p);
  }
  ::closedir(d);
  return out;
}

}  // namespace

CpuLedger::CpuLedger(std::string proc_dir, const Clock& clock)
    : proc_dir_(std::move(proc_dir)),
      clock_(clock),
      ns_per_tick_(1'000'000'000 / std::max(1L, ::sysconf(_SC_CLK_TCK))) {}

void CpuLedger::boundary() {
  CpuSnapshot s;
  s.t_ns = clock_.boot_ns();
  s.busy_ns = parse_busy_ticks(read_small(proc_dir_ + "/stat")).value_or(0) * ns_per_tick_;
  auto procs = all_processes(proc_dir_);
  for (const auto& [run, pid] : open_) s.runs[run] = tree_ticks(procs, pid) * ns_per_tick_;
  snapshots_.push_back(std::move(s));
}

void CpuLedger::opened(int64_t run_id, int64_t pid) {
  open_[run_id] = pid;
  boundary();
}

std::optional<std::vector<CpuSnapshot>> CpuLedger::closed(int64_t run_id) {
  if (open_.count(run_id) == 0) return std::nullopt;
  boundary();
  std::vector<CpuSnapshot> mine;
  for (const auto& s : snapshots_) {
    if (s.runs.count(run_id) != 0) mine.push_back(s);
  }
  open_.erase(run_id);
  // Snapshots before the oldest one an open run is in are no longer needed.
  auto keep = std::find_if(snapshots_.begin(), snapshots_.end(), [&](const CpuSnapshot& s) {
    return std::any_of(s.runs.begin(), s.runs.end(), [&](const auto& r) { return open_.count(r.first) != 0; });
  });
  snapshots_.erase(snapshots_.begin(), keep);
  return mine;
}

Status check_process_owner(const std::string& proc_dir, int64_t pid, std::optional<uid_t> uid) {
  std::string status = read_small(proc_dir + "/" + std::to_string(pid) + "/status");
  std::istringstream lines(status);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("Uid:", 0) != 0) continue;
    std::istringstream f(line.substr(4));
    int64_t real = -1;
    f >> real;
    if (!uid || real == static_cast<int64_t>(*uid)) return ok_status();
    return make_error(ErrorCode::kDenied, "mark.start: argument \"pid\": process " + std::to_string(pid) +
                                              " belongs to uid " + std::to_string(real) + ", not " +
                                              std::to_string(*uid) + "; a run can name only its caller's processes");
  }
  return make_error(ErrorCode::kNotFound, "mark.start: argument \"pid\": no process " + std::to_string(pid));
}

}  // namespace energy::daemon
