// StoreContext: the board context log of a Store (context.h): the change
// log of polled clocks, governors and temperatures, one row per change of a
// source in a boot (t_ns is CLOCK_BOOTTIME of that boot). Source ids are per
// database, created on first use. Retention ages the rows out with the 1 s
// tier (Store's apply_retention). Obtained from Store::context(); it shares
// the Store's connection and transaction.
//
// Thread-safety: that of its Store (one thread at a time).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "energy/context.h"
#include "energy/integrate.h"
#include "energy/result.h"

namespace energy {

namespace sql {
class Db;
}

class StoreContext {
 public:
  explicit StoreContext(sql::Db* db) : db_(db) {}
  StoreContext(const StoreContext&) = delete;
  StoreContext& operator=(const StoreContext&) = delete;

  Result<int64_t> ensure_source(ContextKind kind, const std::string& name);
  // Stores one row of a source in a boot; a row at the same instant replaces it.
  Status put_row(int64_t boot, int64_t source, const ContextRow& row);
  // Every source with a row in `boot`, by kind and name: its last row at or
  // before the window's start (the state the window starts in) and its rows
  // after that, up to the window's end (none: unknown all along, e.g. aged out).
  Result<std::vector<ContextSeries>> window(int64_t boot, EnergyWindow window);
  // The same rows streamed into `sink` (a long run's rows need not be held at once).
  Status scan(int64_t boot, EnergyWindow window, ContextRowSink& sink);
  // Ends an earlier daemon's polling in this boot (it crashed or stopped):
  // every source whose last row in the boot holds a value gets an unknown
  // row at max(stopped_ns, that row + 1 ns). Returns how many were added.
  Result<int64_t> close(int64_t boot, int64_t stopped_ns);
  // Whether an earlier daemon's polling was closed (close() above) at some
  // instant in [from_ns, to_ns]: every source that held a value then turned
  // unknown at once (a single failed read turns one source unknown).
  Result<bool> restart_between(int64_t boot, int64_t from_ns, int64_t to_ns);
  // Retention (StoreTiers): in every boot, deletes each source's rows before
  // cut(boot) except its newest row at or before the cut (so the state there
  // stays known), at most max_rows in all; `more` when rows remain.
  struct Trimmed {
    int64_t rows_deleted = 0;
    bool more = false;
  };
  Result<Trimmed> trim(const std::function<Result<int64_t>(int64_t boot)>& cut, int64_t max_rows);

 private:
  sql::Db* db_;
};

}  // namespace energy
