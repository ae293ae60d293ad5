// StoreCounters: the joule counters of `energy.counters` (daemon
// energy_counters.h) as a Store keeps them (schema 6): one row per rail
// label, each with the counters' id and start, replaced as a whole.
// Obtained from Store::counters(); it shares the Store's connection and
// transaction.
//
// Units: microjoules; wall-clock ns since the epoch.
// Thread-safety: that of its Store (one thread at a time).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "energy/result.h"

namespace energy {

namespace sql {
class Db;
}

// The counters as stored: their id (16 lowercase hex digits, new when they
// start from zero), when they started, and each rail's joules by label.
struct StoredCounters {
  std::string counters_id;
  int64_t created_wall_ns = 0;
  std::vector<std::pair<std::string, double>> energy_uj;  // label, microjoules >= 0
};

// The checks a stored or migrated counters record must pass: id of 16
// lowercase hex digits, created_wall_ns >= 0, each rail's joules finite and
// >= 0, no label twice. The error names `where` and the field.
Status validate_counters(const StoredCounters& c, const std::string& where);

class StoreCounters {
 public:
  // `path`: the database's (its sweep tail is <path>-tail); `reader`: a kReader store's.
  StoreCounters(sql::Db* db, const std::string& path, bool reader) : db_(db), path_(path), reader_(reader) {}
  StoreCounters(const StoreCounters&) = delete;
  StoreCounters& operator=(const StoreCounters&) = delete;

  // Replaces the stored counters; call inside the transaction that stores
  // the sweeps they count (StorageWriter::flush).
  Status put(const StoredCounters& c);
  // The stored counters, nullopt when none were ever stored; kCorrupt when
  // the stored rows fail validate_counters. A reader takes those of the
  // sweep tail's newest frame when it has any (they count the tail's sweeps).
  Result<std::optional<StoredCounters>> get();

 private:
  Result<std::optional<StoredCounters>> from_tail();

  sql::Db* db_;
  const std::string& path_;  // the Store's
  bool reader_;
};

}  // namespace energy
