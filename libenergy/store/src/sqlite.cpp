#include "sqlite.h"

namespace energy::sql {

ErrorCode code_of(int rc);

Result<Db> Db::open(const std::string& path, OpenMode mode) {
  sqlite3* raw = nullptr;
  int flags = SQLITE_OPEN_NOMUTEX |
              (mode == OpenMode::kReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Db db;
  db.db_.reset(raw);
  if (rc != SQLITE_OK) {
    std::string msg = raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    return make_error(code_of(rc), "cannot open database " + path + ": " + msg);
  }
  sqlite3_extended_result_codes(raw, 1);
  return db;
}

ErrorCode code_of(int rc) {
  int primary = rc & 0xff;
  return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB ? ErrorCode::kCorrupt : ErrorCode::kStorage;
}

Error Db::error(std::string_view what) const {
  return make_error(code_of(sqlite3_errcode(db_.get())), std::string(what) + ": " + sqlite3_errmsg(db_.get()));
}

Status Db::exec(std::string_view sql) {
  std::string text(sql);
  char* msg = nullptr;
  int rc = sqlite3_exec(db_.get(), text.c_str(), nullptr, nullptr, &msg);
  if (rc == SQLITE_OK) return ok_status();
  std::string detail = msg != nullptr ? msg : sqlite3_errstr(rc);
  sqlite3_free(msg);
  return make_error(code_of(rc), "sql failed (" + detail + "): " + text.substr(0, 80));
}

Result<int64_t> Db::query_int(std::string_view sql, int64_t fallback) {
  auto st = prepare(sql);
  if (!st) return st.take_error();
  auto r = st->step();
  if (!r) return r.take_error();
  return *r == StepResult::kRow && !st->null_at(0) ? st->int_at(0) : fallback;
}

Result<Stmt> Db::prepare(std::string_view sql) {
  sqlite3_stmt* s = cache_->take(sql);
  if (s != nullptr) return Stmt(db_.get(), s, cache_.get());
  int rc = sqlite3_prepare_v2(db_.get(), sql.data(), static_cast<int>(sql.size()), &s, nullptr);
  if (rc != SQLITE_OK) return error("cannot prepare \"" + std::string(sql.substr(0, 60)) + "\"");
  return Stmt(db_.get(), s, cache_.get());
}

StmtCache::~StmtCache() {
  for (auto& [sql, s] : idle_) sqlite3_finalize(s);
}

sqlite3_stmt* StmtCache::take(std::string_view sql) {
  auto it = idle_.find(std::string(sql));
  if (it == idle_.end()) return nullptr;
  sqlite3_stmt* s = it->second;
  idle_.erase(it);
  return s;
}

void StmtCache::give_back(sqlite3_stmt* s) {
  const char* sql = sqlite3_sql(s);
  if (sql == nullptr) {
    sqlite3_finalize(s);
    return;
  }
  if (idle_.size() >= kMaxStatements) {  // SQL with literals in it: make room rather than refuse the next
    sqlite3_finalize(idle_.begin()->second);
    idle_.erase(idle_.begin());
  }
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  idle_.emplace(sql, s);
}

void StmtFinalizer::operator()(sqlite3_stmt* s) const {
  if (cache != nullptr) {
    cache->give_back(s);
    return;
  }
  sqlite3_finalize(s);
}

Stmt& Stmt::bind(int index, int64_t v) {
  sqlite3_bind_int64(stmt_.get(), index, v);
  return *this;
}

Stmt& Stmt::bind(int index, std::string_view v) {
  sqlite3_bind_text(stmt_.get(), index, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}

Stmt& Stmt::bind(int index, double v) {
  sqlite3_bind_double(stmt_.get(), index, v);
  return *this;
}

Stmt& Stmt::bind_blob(int index, const std::string& v) {
  sqlite3_bind_blob(stmt_.get(), index, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}

Stmt& Stmt::bind_null(int index) {
  sqlite3_bind_null(stmt_.get(), index);
  return *this;
}

Result<StepResult> Stmt::step() {
  int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return StepResult::kRow;
  if (rc == SQLITE_DONE) return StepResult::kDone;
  std::string sql = sqlite3_sql(stmt_.get()) != nullptr ? sqlite3_sql(stmt_.get()) : "";
  Error e = make_error(code_of(rc), std::string(sqlite3_errmsg(db_)) + " in \"" + sql.substr(0, 60) + "\"");
  sqlite3_reset(stmt_.get());
  return e;
}

Status Stmt::run() {
  auto rows = for_each_row(*this, [] {});
  if (!rows) return rows;
  reset();
  return ok_status();
}

void Stmt::reset() {
  sqlite3_reset(stmt_.get());
  sqlite3_clear_bindings(stmt_.get());
}

std::string Stmt::blob_at(int col) const {
  const void* p = sqlite3_column_blob(stmt_.get(), col);
  int n = sqlite3_column_bytes(stmt_.get(), col);
  return p != nullptr ? std::string(static_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}

std::string Stmt::text_at(int col) const {
  const unsigned char* t = sqlite3_column_text(stmt_.get(), col);
  return t != nullptr ? std::string(reinterpret_cast<const char*>(t)) : std::string();
}

}  // namespace energy::sql
