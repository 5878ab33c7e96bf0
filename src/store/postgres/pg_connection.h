// The PostgreSQL side of the SQL engine (store/sql/statement.h), on libpq.
//
// Statements are written with SQLite's `?` / `?N` parameters and turned into
// `$N`; values go as text for PostgreSQL to type from the context, blobs as
// binary bytea. Results come as text (bytea decoded from hex).
//
// One writer across machines: a transaction first takes the lease row of
// engram_writer (a fencing token, the holder's host and pid, an expiry),
// waiting up to the busy time-out while another holder's lease runs; a
// heartbeat on a second connection extends it while the transaction lasts;
// and COMMIT happens only after an UPDATE inside the transaction proves the
// token is still the current one. A writer whose lease lapsed and was taken
// over therefore can never commit. No session advisory locks: they break
// behind transaction-pooling proxies.
#pragma once

#include <libpq-fe.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "engram/engine.h"
#include "engram/status.h"
#include "store/sql/statement.h"

namespace engram::store::postgres {

using sql::Stmt;

struct PgConnCloser {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using PgHandle = std::unique_ptr<PGconn, PgConnCloser>;

// "host:port/dbname" of a connection string, never its password.
std::string DescribeUrl(std::string_view url);

// Connects; errors name host, port and database and never the password.
Result<PgHandle> Connect(std::string_view url);

class PgConnection final : public sql::Connection {
 public:
  PgConnection(PgHandle conn, std::string url, const EngineOptions& options);
  ~PgConnection() override;

  sql::Dialect dialect() const override { return sql::Dialect::kPostgres; }
  Result<Stmt> Prepare(std::string_view sql, bool persistent) override;
  Status Exec(const std::string& sql) override;
  Status Begin() override;
  Status Commit() override;
  void Rollback() override;
  Result<std::pair<int64_t, int64_t>> ChangeKey() override;
  void ReadsFinished() override { xmax_known_ = false; }
  Result<std::vector<std::string>> StorageCheck() override;
  Result<int64_t> DatabaseBytes() override;
  Result<int> SchemaVersion() override;
  Result<std::string> Describe() override;
  std::string Identity() const override { return "postgres:" + url_; }
  Result<std::optional<ReplicaState>> ReadReplica() override;

  // The first column of the first row of sql (0 when there is none).
  Result<int64_t> QueryInt(const std::string& sql);
  Result<std::string> QueryText(const std::string& sql);
  // "host:port/dbname" of the primary (0) or the replica (1).
  const std::string& where(int which = 0) const { return which == 1 ? replica_where_ : where_; }

  // For statements: the libpq connection, a name for a new prepared
  // statement, and the count of rows changed (ChangeKey's second half).
  // Connection 0 is the primary, 1 the read replica.
  PGconn* raw(int which = 0) const { return which == 1 ? replica_.get() : conn_.get(); }
  std::string NextStatementName() {
    std::string name = "e";  // appended: GCC 12 warns (-Wrestrict) on "e" + std::string
    name += std::to_string(++statements_);
    return name;
  }
  void AddChanges(int64_t n) { changes_ += n; }
  // Bumped when a connection was re-established (its prepared statements are gone).
  int64_t epoch(int which = 0) const { return which == 1 ? replica_epoch_ : epoch_; }
  // The pipeline (Stmt::Send inside a write transaction): statements queued
  // on the primary without waiting for their answers. Send queues one (a
  // prepare first when prepare is set); Flush waits for every queued answer
  // and returns the first error, naming its statement. Everything that waits
  // for an answer on the primary flushes first.
  Status Send(const std::string& name, const std::string& sql, bool prepare, int n, const char* const* values,
              const int* lengths, const int* formats, bool write);
  Status Flush();
  // How the transaction's next statement is planned. PostgreSQL plans a
  // prepared statement either with each call's values or once (generic), and
  // picks after five calls by estimated cost; a generic plan fixed while a
  // table was empty (a first import) scans it whole for ever after (0.75 ms
  // a page look-up, not 0.02). So a write transaction plans with each call's
  // values (kind 0), except the statements whose plan no call's values can
  // change (kind 1: INSERTs that look nothing up), whose planning was a third
  // of a page's server time; kind -1 is not planned at all. A SET LOCAL is
  // queued when the mode changes.
  Status PlanFor(int kind);
  // Re-establishes a dropped primary connection outside a transaction; true when it did.
  bool Reconnect();
  bool in_transaction() const { return in_transaction_; }
  // Where a read outside a transaction goes: 1 (the replica) when there is
  // one, it answers, and it has replayed this connection's last commit; else 0.
  int ReadTarget();
  // The replica failed: reads go to the primary for a while, then it is tried again.
  void ReplicaFailed();

 private:
  Status TakeLease();
  void ReleaseLease();
  void StartHeartbeat();
  void StopHeartbeat();

  // After a commit, the primary's WAL position: every connection of this
  // process reads from the primary until the replica has replayed it, so a
  // process (a server's workers included) reads its own writes.
  void NoteCommit();

  PgHandle conn_;
  std::string url_, where_;
  int busy_timeout_ms_;
  PgHandle replica_;
  std::string read_url_, replica_where_;
  int64_t replica_epoch_ = 0;
  uint64_t replica_replayed_ = 0;  // the replica's replay position when last asked
  std::chrono::steady_clock::time_point replica_checked_{}, replica_down_until_{};
  int lease_seconds_;
  std::string holder_;  // host:pid:address of this connection
  int64_t token_ = 0;   // the fencing token of the lease held, 0 when none
  bool in_transaction_ = false;
  int plan_mode_ = -1;  // in a transaction: 0 each call's values, 1 PostgreSQL's choice, -1 not known
  int64_t statements_ = 0, changes_ = 0, epoch_ = 0;
  struct Queued {
    std::string sql;  // for errors
    bool write;       // its rows changed count in changes_
  };
  std::vector<Queued> queued_;  // sent, answers not read yet
  // ChangeKey's first half as last asked, and when.
  int64_t xmax_ = 0;
  bool xmax_known_ = false;
  std::chrono::steady_clock::time_point xmax_at_{};

  // The heartbeat: its own connection extends the lease every lease/3 s.
  PgHandle beat_conn_;
  std::thread beat_;
  std::mutex beat_mu_;
  std::condition_variable beat_cv_;
  bool beat_stop_ = false;
};

// Opens (with options.create_if_missing, creates the schema in) the
// PostgreSQL database a postgres:// or postgresql:// URL names.
Result<std::unique_ptr<Engine>> OpenPostgresEngine(std::string_view url, const EngineOptions& options);

}  // namespace engram::store::postgres
