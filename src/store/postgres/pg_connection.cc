#include "store/postgres/pg_connection.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "store/postgres/pg_schema.h"
#include "store/sql/sql_engine.h"

namespace engram::store::postgres {

namespace {

constexpr unsigned kByteaOid = 17;
constexpr unsigned kBoolOid = 16;

std::string Trimmed(const char* msg) {
  std::string s = msg ? msg : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// A Status for a failed result (or, with res null, for the connection).
Status PgError(PGconn* conn, const PGresult* res, std::string_view what) {
  const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  std::string msg = std::string(what) + ": " + Trimmed(res ? PQresultErrorMessage(res) : PQerrorMessage(conn));
  const std::string code = state ? state : "";
  if (PQstatus(conn) == CONNECTION_BAD || code.rfind("08", 0) == 0) return Status::Unavailable(msg);
  if (code.rfind("23", 0) == 0) return Status::AlreadyExists(msg);
  if (code == "40001" || code == "40P01" || code == "55P03" || code == "57014" || code.rfind("57P", 0) == 0) {
    return Status::Unavailable(msg);
  }
  if (code == "42501") return Status::PermissionDenied(msg);
  if (code == "XX001" || code == "XX002") return Status::Corruption(msg);
  if (code.rfind("53", 0) == 0) return Status::IOError(msg);
  if (code.rfind("22", 0) == 0) return Status::InvalidArgument(msg);
  return Status::Internal(msg);
}

struct ResultFree {
  void operator()(PGresult* r) const { PQclear(r); }
};
using ResultHandle = std::unique_ptr<PGresult, ResultFree>;

// `?` and `?N` (outside quotes) as `$N`; *params is the highest number.
std::string Translate(std::string_view sql, int* params) {
  std::string out;
  out.reserve(sql.size() + 16);
  int next = 0, highest = 0;
  char quote = 0;
  for (size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (quote) {
      out += c;
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      out += c;
      continue;
    }
    if (c != '?') {
      out += c;
      continue;
    }
    size_t j = i + 1;
    int n = 0;
    while (j < sql.size() && sql[j] >= '0' && sql[j] <= '9') n = n * 10 + (sql[j++] - '0');
    if (j == i + 1) n = ++next;
    else next = std::max(next, n);
    highest = std::max(highest, n);
    out += '$' + std::to_string(n);
    i = j - 1;
  }
  *params = highest;
  return out;
}

// An INSERT, UPDATE or DELETE: run on the primary.
bool IsWrite(const std::string& sql) {
  size_t i = sql.find_first_not_of(" \n\t");
  if (i == std::string::npos) return false;
  std::string word;
  while (i < sql.size() && std::isalpha(static_cast<unsigned char>(sql[i]))) {
    word += static_cast<char>(std::toupper(static_cast<unsigned char>(sql[i++])));
  }
  return word == "INSERT" || word == "UPDATE" || word == "DELETE";
}

// How a statement wants to be planned in a write transaction
// (PgConnection::PlanFor): -1 it is not planned (SAVEPOINT, RELEASE, SET);
// 1 once, an INSERT whose plan no call's values can change (it looks nothing
// up, or only by constants); 0 with each call's values, everything else.
int PlanKind(const std::string& sql) {
  std::string upper(sql);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const size_t start = upper.find_first_not_of(" \n\t");
  if (start == std::string::npos) return -1;
  const auto starts = [&](const char* word) { return upper.compare(start, std::strlen(word), word) == 0; };
  if (starts("SAVEPOINT") || starts("RELEASE") || starts("ROLLBACK") || starts("SET ")) return -1;
  if (!starts("INSERT")) return 0;
  const size_t where = upper.find("WHERE");
  return where == std::string::npos || upper.find('$', where) == std::string::npos ? 1 : 0;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 0;
}

class PgStmt final : public sql::StmtImpl {
 public:
  PgStmt(PgConnection* conn, std::string sql, int params, bool persistent)
      : conn_(conn), sql_(std::move(sql)), values_(static_cast<size_t>(params)),
        null_(static_cast<size_t>(params), 1), binary_(static_cast<size_t>(params), 0), persistent_(persistent),
        write_(IsWrite(sql_)), own_transaction_(write_ && sql_.find("engram_writer") == std::string::npos),
        plan_kind_(PlanKind(sql_)) {}

  void BindInt(int i, int64_t v) override { Set(i, std::to_string(v), false); }
  void BindDouble(int i, double v) override {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    Set(i, buf, false);
  }
  void BindText(int i, std::string_view v) override { Set(i, std::string(v), false); }
  void BindBlob(int i, std::string_view v) override { Set(i, std::string(v), true); }
  void BindNull(int i) override {
    if (Valid(i)) null_[static_cast<size_t>(i - 1)] = 1;
  }

  bool Step(Status* status) override {
    if (!res_) {
      // A write outside a transaction is a transaction of its own, fenced like any other.
      if (own_transaction_ && !conn_->in_transaction()) {
        *status = conn_->Begin();
        if (!status->ok()) return false;
        const bool ran = Execute(status);
        if (!ran) {
          conn_->Rollback();
          return false;
        }
        *status = conn_->Commit();
        if (!status->ok()) return false;
      } else if (!Execute(status)) {
        return false;
      }
      row_ = -1;
    }
    return ++row_ < PQntuples(res_.get());
  }
  bool Busy() const override { return false; }  // results are read whole: no snapshot stays open
  Status Send() override {
    if (!conn_->in_transaction()) return sql::StmtImpl::Send();
    ENGRAM_RETURN_IF_ERROR(conn_->PlanFor(plan_kind_));
    std::vector<const char*> values(values_.size());
    std::vector<int> lengths(values_.size());
    for (size_t k = 0; k < values_.size(); ++k) {
      values[k] = null_[k] ? nullptr : values_[k].data();
      lengths[k] = static_cast<int>(values_[k].size());
    }
    const bool prepare = persistent_ && epoch_[0] != conn_->epoch(0);
    if (prepare) name_[0] = conn_->NextStatementName();
    Status st = conn_->Send(persistent_ ? name_[0] : std::string(), sql_, prepare, static_cast<int>(values_.size()),
                            values.data(), lengths.data(), binary_.data(), write_);
    if (prepare) epoch_[0] = conn_->epoch(0);  // a pipeline that fails moves the epoch: prepared again then
    return st;
  }
  void Reset() override {
    res_.reset();
    row_ = -1;
    for (auto& n : null_) n = 1;
    for (auto& b : binary_) b = 0;
  }
  int64_t Int(int col) const override {
    const char* v = PQgetvalue(res_.get(), row_, col);
    if (PQftype(res_.get(), col) == kBoolOid) return v[0] == 't' ? 1 : 0;
    return std::strtoll(v, nullptr, 10);
  }
  double Double(int col) const override { return std::strtod(PQgetvalue(res_.get(), row_, col), nullptr); }
  std::string Text(int col) const override {
    return std::string(PQgetvalue(res_.get(), row_, col), static_cast<size_t>(PQgetlength(res_.get(), row_, col)));
  }
  std::string_view Blob(int col) const override {
    const char* v = PQgetvalue(res_.get(), row_, col);
    const size_t n = static_cast<size_t>(PQgetlength(res_.get(), row_, col));
    if (PQftype(res_.get(), col) != kByteaOid) return {v, n};
    // Decoded once per cell: (result, row) says which cell a column's bytes hold.
    if (decoded_.size() <= static_cast<size_t>(col)) decoded_.resize(static_cast<size_t>(col) + 1);
    Decoded& d = decoded_[static_cast<size_t>(col)];
    std::string& bytes = d.bytes;
    if (d.row != row_ || d.execution != executions_) {
      d.execution = executions_;
      d.row = row_;
      bytes.clear();
      if (n >= 2 && v[0] == '\\' && v[1] == 'x') {
        bytes.resize((n - 2) / 2);
        for (size_t i = 0; i < bytes.size(); ++i) {
          bytes[i] = static_cast<char>(HexValue(v[2 + 2 * i]) << 4 | HexValue(v[3 + 2 * i]));
        }
      }
    }
    return bytes;
  }
  int ColumnCount() const override { return res_ ? PQnfields(res_.get()) : 0; }
  bool IsNull(int col) const override { return PQgetisnull(res_.get(), row_, col) != 0; }
  int64_t Changes() const override { return changes_; }

 private:
  bool Valid(int i) const { return i >= 1 && static_cast<size_t>(i) <= values_.size(); }
  void Set(int i, std::string v, bool binary) {
    if (!Valid(i)) return;
    const size_t k = static_cast<size_t>(i - 1);
    values_[k] = std::move(v);
    null_[k] = 0;
    binary_[k] = binary ? 1 : 0;
  }

  bool Execute(Status* status) {
    const int n = static_cast<int>(values_.size());
    std::vector<const char*> values(values_.size());
    std::vector<int> lengths(values_.size());
    for (size_t k = 0; k < values_.size(); ++k) {
      values[k] = null_[k] ? nullptr : values_[k].data();
      lengths[k] = static_cast<int>(values_[k].size());
    }
    for (int attempt = 0;; ++attempt) {
      const int which = write_ || conn_->in_transaction() ? 0 : conn_->ReadTarget();
      PGconn* c = conn_->raw(which);
      if (which == 0) {
        const Status planned = conn_->in_transaction() ? conn_->PlanFor(plan_kind_) : Status::Ok();
        *status = planned.ok() ? conn_->Flush() : planned;  // the answers queued before this one first
        if (!status->ok()) return false;
      }
      if (persistent_ && epoch_[which] != conn_->epoch(which)) {
        name_[which] = conn_->NextStatementName();
        ResultHandle prep(PQprepare(c, name_[which].c_str(), sql_.c_str(), n, nullptr));
        if (PQresultStatus(prep.get()) != PGRES_COMMAND_OK) {
          *status = PgError(c, prep.get(), "preparing '" + sql_.substr(0, 80) + "'");
          if (attempt == 0 && Retry(which)) continue;
          return false;
        }
        epoch_[which] = conn_->epoch(which);
      }
      ResultHandle res(persistent_ ? PQexecPrepared(c, name_[which].c_str(), n, values.data(), lengths.data(),
                                                    binary_.data(), 0)
                                   : PQexecParams(c, sql_.c_str(), n, nullptr, values.data(), lengths.data(),
                                                  binary_.data(), 0));
      const ExecStatusType st = PQresultStatus(res.get());
      if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) {
        const char* tuples = PQcmdTuples(res.get());
        changes_ = (tuples && *tuples) ? std::strtoll(tuples, nullptr, 10) : 0;
        // Only writes move the change key (a SELECT's count of rows did, and no cached list ever served).
        if (write_) conn_->AddChanges(changes_);
        res_ = std::move(res);
        ++executions_;
        *status = Status::Ok();  // a retry that worked leaves no error of the first attempt behind
        return true;
      }
      *status = PgError(c, res.get(), "'" + sql_.substr(0, 80) + "'");
      if (attempt == 0 && Retry(which)) continue;
      if (PQstatus(c) == CONNECTION_BAD) {
        *status = Status::Unavailable("lost the connection to PostgreSQL at " + conn_->where(which) +
                                      (conn_->in_transaction() ? " (the write transaction is rolled back)" : "") +
                                      ": " + status->message());
      }
      return false;
    }
  }
  // A read outside a transaction on a dropped connection is tried once more:
  // on the primary when the replica failed, on a new connection when the primary did.
  bool Retry(int which) {
    if (conn_->in_transaction() || PQstatus(conn_->raw(which)) != CONNECTION_BAD) return false;
    if (which == 1) {
      conn_->ReplicaFailed();
      return true;
    }
    return conn_->Reconnect();
  }

  PgConnection* conn_;
  std::string sql_;
  std::vector<std::string> values_;
  std::vector<char> null_;
  std::vector<int> binary_;
  bool persistent_;
  bool write_;
  // A write of engram's tables outside a transaction is a fenced transaction of its own (the lease's own
  // statements run beside the transaction they guard).
  bool own_transaction_;
  int plan_kind_;
  std::string name_[2];           // prepared on the primary, on the replica
  int64_t epoch_[2] = {-1, -1};
  ResultHandle res_;
  int row_ = -1;
  int64_t changes_ = 0;
  struct Decoded {
    int64_t execution = -1;
    int row = -1;
    std::string bytes;
  };
  mutable std::vector<Decoded> decoded_;  // per bytea column, its cell of the current row
  int64_t executions_ = 0;                // results read so far
};

void IgnoreNotice(void*, const char*) {}

// The highest WAL position any connection of this process committed at.
std::atomic<uint64_t> g_committed_lsn{0};

// A pg_lsn's text ("16/B374D848") as a number.
uint64_t ParseLsn(const char* text) {
  char* slash = nullptr;
  const uint64_t high = std::strtoull(text, &slash, 16);
  if (!slash || *slash != '/') return 0;
  return high << 32 | std::strtoull(slash + 1, nullptr, 16);
}

std::string HostName() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown-host";
  return buf;
}

// What every session of engram's needs.
Status SetUpSession(PGconn* conn) {
  PQsetNoticeProcessor(conn, IgnoreNotice, nullptr);
  if (PQsetClientEncoding(conn, "UTF8") != 0) {
    return Status::Internal("cannot use UTF-8: " + Trimmed(PQerrorMessage(conn)));
  }
  return Status::Ok();
}

}  // namespace

