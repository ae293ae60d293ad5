// PinHistory: which clock pins were in force when, so that a run's report
// can say what clocks it ran at (`clock_pins` in mark.stop, docs/CLOCKS.md).
//
// Owns: one record per lease pinned since energyd started (the newest
// kMaxRecords): its requested and achieved (read back right after the
// writes) values per domain, the CLOCK_BOOTTIME of the pin and of the
// release. Leases adopted from the journal at start are not recorded (their
// read-back happened in an earlier process).
// Units: frequencies Hz, times CLOCK_BOOTTIME ns.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <set>

#include <nlohmann/json.hpp>

namespace energy::daemon {

class PinHistory {
 public:
  static constexpr size_t kMaxRecords = 1000;

  // `pin_reply` is a successful clocks.pin reply ({"lease", "domains"}).
  void pinned(const nlohmann::json& pin_reply, int64_t boot_ns);
  // The lease (pinned for a run not yet open) now belongs to run `run_id`.
  void bound(int64_t lease, int64_t run_id);
  // Every recorded lease not in `live_leases` and not yet released is
  // marked released at `boot_ns`.
  void sync(const std::set<int64_t>& live_leases, int64_t boot_ns);
  // The pins of a run: leases tied to `run_id`, and leases in force at any
  // time in [from_boot_ns, to_boot_ns]; oldest first.
  nlohmann::json for_run(int64_t run_id, int64_t from_boot_ns, int64_t to_boot_ns) const;

 private:
  // NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json member; its moves do not throw
  struct Record {
    int64_t lease = 0;
    int64_t run_id = 0;  // 0: not a run lease
    std::string kind;
    int64_t pinned_boot_ns = 0;
    int64_t released_boot_ns = 0;  // 0: still in force
    nlohmann::json domains;
  };
  static nlohmann::json record_json(const Record& r);

  mutable std::mutex mu_;
  std::deque<Record> records_;
};

}  // namespace energy::daemon
