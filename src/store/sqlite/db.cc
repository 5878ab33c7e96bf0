#include "store/sqlite/db.h"

#include <sys/stat.h>

namespace engram::store::sqlite {

namespace {

class SqliteStmt final : public sql::StmtImpl {
 public:
  SqliteStmt(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~SqliteStmt() override { sqlite3_finalize(stmt_); }
  SqliteStmt(const SqliteStmt&) = delete;
  SqliteStmt& operator=(const SqliteStmt&) = delete;

  void BindInt(int i, int64_t v) override { sqlite3_bind_int64(stmt_, i, v); }
  void BindDouble(int i, double v) override { sqlite3_bind_double(stmt_, i, v); }
  void BindText(int i, std::string_view v) override {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void BindBlob(int i, std::string_view v) override {
    sqlite3_bind_blob(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void BindNull(int i) override { sqlite3_bind_null(stmt_, i); }
  bool Step(Status* status) override {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) *status = SqliteError(db_, rc, "sqlite step");
    return false;
  }
  bool Busy() const override { return sqlite3_stmt_busy(stmt_) != 0; }
  void Reset() override {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  int64_t Int(int col) const override { return sqlite3_column_int64(stmt_, col); }
  double Double(int col) const override { return sqlite3_column_double(stmt_, col); }
  std::string Text(int col) const override {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
  }
  std::string_view Blob(int col) const override {
    const void* p = sqlite3_column_blob(stmt_, col);
    return p ? std::string_view(static_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string_view();
  }
  int ColumnCount() const override { return sqlite3_column_count(stmt_); }
  bool IsNull(int col) const override { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  int64_t Changes() const override { return sqlite3_changes64(db_); }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

}  // namespace

Status SqliteError(sqlite3* db, int rc, std::string_view what) {
  std::string msg = std::string(what) + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  switch (rc & 0xFF) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Status::Corruption(msg);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Unavailable(msg);
    case SQLITE_CONSTRAINT:
      return Status::AlreadyExists(msg);
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
      return Status::IOError(msg);
    default:
      return Status::Internal(msg);
  }
}

Result<Stmt> Prepare(sqlite3* db, std::string_view sql, bool persistent) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), persistent ? SQLITE_PREPARE_PERSISTENT : 0,
                              &stmt, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db, rc, "preparing '" + std::string(sql.substr(0, 60)) + "'");
  return Stmt(std::make_unique<SqliteStmt>(db, stmt));
}

Status Exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    Status st = SqliteError(nullptr, rc, msg);
    return Status(st.code(), msg);
  }
  return Status::Ok();
}

Result<Stmt> SqliteConnection::Prepare(std::string_view sql, bool persistent) {
  return sqlite::Prepare(db_.get(), sql, persistent);
}

Status SqliteConnection::Exec(const std::string& sql) { return sqlite::Exec(db_.get(), sql); }

Result<Stmt*> SqliteConnection::Cached(const char* sql) {
  auto it = cached_.find(sql);
  if (it != cached_.end()) return &it->second;
  ENGRAM_ASSIGN_OR_RETURN(Stmt stmt, sqlite::Prepare(db_.get(), sql, true));
  return &cached_.emplace(sql, std::move(stmt)).first->second;
}

Status SqliteConnection::Begin() {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * begin, Cached("BEGIN IMMEDIATE"));
  return begin->Run();
}

Status SqliteConnection::Commit() {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * commit, Cached("COMMIT"));
  return commit->Run();
}

void SqliteConnection::Rollback() { (void)sqlite::Exec(db_.get(), "ROLLBACK"); }

Result<std::pair<int64_t, int64_t>> SqliteConnection::ChangeKey() {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * version, Cached("PRAGMA data_version"));
  if (!version->Step()) {
    ENGRAM_RETURN_IF_ERROR(version->status());
    return Status::Internal("PRAGMA data_version returned nothing");
  }
  const std::pair<int64_t, int64_t> key{version->Int(0), sqlite3_total_changes64(db_.get())};
  version->Reset();
  return key;
}

Result<std::vector<std::string>> SqliteConnection::StorageCheck() {
  ENGRAM_ASSIGN_OR_RETURN(Stmt q, sqlite::Prepare(db_.get(), "PRAGMA quick_check", false));
  std::vector<std::string> problems;
  while (q.Step()) {
    std::string row = q.Text(0);
    if (row != "ok") problems.push_back("sqlite: " + row);
  }
  ENGRAM_RETURN_IF_ERROR(q.status());
  return problems;
}

Result<int64_t> SqliteConnection::DatabaseBytes() {
  int64_t bytes = 0;
  struct stat sb;
  if (::stat(path_.c_str(), &sb) == 0) bytes = sb.st_size;
  const std::string wal = path_.string() + "-wal";
  if (::stat(wal.c_str(), &sb) == 0) bytes += sb.st_size;
  return bytes;
}

Result<int> SqliteConnection::SchemaVersion() {
  ENGRAM_ASSIGN_OR_RETURN(Stmt q, sqlite::Prepare(db_.get(), "PRAGMA user_version", false));
  int v = q.Step() ? static_cast<int>(q.Int(0)) : 0;
  ENGRAM_RETURN_IF_ERROR(q.status());
  return v;
}

}  // namespace engram::store::sqlite