std::string DescribeUrl(std::string_view url) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(std::string(url).c_str(), &err);
  if (!opts) {
    std::string m = Trimmed(err);
    PQfreemem(err);
    return "an unparsable PostgreSQL URL (" + m + ")";
  }
  std::string host, port, db;
  for (PQconninfoOption* o = opts; o->keyword; ++o) {
    const std::string k = o->keyword;
    if (!o->val) continue;
    if (k == "host" || (k == "hostaddr" && host.empty())) host = o->val;
    if (k == "port") port = o->val;
    if (k == "dbname") db = o->val;
  }
  PQconninfoFree(opts);
  return (host.empty() ? "localhost" : host) + ":" + (port.empty() ? "5432" : port) + "/" + db;
}

Result<PgHandle> Connect(std::string_view url) {
  const std::string where = DescribeUrl(url);
  // Named "engram" in pg_stat_activity unless the URL names the application itself.
  const std::string conninfo(url);
  const char* const keys[] = {"dbname", "fallback_application_name", nullptr};
  const char* const values[] = {conninfo.c_str(), "engram", nullptr};
  PgHandle conn(PQconnectdbParams(keys, values, /*expand_dbname=*/1));
  if (!conn) return Status::ResourceExhausted("PostgreSQL at " + where + ": out of memory");
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    const std::string msg = Trimmed(PQerrorMessage(conn.get()));
    const std::string full = "cannot connect to PostgreSQL at " + where + ": " + msg;
    if (msg.find("authentication failed") != std::string::npos || msg.find("password") != std::string::npos) {
      return Status::Unauthenticated(full);
    }
    if (msg.find("does not exist") != std::string::npos) return Status::NotFound(full);
    if (msg.find("permission denied") != std::string::npos) return Status::PermissionDenied(full);
    return Status::Unavailable(full);
  }
  ENGRAM_RETURN_IF_ERROR(SetUpSession(conn.get()).WithContext("PostgreSQL at " + where));
  return conn;
}

