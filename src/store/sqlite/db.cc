#include "store/sqlite/db.h"

namespace engram::store::sqlite {

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

bool Stmt::Step() {
  int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE) status_ = SqliteError(db_, rc, "sqlite step");
  return false;
}

Status Stmt::Run() {
  while (Step()) {
  }
  Status st = status_;
  Reset();
  return st;
}

Result<Stmt> Prepare(sqlite3* db, std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                              &stmt, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db, rc, "preparing '" + std::string(sql.substr(0, 60)) + "'");
  return Stmt(db, stmt);
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

}  // namespace engram::store::sqlite
