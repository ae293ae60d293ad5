// Injected sensor faults: what a read of a faulted rail's value files does
// (which files: assumption A31).
//   eio / etimedout / enodata / eagain: the read fails with that errno
//       (EIO: chip shut down; ETIMEDOUT: no conversion in two intervals;
//       ENODATA: channel disabled; EAGAIN: L4T 32 triggered mode);
//   block: the read sleeps `block_ms` (or until the fault is cleared),
//       interruptibly, then answers with a fresh value;
//   vanish: the rail's files disappear (lookups ENOENT, open descriptors
//       ENODEV) until the fault is cleared.
// `reads` limits errno and block faults to that many reads (then the fault
// clears itself); without it the fault holds until cleared. Only reads at
// offset 0 count: the rest of a read that started before are served.
//
// Thread-safety: FaultTable is not synchronised; LiveFs locks around it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "energy/result.h"

namespace energy::sim {

enum class FaultKind { kEio, kEtimedout, kEnodata, kEagain, kBlock, kVanish };

// "eio" <-> FaultKind::kEio, ...; kInvalid listing the kinds for an unknown name.
Result<FaultKind> parse_fault_kind(std::string_view name);
const char* fault_kind_name(FaultKind kind);
// The errno a read fails with; 0 for block and vanish.
int fault_errno(FaultKind kind);

struct FaultSpec {
  FaultKind kind = FaultKind::kEio;
  std::optional<std::uint64_t> reads;    // reads it affects; nullopt: until cleared
  std::optional<std::int64_t> block_ms;  // block only; nullopt: until cleared
};

// kInvalid when `reads` or `block_ms` do not fit the kind (zero, negative,
// block_ms on a non-block fault, reads on vanish).
Status check_fault(const FaultSpec& fault);

// What one read of a faulted rail does.
struct ReadFault {
  int sys_errno = 0;                     // != 0: fail with it
  bool block = false;                    // sleep first
  std::optional<std::int64_t> block_ms;  // nullopt: until the fault is cleared
  std::string rail_id;
  std::uint64_t generation = 0;  // the rail's clear generation when the read began
};

class FaultTable {
 public:
  // Replaces any fault of that rail.
  void set(const std::string& rail_id, const FaultSpec& fault);
  // Every fault when `rail_id` is empty; returns how many were cleared.
  std::size_t clear(const std::string& rail_id);
  // Consumes one read of `rail_id`: nullopt when the rail is healthy.
  std::optional<ReadFault> on_read(const std::string& rail_id);
  // True once the fault a blocked read started under was cleared or replaced.
  bool released(const ReadFault& fault) const;

  struct Entry {
    std::string rail_id;
    FaultSpec fault;
  };
  std::vector<Entry> entries() const;
  bool vanished(const std::string& rail_id) const;

 private:
  std::map<std::string, FaultSpec> faults_;
  std::map<std::string, std::uint64_t> generations_;
};

}  // namespace energy::sim
