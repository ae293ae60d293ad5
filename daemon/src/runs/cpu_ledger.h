// CpuLedger: the kernel's CPU accounting at every start and stop of a run
// that names its processes (mark.start `pid`), for attribution.h.
//
// At each boundary it reads /proc/stat (the board's busy time) and every
// /proc/PID/stat once, and records each open attributed run's tree CPU time.
// A run's snapshots are handed over when it stops. Reading /proc takes a few
// milliseconds; it happens at marks only, on the loop thread, never on the
// sampling path. Runs adopted from an earlier daemon are not attributed:
// their start was not read.
//
// Thread-safety: the loop thread only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "energy/attribution.h"
#include "energy/time_source.h"

namespace energy::daemon {

class CpuLedger {
 public:
  CpuLedger(std::string proc_dir, const Clock& clock);

  // Run `run_id`, whose processes are the tree of `pid`, opened.
  void opened(int64_t run_id, int64_t pid);
  // Run `run_id` stopped: the snapshots that hold it, oldest first (nullopt:
  // it was not attributed here), and it is forgotten.
  std::optional<std::vector<CpuSnapshot>> closed(int64_t run_id);
  size_t open_runs() const { return open_.size(); }

 private:
  void boundary();

  std::string proc_dir_;
  const Clock& clock_;
  int64_t ns_per_tick_;
  std::map<int64_t, int64_t> open_;  // run id -> pid
  std::vector<CpuSnapshot> snapshots_;
};

// Whether `pid` is a process (of uid `uid` when given: its real uid,
// /proc/PID/status); kNotFound when there is no such process, kDenied when
// it is another uid's.
Status check_process_owner(const std::string& proc_dir, int64_t pid, std::optional<uid_t> uid);

}  // namespace energy::daemon
