// What the SQL engine (sql_engine.h) needs of a database library: a
// connection that prepares statements and runs transactions, and statements
// that bind, step and read columns. SQLite (src/store/sqlite/db.h) and
// PostgreSQL (src/store/postgres/pg_connection.h) implement it; the engine's
// SQL is written once, with `?` / `?N` parameters, in the subset both
// dialects read, and picks per dialect only where they differ (SqlEngine::D).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engram/engine.h"
#include "engram/status.h"

// The SQL that logs one change (engram/store/change_log.h) of stream (an
// integer literal) for key (an SQL expression), as both engines' vector
// triggers and LogChange run it: advance the one generation row — which a
// concurrent writer would have to wait for — and record the entry with the
// new generation.
#define ENGRAM_LOG_CHANGE_SQL(stream, key)            \
  "UPDATE store_generation SET value = value + 1; " \
  "INSERT INTO change_log(generation, stream, key) SELECT value, " stream ", " key " FROM store_generation;"

namespace engram::store::sql {

enum class Dialect { kSqlite, kPostgres };

// One prepared statement of a library. Parameters are 1-based; columns 0-based.
class StmtImpl {
 public:
  virtual ~StmtImpl() = default;
  virtual void BindInt(int i, int64_t v) = 0;
  virtual void BindDouble(int i, double v) = 0;
  virtual void BindText(int i, std::string_view v) = 0;
  virtual void BindBlob(int i, std::string_view v) = 0;
  virtual void BindNull(int i) = 0;
  // Advances; true when a row is ready; false when done or on an error (kept in *status).
  virtual bool Step(Status* status) = 0;
  // Stepped and not yet reset or run to the end, holding a read snapshot open.
  virtual bool Busy() const = 0;
  // Back to before the first Step, bindings cleared.
  virtual void Reset() = 0;
  virtual int64_t Int(int col) const = 0;
  virtual double Double(int col) const = 0;
  virtual std::string Text(int col) const = 0;
  // Valid until the next Step or Reset.
  virtual std::string_view Blob(int col) const = 0;
  virtual int ColumnCount() const = 0;
  virtual bool IsNull(int col) const = 0;
  // Rows the last completed run inserted, updated or deleted.
  virtual int64_t Changes() const = 0;
  // Stmt::Send: by default, a run to the end.
  virtual Status Send() {
    Status st;
    while (Step(&st)) {
    }
    return st;
  }
};

// A prepared statement: Bind, then Step() while it returns true (or Run()
// for statements without rows); errors are kept in status().
class Stmt {
 public:
  Stmt() = default;
  explicit Stmt(std::unique_ptr<StmtImpl> impl) : impl_(std::move(impl)) {}

  Stmt& Bind(int i, int64_t v) { impl_->BindInt(i, v); return *this; }
  Stmt& Bind(int i, double v) { impl_->BindDouble(i, v); return *this; }
  Stmt& Bind(int i, std::string_view v) { impl_->BindText(i, v); return *this; }
  Stmt& BindBlob(int i, std::string_view v) { impl_->BindBlob(i, v); return *this; }
  Stmt& BindNull(int i) { impl_->BindNull(i); return *this; }

  bool Step() { return impl_->Step(&status_); }
  // Runs to completion and resets.
  Status Run() {
    while (Step()) {
    }
    Status st = status_;
    changes_ = impl_->Changes();
    Reset();
    return st;
  }
  // Runs a statement whose rows and Changes() the caller never reads, and
  // resets. An engine may queue it with the ones that follow and report its
  // error with the next statement that waits for an answer (PostgreSQL's
  // pipeline, inside a write transaction): only for statements whose
  // failure fails the whole write they belong to.
  Status Send() {
    Status st = impl_->Send();
    changes_ = 0;
    Reset();
    return st;
  }
  bool Busy() const { return impl_ && impl_->Busy(); }
  void Reset() {
    impl_->Reset();
    status_ = Status::Ok();
  }

  int64_t Int(int col) const { return impl_->Int(col); }
  double Double(int col) const { return impl_->Double(col); }
  std::string Text(int col) const { return impl_->Text(col); }
  std::string_view Blob(int col) const { return impl_->Blob(col); }
  int ColumnCount() const { return impl_->ColumnCount(); }
  bool IsNull(int col) const { return impl_->IsNull(col); }
  // Rows changed by the last Run().
  int64_t Changes() const { return changes_; }
  const Status& status() const { return status_; }
  bool valid() const { return impl_ != nullptr; }

 private:
  std::unique_ptr<StmtImpl> impl_;
  Status status_;
  int64_t changes_ = 0;
};

// One connection to one database, used by one thread at a time.
class Connection {
 public:
  virtual ~Connection() = default;
  virtual Dialect dialect() const = 0;
  // Prepares one statement (`?` or `?N` parameters); persistent ones are
  // meant to be cached and run many times.
  virtual Result<Stmt> Prepare(std::string_view sql, bool persistent) = 0;
  // Runs one or more statements without results.
  virtual Status Exec(const std::string& sql) = 0;
  // A write transaction: begun only by the one writer of the database (a
  // second waits, then fails naming the holder), committed only while this
  // connection still is that writer.
  virtual Status Begin() = 0;
  virtual Status Commit() = 0;
  virtual void Rollback() = 0;
  // Changes whenever any connection has committed since the last call
  // (caches of posting lists and statistics are dropped when it moves).
  // A server's engine may answer from what it last asked until
  // ReadsFinished (between requests) or for at most a second: one search
  // then costs one probe, not one per list.
  virtual Result<std::pair<int64_t, int64_t>> ChangeKey() = 0;
  // The caller finished a request (Engine::FinishReads): the next ChangeKey asks afresh.
  virtual void ReadsFinished() {}
  // What the storage itself finds wrong (a page-level check), "" when fine.
  virtual Result<std::vector<std::string>> StorageCheck() = 0;
  // Bytes the database takes.
  virtual Result<int64_t> DatabaseBytes() = 0;
  // The schema version the database is at.
  virtual Result<int> SchemaVersion() = 0;
  // The library or server and its version, and where it is.
  virtual Result<std::string> Describe() = 0;
  // The database this connects to, the same for every connection to it in a
  // process (the SQLite file's canonical path; the PostgreSQL URL): a cache
  // key, never shown.
  virtual std::string Identity() const = 0;
  // The read replica, when one serves reads.
  virtual Result<std::optional<ReplicaState>> ReadReplica() { return std::optional<ReplicaState>(); }
};

// PostgreSQL array literals, for one statement over many values
// (`= ANY(?::bigint[])`, `= ANY(?::text[])`): {1,2} and {"a","b\"c"}, each
// text element quoted, with its quotes and backslashes escaped.
inline std::string IntArray(const std::vector<int64_t>& values) {
  std::string out = "{";
  for (const int64_t v : values) out.append(out.size() > 1 ? "," : "").append(std::to_string(v));
  return out + "}";
}
inline std::string TextArray(const std::vector<std::string>& values) {
  std::string out = "{";
  for (const std::string& v : values) {
    if (out.size() > 1) out += ',';
    out += '"';
    for (const char c : v) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

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

}  // namespace engram::store::sql