PgConnection::PgConnection(PgHandle conn, std::string url, const EngineOptions& options)
    : conn_(std::move(conn)), url_(std::move(url)), where_(DescribeUrl(url_)),
      busy_timeout_ms_(options.busy_timeout_ms), read_url_(options.read_uri),
      replica_where_(options.read_uri.empty() ? "" : DescribeUrl(options.read_uri)),
      lease_seconds_(std::max(1, options.lease_seconds)) {
  holder_ = HostName() + ":" + std::to_string(::getpid()) + ":" +
            std::to_string(reinterpret_cast<uintptr_t>(this));
}

PgConnection::~PgConnection() {
  if (in_transaction_) Rollback();
  StopHeartbeat();
}

bool PgConnection::Reconnect() {
  PQreset(conn_.get());
  if (PQstatus(conn_.get()) != CONNECTION_OK || !SetUpSession(conn_.get()).ok()) return false;
  ++epoch_;
  xmax_known_ = false;
  return true;
}

Result<Stmt> PgConnection::Prepare(std::string_view sql, bool persistent) {
  int params = 0;
  std::string text = Translate(sql, &params);
  return Stmt(std::make_unique<PgStmt>(this, std::move(text), params, persistent));
}

Status PgConnection::Send(const std::string& name, const std::string& sql, bool prepare, int n,
                          const char* const* values, const int* lengths, const int* formats, bool write) {
  PGconn* c = conn_.get();
  if (PQpipelineStatus(c) == PQ_PIPELINE_OFF && PQenterPipelineMode(c) != 1) {
    return PgError(c, nullptr, "starting a pipeline on " + where_);
  }
  if (prepare) {
    if (PQsendPrepare(c, name.c_str(), sql.c_str(), n, nullptr) != 1) {
      (void)Flush();
      return PgError(c, nullptr, "'" + sql.substr(0, 80) + "'");
    }
    queued_.push_back({sql, false});
  }
  const int sent = name.empty() ? PQsendQueryParams(c, sql.c_str(), n, nullptr, values, lengths, formats, 0)
                                : PQsendQueryPrepared(c, name.c_str(), n, values, lengths, formats, 0);
  if (sent != 1) {
    (void)Flush();
    return PgError(c, nullptr, "'" + sql.substr(0, 80) + "'");
  }
  queued_.push_back({sql, write});
  // Answers left unread fill the server's send buffer, and a server that cannot send stops reading.
  if (queued_.size() >= 256) return Flush();
  return Status::Ok();
}

