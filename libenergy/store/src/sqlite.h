// Owner types for SQLite handles (internal to libenergy).
//
// Db owns a connection, Stmt a prepared statement; nothing else calls
// sqlite3_close or sqlite3_finalize. Errors come back as Result values whose
// message names the statement or file. Db keeps finished statements of fixed
// SQL text for reuse (parsing costs more than running most of the Store's
// lookups); a Stmt given back is reset first, so it never pins a snapshot.
//
// Thread-safety: a Db and its Stmts belong to one thread at a time.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>

#include "energy/result.h"

namespace energy::sql {

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};

// Finished statements by SQL text, at most kMaxStatements of them.
class StmtCache {
 public:
  static constexpr size_t kMaxStatements = 64;
  StmtCache() = default;
  StmtCache(const StmtCache&) = delete;
  StmtCache& operator=(const StmtCache&) = delete;
  ~StmtCache();
  sqlite3_stmt* take(std::string_view sql);
  void give_back(sqlite3_stmt* s);

 private:
  std::unordered_multimap<std::string, sqlite3_stmt*> idle_;
};

struct StmtFinalizer {
  StmtCache* cache = nullptr;  // gives the statement back for reuse instead
  void operator()(sqlite3_stmt* s) const;
};

enum class OpenMode { kReadWriteCreate, kReadOnly };

class Stmt;

class Db {
 public:
  static Result<Db> open(const std::string& path, OpenMode mode);
  Status exec(std::string_view sql);
  // The first column of the first row, or `fallback` when there is no row or it is NULL.
  Result<int64_t> query_int(std::string_view sql, int64_t fallback = 0);
  Result<Stmt> prepare(std::string_view sql);
  Error error(std::string_view what) const;
  int64_t last_insert_rowid() const { return sqlite3_last_insert_rowid(db_.get()); }
  sqlite3* raw() const { return db_.get(); }

 private:
  std::unique_ptr<sqlite3, DbCloser> db_;
  std::unique_ptr<StmtCache> cache_ = std::make_unique<StmtCache>();  // destroyed before the connection closes
};

enum class StepResult { kRow, kDone };

class Stmt {
 public:
  Stmt(sqlite3* db, sqlite3_stmt* s, StmtCache* cache) : db_(db), stmt_(s, StmtFinalizer{cache}) {}
  Stmt& bind(int index, int64_t v);
  Stmt& bind(int index, std::string_view v);
  Stmt& bind(int index, double v);
  Stmt& bind_blob(int index, const std::string& v);
  Stmt& bind_null(int index);
  Result<StepResult> step();
  Status run();  // step to completion, then reset
  void reset();
  int64_t int_at(int col) const { return sqlite3_column_int64(stmt_.get(), col); }
  bool null_at(int col) const { return sqlite3_column_type(stmt_.get(), col) == SQLITE_NULL; }
  std::string text_at(int col) const;
  std::string blob_at(int col) const;
  double double_at(int col) const { return sqlite3_column_double(stmt_.get(), col); }

 private:
  sqlite3* db_;
  std::unique_ptr<sqlite3_stmt, StmtFinalizer> stmt_;
};

// Steps `st` through its rows, calling on_row() at each (it reads the row
// from `st`). on_row returns void (next row), bool (false: stop here),
// Status (an error stops and is returned) or Result<bool> (both). A step's
// error is returned as is.
template <typename OnRow>
Status for_each_row(Stmt& st, OnRow&& on_row) {
  using Ret = decltype(on_row());
  for (;;) {
    auto r = st.step();
    if (!r) return r.take_error();
    if (*r == StepResult::kDone) return ok_status();
    if constexpr (std::is_void_v<Ret>) {
      on_row();
    } else if constexpr (std::is_same_v<Ret, bool>) {
      if (!on_row()) return ok_status();
    } else if constexpr (std::is_same_v<Ret, Status>) {
      Status s = on_row();
      if (!s) return s;
    } else {
      static_assert(std::is_same_v<Ret, Result<bool>>, "on_row returns void, bool, Status or Result<bool>");
      Result<bool> next = on_row();
      if (!next) return next.take_error();
      if (!*next) return ok_status();
    }
  }
}

}  // namespace energy::sql
