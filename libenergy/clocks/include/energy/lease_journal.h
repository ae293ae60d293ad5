// Lease journal: the durable record of every clock pin, written before the
// first clock write so that whatever energyd changed can be put back after a
// stop, a crash or a restart.
//
// Owns: the journal's JSON format (docs/CLOCKS.md). It is replaced durably
// (durable_file.h): after a crash or power cut the file holds either the
// previous or the new journal, never a mix.
// Units: CLOCK_BOOTTIME ns (`*_boot_ns`, comparable only within `boot_id`),
// CLOCK_REALTIME ns (`*_wall_ns`, display only), file texts in the file's unit.
//
// Thread-safety: plain values and reentrant functions; one writer per path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "energy/clock_pin.h"
#include "energy/result.h"

namespace energy {

enum class LeaseKind {
  kConnection,  // ends when the client's connection closes
  kDuration,    // ends at expires_boot_ns
  kRun,         // ends when run `run_id` is stopped
};
const char* lease_kind_name(LeaseKind kind);
Result<LeaseKind> parse_lease_kind(const std::string& name);

enum class LeaseState {
  kApplying,   // journaled, writes under way (restored if found at start)
  kActive,     // every write done and verified
  kReleasing,  // a restore failed; retried until it succeeds
};
const char* lease_state_name(LeaseState state);

struct LeaseRecord {
  int64_t id = 0;
  LeaseKind kind = LeaseKind::kConnection;
  LeaseState state = LeaseState::kApplying;
  uint64_t connection = 0;      // kConnection: the daemon's connection id
  int64_t run_id = 0;           // kRun
  int64_t expires_boot_ns = 0;  // kDuration
  int64_t created_boot_ns = 0;
  int64_t created_wall_ns = 0;
  // The uid that may unpin it (besides root); nullopt for a lease journaled
  // before owners were recorded (no "owner_uid" in the file).
  std::optional<int64_t> owner_uid;
  std::vector<DomainPin> domains;
};

struct LeaseJournal {
  std::string boot_id;     // the boot whose clocks the leases changed
  int64_t next_lease = 1;  // lease ids are never reused within a journal
  std::vector<LeaseRecord> leases;
};

std::string journal_to_text(const LeaseJournal& journal);
// Errors (kParse) name the field at fault.
Result<LeaseJournal> journal_from_text(const std::string& text, const std::string& what);

// A missing file is an empty journal (no leases, next_lease 1).
Result<LeaseJournal> load_journal(const std::string& path);
// Durable replacement, as described above; errors name the file and step.
Status save_journal(const std::string& path, const LeaseJournal& journal);

}  // namespace energy
