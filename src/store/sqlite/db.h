// Thin RAII wrappers over sqlite3 and sqlite3_stmt; errors become Status.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram::store::sqlite {

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StmtFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using DbHandle = std::unique_ptr<sqlite3, DbCloser>;

// Maps an SQLite result code to a Status with context.
Status SqliteError(sqlite3* db, int rc, std::string_view what);

// A prepared statement. Bind with 1-based indexes; Step() returns true while
// a row is available, false when done; errors are kept in status().
class Stmt {
 public:
  Stmt() = default;
  Stmt(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}

  Stmt& Bind(int i, int64_t v) { sqlite3_bind_int64(stmt_.get(), i, v); return *this; }
  Stmt& Bind(int i, double v) { sqlite3_bind_double(stmt_.get(), i, v); return *this; }
  Stmt& Bind(int i, std::string_view v) {
    sqlite3_bind_text(stmt_.get(), i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& BindBlob(int i, std::string_view v) {
    sqlite3_bind_blob(stmt_.get(), i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& BindNull(int i) { sqlite3_bind_null(stmt_.get(), i); return *this; }

  // Advances; true when a row is ready. On error returns false and sets status().
  bool Step();
  // Runs to completion (for statements without rows).
  Status Run();
  // Stepped and not yet reset or run to the end: it holds a read transaction.
  bool Busy() const { return stmt_ && sqlite3_stmt_busy(stmt_.get()) != 0; }
  void Reset() {
    sqlite3_reset(stmt_.get());
    sqlite3_clear_bindings(stmt_.get());
    status_ = Status::Ok();
  }

  int64_t Int(int col) const { return sqlite3_column_int64(stmt_.get(), col); }
  double Double(int col) const { return sqlite3_column_double(stmt_.get(), col); }
  std::string Text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_.get(), col));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_.get(), col))) : std::string();
  }
  std::string_view Blob(int col) const {
    const void* p = sqlite3_column_blob(stmt_.get(), col);
    return p ? std::string_view(static_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_.get(), col)))
             : std::string_view();
  }
  int ColumnCount() const { return sqlite3_column_count(stmt_.get()); }
  bool IsNull(int col) const { return sqlite3_column_type(stmt_.get(), col) == SQLITE_NULL; }
  const Status& status() const { return status_; }
  bool valid() const { return stmt_ != nullptr; }

 private:
  sqlite3* db_ = nullptr;
  std::unique_ptr<sqlite3_stmt, StmtFinalizer> stmt_;
  Status status_;
};

// Prepares sql on db (persistent: meant to be cached and reused).
Result<Stmt> Prepare(sqlite3* db, std::string_view sql);
// Runs one or more statements without results.
Status Exec(sqlite3* db, const std::string& sql);

// A vector as the bytes of its floats (host order, as every reader here
// expects), and back.
inline std::string_view FloatBytes(const std::vector<float>& v) {
  return {reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)};
}
inline std::vector<float> FloatsOf(std::string_view b) {
  std::vector<float> v(b.size() / sizeof(float));
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(float));
  return v;
}

}  // namespace engram::store::sqlite
