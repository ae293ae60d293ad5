// What a crash test needs to know of energyd's database after a kill or a
// power cut: whether it opens, PRAGMA integrity_check, the runs and which
// of them are stopped, and the newest stored reading (database or sweep tail).
#pragma once

#include <cstdint>
#include <set>
#include <string>

namespace energy::testing {

struct DbFacts {
  bool opened = false;
  std::string integrity;  // "ok", or what the check (or a failed query) said
  std::set<int64_t> runs;
  std::set<int64_t> stopped;
  // The newest reading energyd's next start holds: the newest chunk's last
  // reading, or the newest sweep of the sweep tail (<db>-tail, replayed at
  // start) when later; 0 with none.
  int64_t last_t_ns = 0;
  int64_t chunks_last_t_ns = 0;  // the database's alone
  int64_t ring_last_t_ns = 0;    // the newest sweep of the sweep ring, when one was given
  std::string tail_problem;      // what decoding the tail found wrong (a torn last frame included)
  bool tail_torn = false;
};

enum class DbOpen {
  kReadOnly,   // leaves the files as they are
  kReadWrite,  // lets SQLite replay the WAL into the database, as energyd's next start would
};

// `ring`: energyd's sweep ring file (its socket's directory/sweep-ring), whose
// sweeps the next start also stores; empty when energyd runs without one.
DbFacts inspect_database(const std::string& path, DbOpen mode, const std::string& ring = "");

// Whether a chunk of the database holds the reading at t_ns (its first and
// last readings are on either side of it).
bool database_holds(const std::string& path, int64_t t_ns);

}  // namespace energy::testing