Status PgConnection::PlanFor(int kind) {
  if (kind < 0 || plan_mode_ == kind) return Status::Ok();
  const std::string sql = std::string("SET LOCAL plan_cache_mode = ") + (kind == 1 ? "auto" : "force_custom_plan");
  ENGRAM_RETURN_IF_ERROR(Send("", sql, false, 0, nullptr, nullptr, nullptr, false));
  plan_mode_ = kind;
  return Status::Ok();
}

Status PgConnection::Flush() {
  PGconn* c = conn_.get();
  if (PQpipelineStatus(c) == PQ_PIPELINE_OFF) return Status::Ok();
  Status first;
  if (PQpipelineSync(c) != 1) {
    first = PgError(c, nullptr, "'" + (queued_.empty() ? "" : queued_[0].sql.substr(0, 80)) + "'");
  }
  size_t at = 0;  // the queued statement whose answers come next
  int idle = 0;
  while (first.ok() || PQstatus(c) != CONNECTION_BAD) {
    ResultHandle r(PQgetResult(c));
    if (r == nullptr) {
      if (at < queued_.size()) {
        ++at;  // that statement's answers are done
      } else if (PQstatus(c) == CONNECTION_BAD || ++idle > 2) {
        break;
      }
      continue;
    }
    const ExecStatusType st = PQresultStatus(r.get());
    if (st == PGRES_PIPELINE_SYNC) break;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
      const char* tuples = PQcmdTuples(r.get());
      if (at < queued_.size() && queued_[at].write && tuples && *tuples) changes_ += std::strtoll(tuples, nullptr, 10);
    } else if (st != PGRES_PIPELINE_ABORTED && first.ok()) {
      first = PgError(c, r.get(), "'" + (at < queued_.size() ? queued_[at].sql.substr(0, 80) : "") + "'");
    }
  }
  queued_.clear();
  if (PQstatus(c) == CONNECTION_BAD) {
    if (first.ok()) first = PgError(c, nullptr, where_);
    return Status::Unavailable("lost the connection to PostgreSQL at " + where_ +
                               " (the write transaction is rolled back): " + first.message());
  }
  (void)PQexitPipelineMode(c);
  // A statement prepared in the pipeline may not have been: prepare them all again. Nor a SET LOCAL run.
  if (!first.ok()) {
    ++epoch_;
    plan_mode_ = -1;
  }
  return first;
}

