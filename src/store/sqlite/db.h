// The SQLite side of the SQL engine (store/sql/statement.h): RAII over
// sqlite3 and sqlite3_stmt, errors as Status.
#pragma once

#include <sqlite3.h>

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engram/engine.h"
#include "engram/status.h"
#include "store/sql/statement.h"

namespace engram::store::sqlite {

using sql::Stmt;

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using DbHandle = std::unique_ptr<sqlite3, DbCloser>;

// Maps an SQLite result code to a Status with context.
Status SqliteError(sqlite3* db, int rc, std::string_view what);

// Prepares sql on db (persistent: meant to be cached and reused).
Result<Stmt> Prepare(sqlite3* db, std::string_view sql, bool persistent = true);
// Runs one or more statements without results.
Status Exec(sqlite3* db, const std::string& sql);

// One SQLite database file as a connection of the SQL engine: BEGIN
// IMMEDIATE takes the one writer's lock (waiting out the busy time-out).
class SqliteConnection final : public sql::Connection {
 public:
  SqliteConnection(DbHandle db, std::filesystem::path path) : db_(std::move(db)), path_(std::move(path)) {}

  sql::Dialect dialect() const override { return sql::Dialect::kSqlite; }
  Result<Stmt> Prepare(std::string_view sql, bool persistent) override;
  Status Exec(const std::string& sql) override;
  Status Begin() override;
  Status Commit() override;
  void Rollback() override;
  Result<std::pair<int64_t, int64_t>> ChangeKey() override;
  Result<std::vector<std::string>> StorageCheck() override;
  Result<int64_t> DatabaseBytes() override;
  Result<int> SchemaVersion() override;
  Result<std::string> Describe() override { return std::string("SQLite ") + sqlite3_libversion(); }
  std::string Identity() const override {
    std::error_code ec;
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(path_, ec);
    return "sqlite:" + (ec ? path_ : canonical).string();
  }

  sqlite3* raw() const { return db_.get(); }

 private:
  // The few statements run between every page write, prepared once.
  Result<Stmt*> Cached(const char* sql);

  DbHandle db_;
  std::filesystem::path path_;
  std::unordered_map<const char*, Stmt> cached_;
};

// Opens (with options.create_if_missing, creates) the SQLite database at
// path, migrated to this build's schema, as an engine.
Result<std::unique_ptr<Engine>> OpenSqliteEngine(const std::filesystem::path& path, const EngineOptions& options);

}  // namespace engram::store::sqlite
