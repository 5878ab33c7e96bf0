// The write journal (engram/store/journal_store.h): the write_journal and
// write_journal_files tables. Each call commits on its own: a journal that
// rode in a caller's transaction would vanish with its rollback, and is
// worth nothing unless it is on disk before the first file changes.
#include "store/sql/sql_engine.h"

namespace engram::store::sql {

namespace {

Status NotInTransaction(bool in_transaction) {
  if (in_transaction) return Status::Internal("the write journal is written outside any open transaction");
  return Status::Ok();
}

void BindBytes(Stmt* q, int i, const std::optional<std::string>& bytes) {
  if (bytes) {
    q->BindBlob(i, *bytes);
  } else {
    q->BindNull(i);
  }
}

std::optional<std::string> Bytes(const Stmt& q, int col) {
  if (q.IsNull(col)) return std::nullopt;
  return std::string(q.Blob(col));
}

}  // namespace

Result<int64_t> SqlEngine::BeginJournal(const JournalEntry& entry) {
  ENGRAM_RETURN_IF_ERROR(NotInTransaction(in_transaction_));
  int64_t id = 0;
  ENGRAM_RETURN_IF_ERROR(Atomically([&]() -> Status {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("INSERT INTO write_journal(operation, args, report, started_at, owner) "
                                        "VALUES (?, ?, ?, ?, ?) RETURNING id"));
    q->Bind(1, entry.operation).Bind(2, entry.args).Bind(3, entry.report).Bind(4, entry.started_at);
    q->Bind(5, entry.owner);
    if (q->Step()) id = q->Int(0);
    ENGRAM_RETURN_IF_ERROR(q->status());
    q->Reset();
    for (size_t i = 0; i < entry.files.size(); ++i) {
      const JournalFile& f = entry.files[i];
      ENGRAM_ASSIGN_OR_RETURN(Stmt * fq, S("INSERT INTO write_journal_files(journal_id, seq, path, before, after, "
                                           "done) VALUES (?, ?, ?, ?, ?, ?)"));
      fq->Bind(1, id).Bind(2, static_cast<int64_t>(i)).Bind(3, f.path);
      BindBytes(fq, 4, f.before);
      BindBytes(fq, 5, f.after);
      fq->Bind(6, int64_t{f.done ? 1 : 0});
      ENGRAM_RETURN_IF_ERROR(fq->Run());
    }
    return Status::Ok();
  }));
  return id;
}

Status SqlEngine::MarkJournalFileDone(int64_t id, size_t index) {
  ENGRAM_RETURN_IF_ERROR(NotInTransaction(in_transaction_));
  return Atomically([&]() -> Status {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("UPDATE write_journal_files SET done = 1 WHERE journal_id = ? AND seq = ?"));
    q->Bind(1, id).Bind(2, static_cast<int64_t>(index));
    ENGRAM_RETURN_IF_ERROR(q->Run());
    if (q->Changes() != 1) {
      return Status::NotFound("no file " + std::to_string(index) + " in write journal " + std::to_string(id));
    }
    return Status::Ok();
  });
}

Status SqlEngine::EndJournal(int64_t id) {
  ENGRAM_RETURN_IF_ERROR(NotInTransaction(in_transaction_));
  return Atomically([&]() -> Status {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * files, S("DELETE FROM write_journal_files WHERE journal_id = ?"));
    files->Bind(1, id);
    ENGRAM_RETURN_IF_ERROR(files->Run());
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("DELETE FROM write_journal WHERE id = ?"));
    q->Bind(1, id);
    return q->Run();
  });
}

Result<std::vector<JournalEntry>> SqlEngine::OpenJournals() {
  std::vector<JournalEntry> out;
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT id, operation, args, report, started_at, owner FROM write_journal "
                                        "ORDER BY id"));
    while (q->Step()) {
      JournalEntry e;
      e.id = q->Int(0);
      e.operation = q->Text(1);
      e.args = q->Text(2);
      e.report = q->Text(3);
      e.started_at = q->Text(4);
      e.owner = q->Text(5);
      out.push_back(std::move(e));
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
    q->Reset();
  }
  for (JournalEntry& e : out) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT path, before, after, done FROM write_journal_files "
                                        "WHERE journal_id = ? ORDER BY seq"));
    q->Bind(1, e.id);
    while (q->Step()) e.files.push_back({q->Text(0), Bytes(*q, 1), Bytes(*q, 2), q->Int(3) != 0});
    ENGRAM_RETURN_IF_ERROR(q->status());
    q->Reset();
  }
  return out;
}

}  // namespace engram::store::sql