Status PgConnection::Exec(const std::string& sql) {
  // Run even when a queued statement failed (a ROLLBACK must); that failure is the one reported.
  Status flushed = Flush();
  ResultHandle res(PQexec(conn_.get(), sql.c_str()));
  const ExecStatusType st = PQresultStatus(res.get());
  // A rollback to a savepoint undoes the SET LOCALs made after it.
  if (sql.find("ROLLBACK") != std::string::npos) plan_mode_ = -1;
  if (!flushed.ok()) return flushed;
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return Status::Ok();
  return PgError(conn_.get(), res.get(), where_);
}

Result<int64_t> PgConnection::QueryInt(const std::string& sql) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt q, Prepare(sql, false));
  int64_t v = q.Step() ? q.Int(0) : 0;
  ENGRAM_RETURN_IF_ERROR(q.status());
  return v;
}

Result<std::string> PgConnection::QueryText(const std::string& sql) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt q, Prepare(sql, false));
  std::string v = q.Step() ? q.Text(0) : std::string();
  ENGRAM_RETURN_IF_ERROR(q.status());
  return v;
}

Status PgConnection::TakeLease() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms_);
  ENGRAM_ASSIGN_OR_RETURN(Stmt take, Prepare("UPDATE engram_writer SET token = token + 1, holder = ?, host = ?, "
                                             "pid = ?, expires_at = clock_timestamp() + make_interval(secs => ?) "
                                             "WHERE id = 1 AND (expires_at < clock_timestamp() OR holder = ?) "
                                             "RETURNING token", false));
  for (;;) {
    take.Bind(1, holder_).Bind(2, HostName()).Bind(3, int64_t{::getpid()}).Bind(4, int64_t{lease_seconds_});
    take.Bind(5, holder_);
    if (take.Step()) {
      token_ = take.Int(0);
      take.Reset();
      return Status::Ok();
    }
    ENGRAM_RETURN_IF_ERROR(take.status());
    take.Reset();
    // A holder on this host whose process is gone (a crash, a kill -9) left its lease running: take it over
    // at once instead of waiting out its expiry. (Across machines only the expiry can tell.)
    ENGRAM_ASSIGN_OR_RETURN(Stmt held, Prepare("SELECT token, host, pid FROM engram_writer WHERE id = 1", false));
    if (held.Step() && held.Text(1) == HostName() && held.Int(2) != ::getpid() && held.Int(2) > 0 &&
        ::kill(static_cast<pid_t>(held.Int(2)), 0) != 0 && errno == ESRCH) {
      const int64_t dead_token = held.Int(0);
      ENGRAM_ASSIGN_OR_RETURN(Stmt steal, Prepare("UPDATE engram_writer SET token = token + 1, holder = ?, host = ?, "
                                                  "pid = ?, expires_at = clock_timestamp() + make_interval(secs => ?) "
                                                  "WHERE id = 1 AND token = ? RETURNING token", false));
      steal.Bind(1, holder_).Bind(2, HostName()).Bind(3, int64_t{::getpid()}).Bind(4, int64_t{lease_seconds_});
      steal.Bind(5, dead_token);
      if (steal.Step()) {
        token_ = steal.Int(0);
        return Status::Ok();
      }
      ENGRAM_RETURN_IF_ERROR(steal.status());
      continue;  // someone else took it first: try again
    }
    ENGRAM_RETURN_IF_ERROR(held.status());
    if (std::chrono::steady_clock::now() >= deadline) {
      ENGRAM_ASSIGN_OR_RETURN(Stmt who, Prepare("SELECT host, pid, to_char(expires_at AT TIME ZONE 'UTC', "
                                                "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM engram_writer WHERE id = 1",
                                                false));
      std::string holder = "another writer";
      if (who.Step()) {
        holder = "host " + who.Text(0) + " pid " + who.Text(1) + " (lease until " + who.Text(2) + ")";
      }
      return Status::Unavailable("the brain at " + where_ + " is being written by " + holder +
                                 "; try again when it is done");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void PgConnection::ReleaseLease() {
  if (token_ == 0) return;
  auto release = Prepare("UPDATE engram_writer SET holder = '', expires_at = '-infinity' WHERE id = 1 AND "
                         "token = ?", false);
  if (release.ok()) {
    release->Bind(1, token_);
    (void)release->Run();
  }
  token_ = 0;
}

void PgConnection::StartHeartbeat() {
  StopHeartbeat();
  beat_stop_ = false;
  const int64_t token = token_;
  // The beat's own connection is opened at its first beat, by the beat: a short write never waits for it.
  beat_ = std::thread([this, token] {
    const std::string sql = "UPDATE engram_writer SET expires_at = clock_timestamp() + make_interval(secs => " +
                            std::to_string(lease_seconds_) + ") WHERE id = 1 AND token = " + std::to_string(token) +
                            " AND expires_at > clock_timestamp()";
    std::unique_lock<std::mutex> lock(beat_mu_);
    while (!beat_cv_.wait_for(lock, std::chrono::seconds(lease_seconds_) / 3, [this] { return beat_stop_; })) {
      if (!beat_conn_) {
        auto c = Connect(url_);
        if (!c.ok()) continue;  // tried again at the next beat; the lease may run its course, the fence holds
        beat_conn_ = std::move(c).value();
      }
      ResultHandle r(PQexec(beat_conn_.get(), sql.c_str()));
      if (PQstatus(beat_conn_.get()) == CONNECTION_BAD) PQreset(beat_conn_.get());
    }
  });
}

void PgConnection::StopHeartbeat() {
  if (!beat_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(beat_mu_);
    beat_stop_ = true;
  }
  beat_cv_.notify_all();
  beat_.join();
}

Status PgConnection::Begin() {
  if (in_transaction_) return Status::FailedPrecondition("a transaction is already open");
  ENGRAM_RETURN_IF_ERROR(TakeLease());
  // A write transaction plans with each call's values (PlanFor). Reads keep PostgreSQL's choice: once a
  // table's statistics are taken (SqlEngine::AnalyseIfGrown, autovacuum), a search's look-ups run their
  // generic plans and skip planning (0.4 ms a title look-up on SciFact).
  Status st = Exec("BEGIN; SET LOCAL plan_cache_mode = force_custom_plan");
  if (!st.ok()) {
    ReleaseLease();
    return st;
  }
  in_transaction_ = true;
  plan_mode_ = 0;
  StartHeartbeat();
  return Status::Ok();
}

Status PgConnection::Commit() {
  // The fence: inside the transaction, the lease must still be this token's.
  ENGRAM_ASSIGN_OR_RETURN(Stmt fence, Prepare("UPDATE engram_writer SET expires_at = clock_timestamp() + "
                                              "make_interval(secs => ?) WHERE id = 1 AND token = ? AND "
                                              "expires_at > clock_timestamp()", false));
  fence.Bind(1, int64_t{lease_seconds_}).Bind(2, token_);
  Status st = fence.Run();
  if (st.ok() && fence.Changes() != 1) {
    st = Status::Unavailable("the write lease on " + where_ + " was lost (it expired and another writer took it); "
                             "nothing of this transaction was committed");
  }
  if (st.ok()) st = Exec("COMMIT");
  if (!st.ok()) {
    Rollback();
    return st;
  }
  in_transaction_ = false;
  StopHeartbeat();
  ReleaseLease();
  NoteCommit();
  return Status::Ok();
}

void PgConnection::Rollback() {
  (void)Exec("ROLLBACK");
  in_transaction_ = false;
  StopHeartbeat();
  ReleaseLease();
}

int PgConnection::ReadTarget() {
  if (read_url_.empty()) return 0;
  const auto now = std::chrono::steady_clock::now();
  if (now < replica_down_until_) return 0;
  if (!replica_ || PQstatus(replica_.get()) != CONNECTION_OK) {
    auto c = Connect(read_url_);
    if (!c.ok()) {
      ReplicaFailed();
      return 0;
    }
    replica_ = std::move(c).value();
    ++replica_epoch_;
  }
  const uint64_t awaited = g_committed_lsn.load();
  if (awaited > replica_replayed_) {
    if (now - replica_checked_ < std::chrono::milliseconds(50)) return 0;
    replica_checked_ = now;
    ResultHandle r(PQexec(replica_.get(), "SELECT coalesce(pg_last_wal_replay_lsn(), pg_current_wal_lsn())::text"));
    if (PQresultStatus(r.get()) != PGRES_TUPLES_OK || PQntuples(r.get()) != 1) {
      ReplicaFailed();
      return 0;
    }
    replica_replayed_ = ParseLsn(PQgetvalue(r.get(), 0, 0));
    if (awaited > replica_replayed_) return 0;
  }
  return 1;
}

void PgConnection::ReplicaFailed() {
  replica_.reset();
  replica_down_until_ = std::chrono::steady_clock::now() + std::chrono::seconds(5);
}

void PgConnection::NoteCommit() {
  if (read_url_.empty()) return;
  // The insert position, not pg_current_wal_lsn(): without synchronous commit the commit record may
  // still sit in WAL buffers, behind which the write position lags.
  ResultHandle r(PQexec(conn_.get(), "SELECT pg_current_wal_insert_lsn()::text"));
  if (PQresultStatus(r.get()) != PGRES_TUPLES_OK || PQntuples(r.get()) != 1) return;
  const uint64_t lsn = ParseLsn(PQgetvalue(r.get(), 0, 0));
  uint64_t seen = g_committed_lsn.load();
  while (lsn > seen && !g_committed_lsn.compare_exchange_weak(seen, lsn)) {
  }
}

Result<std::optional<ReplicaState>> PgConnection::ReadReplica() {
  if (read_url_.empty()) return std::optional<ReplicaState>();
  ReplicaState state;
  state.where = replica_where_;
  state.serving = ReadTarget() == 1;
  if (!replica_) {
    state.lag_seconds = -1;  // unreachable
    return std::optional<ReplicaState>(state);
  }
  ResultHandle r(PQexec(replica_.get(),
                        "SELECT CASE WHEN NOT pg_is_in_recovery() OR pg_last_wal_receive_lsn() IS NULL OR "
                        "pg_last_wal_receive_lsn() <= pg_last_wal_replay_lsn() THEN 0 ELSE "
                        "extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) END"));
  if (PQresultStatus(r.get()) != PGRES_TUPLES_OK || PQntuples(r.get()) != 1) {
    ReplicaFailed();
    state.serving = false;
    state.lag_seconds = -1;
    return std::optional<ReplicaState>(state);
  }
  state.lag_seconds = std::strtod(PQgetvalue(r.get(), 0, 0), nullptr);
  return std::optional<ReplicaState>(state);
}

Result<std::pair<int64_t, int64_t>> PgConnection::ChangeKey() {
  // Other connections' commits move the snapshot's xmax; this one's writes move changes_ at once.
  ENGRAM_RETURN_IF_ERROR(Flush());
  const auto now = std::chrono::steady_clock::now();
  if (!xmax_known_ || now - xmax_at_ >= std::chrono::seconds(1)) {
    ENGRAM_ASSIGN_OR_RETURN(xmax_, QueryInt("SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint"));
    xmax_known_ = true;
    xmax_at_ = now;
  }
  return std::make_pair(xmax_, changes_);
}

Result<std::vector<std::string>> PgConnection::StorageCheck() { return std::vector<std::string>(); }

Result<std::string> PgConnection::Describe() {
  ENGRAM_ASSIGN_OR_RETURN(std::string version, QueryText("SHOW server_version"));
  return "PostgreSQL " + version + " at " + where_;
}

Result<int64_t> PgConnection::DatabaseBytes() { return QueryInt("SELECT pg_database_size(current_database())"); }

Result<int> PgConnection::SchemaVersion() {
  ENGRAM_ASSIGN_OR_RETURN(int64_t exists, QueryInt("SELECT count(*) FROM pg_tables WHERE schemaname = "
                                                   "current_schema() AND tablename = 'engram_meta'"));
  if (exists == 0) return 0;
  ENGRAM_ASSIGN_OR_RETURN(std::string v, QueryText("SELECT value FROM engram_meta WHERE key = 'schema_version'"));
  return v.empty() ? 0 : std::atoi(v.c_str());
}

Result<std::unique_ptr<Engine>> OpenPostgresEngine(std::string_view url, const EngineOptions& options) {
  ENGRAM_ASSIGN_OR_RETURN(PgHandle handle, Connect(url));
  auto conn = std::make_unique<PgConnection>(std::move(handle), std::string(url), options);
  ENGRAM_ASSIGN_OR_RETURN(int version, conn->SchemaVersion());
  if (version == 0 && !options.create_if_missing) {
    ENGRAM_ASSIGN_OR_RETURN(int64_t tables, conn->QueryInt("SELECT count(*) FROM pg_tables WHERE schemaname = "
                                                           "current_schema()"));
    if (tables > 0) {
      return Status::Corruption("PostgreSQL at " + conn->where() + " holds tables of another program (no "
                                "engram_meta table); refusing to modify it");
    }
    return Status::NotFound("no brain in PostgreSQL at " + conn->where() + " (run `engram init --postgres URL`)");
  }
  ENGRAM_RETURN_IF_ERROR(MigratePg(conn.get(), "PostgreSQL at " + conn->where()));
  return std::unique_ptr<Engine>(new sql::SqlEngine(std::move(conn)));
}

}  // namespace engram::store::postgres
