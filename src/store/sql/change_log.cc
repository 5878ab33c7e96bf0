// The change log (engram/store/change_log.h): the store_generation row and
// the change_log table of migration 10. The vector triggers log through the
// same SQL (ENGRAM_LOG_CHANGE_SQL) as LogChange.
#include <algorithm>

#include "store/sql/sql_engine.h"

namespace engram::store::sql {

namespace {

struct GenerationRow {
  int64_t value = 0;
  int64_t trimmed_through = 0;
};

}  // namespace

Status SqlEngine::Atomically(const std::function<Status()>& fn) {
  if (in_transaction_) return fn();  // lands with the open transaction
  ENGRAM_RETURN_IF_ERROR(BeginTransaction());
  Status st = fn();
  if (!st.ok()) {
    RollbackTransaction();
    return st;
  }
  return CommitTransaction();
}

Result<int64_t> SqlEngine::Generation() {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT value FROM store_generation WHERE id = 1"));
  int64_t g = q->Step() ? q->Int(0) : 0;
  ENGRAM_RETURN_IF_ERROR(q->status());
  q->Reset();
  return g;
}

Result<std::optional<std::vector<int64_t>>> SqlEngine::ChangesSince(ChangeStream stream, int64_t since) {
  GenerationRow row;
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT value, trimmed_through FROM store_generation WHERE id = 1"));
    if (q->Step()) row = {q->Int(0), q->Int(1)};
    ENGRAM_RETURN_IF_ERROR(q->status());
    q->Reset();
  }
  std::optional<std::vector<int64_t>> out;
  if (since >= row.value) return std::optional<std::vector<int64_t>>(std::vector<int64_t>{});
  if (since < row.trimmed_through) return out;  // the entries after since are partly gone
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT DISTINCT key FROM change_log WHERE stream = ? AND generation > ? "
                                      "ORDER BY key"));
  q->Bind(1, static_cast<int64_t>(stream)).Bind(2, since);
  out.emplace();
  while (q->Step()) out->push_back(q->Int(0));
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

Status SqlEngine::WriteChange(ChangeStream stream, int64_t key) {
  // One generation per write transaction: a reader asks for what came after the generation it saw, and the
  // transaction's changes all commit together. (Updating the row per change kept every version of it
  // until the commit.)
  if (!generation_advanced_ || !in_transaction_) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * advance, S("UPDATE store_generation SET value = value + 1 WHERE id = 1"));
    ENGRAM_RETURN_IF_ERROR(advance->Send());
    generation_advanced_ = in_transaction_;
  }
  ENGRAM_ASSIGN_OR_RETURN(Stmt * entry, S("INSERT INTO change_log(generation, stream, key) "
                                          "SELECT value, ?, ? FROM store_generation WHERE id = 1"));
  entry->Bind(1, static_cast<int64_t>(stream)).Bind(2, key);
  return entry->Send();
}

Status SqlEngine::LogChange(ChangeStream stream, int64_t key) {
  return Atomically([&] { return WriteChange(stream, key); });
}

Status SqlEngine::TrimChangeLog(int64_t keep) {
  ENGRAM_ASSIGN_OR_RETURN(int64_t generation, Generation());
  const int64_t through = generation - std::max<int64_t>(keep, 0);
  if (through <= 0) return Status::Ok();
  return Atomically([&]() -> Status {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * drop, S("DELETE FROM change_log WHERE generation <= ?"));
    drop->Bind(1, through);
    ENGRAM_RETURN_IF_ERROR(drop->Run());
    ENGRAM_ASSIGN_OR_RETURN(Stmt * mark, S(D("UPDATE store_generation SET trimmed_through = max(trimmed_through, ?) WHERE id = 1",
                                             "UPDATE store_generation SET trimmed_through = greatest(trimmed_through, ?) "
                                             "WHERE id = 1")));
    mark->Bind(1, through);
    return mark->Run();
  });
}

}  // namespace engram::store::sql
