#include "db_facts.h"

#include <sqlite3.h>

#include <algorithm>

#include "energy/chunker.h"
#include "energy/sweep_ring.h"
#include "energy/sweep_tail.h"

namespace energy::testing {
namespace {

std::string column_text(sqlite3_stmt* st, int col) {
  const unsigned char* t = sqlite3_column_text(st, col);
  return t != nullptr ? std::string(reinterpret_cast<const char*>(t)) : std::string();
}

// Runs `sql`, handing every row to `row`; a failed query is noted in the facts.
template <typename Row>
void each_row(sqlite3* db, const char* sql, DbFacts& facts, Row&& row) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) {
    facts.integrity += std::string(" [") + sql + ": " + sqlite3_errmsg(db) + "]";
    return;
  }
  while (sqlite3_step(st) == SQLITE_ROW) row(st);
  sqlite3_finalize(st);
}

// The newest sweep of the sweep tail's valid frames; 0 with none. The
// stored reading is in microseconds (to_stored_ns), as the chunk's would be.
int64_t newest_tail_sweep(const std::string& path, DbFacts& f) {
  auto bytes = read_tail_file(path);
  if (!bytes) {
    f.tail_problem = bytes.error().describe();
    return 0;
  }
  TailScan scan = decode_tail(*bytes);
  f.tail_problem = scan.problem;
  f.tail_torn = scan.torn;
  int64_t newest = 0;
  for (const auto& frame : scan.frames) {
    if (!frame.sweeps.empty()) newest = std::max(newest, to_stored_ns(frame.sweeps.back().t_ns));
  }
  return newest;
}

}  // namespace

DbFacts inspect_database(const std::string& path, DbOpen mode, const std::string& ring) {
  DbFacts f;
  sqlite3* db = nullptr;
  const int flags = mode == DbOpen::kReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
  f.opened = sqlite3_open_v2(path.c_str(), &db, flags, nullptr) == SQLITE_OK;
  if (f.opened) {
    each_row(db, "PRAGMA integrity_check", f, [&](sqlite3_stmt* st) { f.integrity += column_text(st, 0); });
    each_row(db, "SELECT id, state FROM runs", f, [&](sqlite3_stmt* st) {
      f.runs.insert(sqlite3_column_int64(st, 0));
      if (column_text(st, 1) == "stopped") f.stopped.insert(sqlite3_column_int64(st, 0));
    });
    each_row(db, "SELECT coalesce(max(t_last_ns), 0) FROM chunks", f,
             [&](sqlite3_stmt* st) { f.chunks_last_t_ns = sqlite3_column_int64(st, 0); });
  }
  sqlite3_close(db);
  f.last_t_ns = std::max(f.chunks_last_t_ns, newest_tail_sweep(path + "-tail", f));
  if (!ring.empty()) {
    RingLeftover left = SweepRing::take_leftover(ring, 0, "");
    if (!left.sweeps.empty()) f.ring_last_t_ns = left.sweeps.back().t_ns;
    f.last_t_ns = std::max(f.last_t_ns, f.ring_last_t_ns);
  }
  return f;
}

bool database_holds(const std::string& path, int64_t t_ns) {
  sqlite3* db = nullptr;
  bool holds = false;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM chunks WHERE t_first_ns <= ?1 AND t_last_ns >= ?1", -1, &st, nullptr) ==
        SQLITE_OK) {
      sqlite3_bind_int64(st, 1, to_stored_ns(t_ns));
      holds = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return holds;
}

}  // namespace energy::testing
