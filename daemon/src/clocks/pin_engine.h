// PinEngine: the clock leases themselves - pinning, restoring, the durable
// journal, expiry and the external-writer watch (docs/CLOCKS.md).
//
// Owns: every lease and the journal file. Invariant: a lease is in the
// journal on disk before the first write to a clock file and leaves it only
// after every file it changed reads back its saved value, so no pinned value
// ever exists without a lease record. A lease whose restore fails stays in
// the journal as `releasing` and is retried on every tick.
// Units: frequencies Hz; times CLOCK_BOOTTIME ns (expiry, events) and
// CLOCK_REALTIME ns (display).
//
// Thread-safety: one thread (PinManager's worker) calls everything except
// the ClockEventLog, which any thread may read.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "energy/clock_pin.h"
#include "energy/clocks.h"
#include "energy/lease_journal.h"
#include "energy/sysroot.h"
#include "energy/time_source.h"
#include "owner.h"

namespace energy::daemon {

// Something that happened to a pinned clock, for logs, status and run reports.
struct ClockEvent {
  int64_t boot_ns = 0;  // CLOCK_BOOTTIME, comparable with run start_ns / stop_ns
  int64_t wall_ns = 0;
  int64_t lease = 0;
  std::string kind;      // pinned, restored, restore_failed, external_change, external_change_cleared, adopted
  std::string domain;    // empty for lease-wide events
  std::string path;      // external changes: the file
  std::string expected;  // external changes: the pinned text
  std::string found;     // external changes: what the file holds now
  std::string message;
};
nlohmann::json clock_event_json(const ClockEvent& e);

// Bounded (the newest kMaxEvents), thread-safe.
class ClockEventLog {
 public:
  static constexpr size_t kMaxEvents = 1000;
  void add(ClockEvent e);
  // Events with from_boot_ns <= boot_ns <= to_boot_ns, oldest first.
  std::vector<ClockEvent> between(int64_t from_boot_ns, int64_t to_boot_ns) const;
  std::vector<ClockEvent> latest(size_t n) const;
  // Events added since construction (pins, restores, external changes): a
  // change tells that clock files were written.
  uint64_t added() const;

 private:
  mutable std::mutex mu_;
  std::deque<ClockEvent> events_;
  uint64_t added_ = 0;
};

// A parsed clocks.pin request.
struct PinOrder {
  std::vector<PinRequest> requests;  // `domain` may also be "cpu" or "gpu": every such domain
  OfflineCpus offline = OfflineCpus::kRefuse;
  LeaseKind kind = LeaseKind::kConnection;
  uint64_t connection = 0;
  int64_t run_id = 0;
  int64_t duration_ns = 0;
  uid_t owner_uid = 0;  // who may unpin it (owner.h); a run lease: the run's owner
};

class PinEngine {
 public:
  PinEngine(SysRoot root, ClockInventory clocks, const Clock& clock, std::string journal_path, ClockEventLog& events);

  // Start of the daemon: leases of another boot are dropped (the kernel reset
  // the clocks); connection leases, expired ones, run leases whose run is not
  // in `open_runs` and half-applied or half-released ones are restored; the
  // others are adopted and their files re-verified.
  void recover(const std::set<int64_t>& open_runs);
  Result<nlohmann::json> pin(const PinOrder& order);
  // mark.start with `pin`: the lease pinned for a run not yet open (kRun,
  // run_id 0: restored at the next start if energyd dies now) is tied to
  // the run once it is open. kState if the lease is gone (unpinned meanwhile).
  Result<nlohmann::json> bind_to_run(int64_t lease_id, int64_t run_id);
  // ids empty: every lease `caller` owns (an admin: every lease). An unknown
  // id is kNotFound and another owner's lease kDenied; nothing is released then.
  Result<nlohmann::json> unpin(const std::vector<int64_t>& ids, const Caller& caller, const std::string& reason);
  void release_connection(uint64_t connection);
  void release_run(int64_t run_id);
  void release_all(const std::string& reason);
  // Expiry, retries of failed restores, the external-writer watch.
  void tick();
  // The `clocks.leases` view.
  nlohmann::json snapshot() const;
  size_t lease_count() const { return journal_.leases.size(); }

 private:
  struct Watch {
    std::set<std::string> diverged;  // files seen changed by someone else (logged once)
    bool restore_failure_logged = false;
  };
  using Target = std::pair<const ClockDomain*, PinRequest>;

  Result<std::vector<Target>> select(const PinOrder& order) const;
  Status check_free(const std::vector<Target>& targets) const;
  Result<std::vector<DomainPin>> plan(const std::vector<Target>& targets, OfflineCpus offline) const;
  LeaseRecord new_lease(const PinOrder& order, std::vector<DomainPin> domains);
  Status apply(const LeaseRecord& lease);
  Status restore(const LeaseRecord& lease) const;
  Status write_domain(const DomainPin& pin, PinDirection direction) const;
  nlohmann::json release(int64_t id, const std::string& reason);
  void release_matching(const std::function<bool(const LeaseRecord&)>& match, const std::string& reason);
  void verify(const LeaseRecord& lease);
  void drop_other_boot();
  bool keep_at_start(const LeaseRecord& lease, const std::set<int64_t>& open_runs, int64_t now) const;
  Status save();
  LeaseRecord* find(int64_t id);
  void event(int64_t lease, const std::string& kind, const std::string& domain, const std::string& message);
  nlohmann::json achieved_json(const LeaseRecord& lease) const;
  nlohmann::json lease_json(const LeaseRecord& lease) const;

  SysRoot root_;
  ClockInventory clocks_;
  const Clock& clock_;
  std::string journal_path_;
  ClockEventLog& events_;
  std::string boot_id_;
  LeaseJournal journal_;
  std::map<int64_t, Watch> watch_;
};

}  // namespace energy::daemon
