// Governed knowledge entries and their audit log (engram/store/kb_store.h):
// the kb_governed and kb_audit tables of migration 13. The module that
// writes them (ops/kb_governance.cc) projects each change into the
// collection's entries inside the same transaction.
#include "store/sql/sql_engine.h"

namespace engram::store::sql {

namespace {

constexpr const char* kGovernedColumns =
    "SELECT id, uniq_id, business_scene, question, answer, metadata, class_name, class_no, source, type, \"desc\", "
    "version, status, editor, editor_id, auditor, auditor_id, releaser, releaser_id, create_time, update_time, "
    "collection, latest FROM kb_governed ";

GovernedEntry GovernedOf(const Stmt& q) {
  GovernedEntry g;
  g.id = q.Int(0);
  g.uniq_id = q.Text(1);
  g.business_scene = q.Text(2);
  g.question = q.Text(3);
  g.answer = q.Text(4);
  g.metadata = q.Text(5);
  g.class_name = q.Text(6);
  g.class_no = q.Text(7);
  g.source = q.Text(8);
  g.type = q.Text(9);
  g.desc = q.Text(10);
  g.version = q.Int(11);
  g.status = q.Text(12);
  g.editor = q.Text(13);
  g.editor_id = q.Text(14);
  g.auditor = q.Text(15);
  g.auditor_id = q.Text(16);
  g.releaser = q.Text(17);
  g.releaser_id = q.Text(18);
  g.create_time = q.Text(19);
  g.update_time = q.Text(20);
  g.collection = q.Text(21);
  g.latest = q.Int(22) != 0;
  return g;
}

// Binds every column but id, from index 1, in kGovernedColumns' order.
void BindGoverned(Stmt* q, const GovernedEntry& g) {
  q->Bind(1, g.uniq_id).Bind(2, g.business_scene).Bind(3, g.question).Bind(4, g.answer).Bind(5, g.metadata);
  q->Bind(6, g.class_name).Bind(7, g.class_no).Bind(8, g.source).Bind(9, g.type).Bind(10, g.desc);
  q->Bind(11, g.version).Bind(12, g.status).Bind(13, g.editor).Bind(14, g.editor_id).Bind(15, g.auditor);
  q->Bind(16, g.auditor_id).Bind(17, g.releaser).Bind(18, g.releaser_id).Bind(19, g.create_time);
  q->Bind(20, g.update_time).Bind(21, g.collection).Bind(22, static_cast<int64_t>(g.latest ? 1 : 0));
}

Result<std::vector<GovernedEntry>> AllRows(Stmt* q) {
  std::vector<GovernedEntry> out;
  while (q->Step()) out.push_back(GovernedOf(*q));
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

}  // namespace

Result<int64_t> SqlEngine::InsertGoverned(const GovernedEntry& g) {
  int64_t id = 0;
  Status st = Atomically([&]() -> Status {
    ENGRAM_ASSIGN_OR_RETURN(
        Stmt * exists, S("SELECT 1 FROM kb_governed WHERE uniq_id = ? AND business_scene = ? AND version = ?"));
    exists->Bind(1, g.uniq_id).Bind(2, g.business_scene).Bind(3, g.version);
    const bool taken = exists->Step();
    ENGRAM_RETURN_IF_ERROR(exists->status());
    exists->Reset();
    if (taken) {
      return Status::AlreadyExists("governed entry " + g.uniq_id + " of scene '" + g.business_scene +
                                   "' has a version " + std::to_string(g.version) + " already");
    }
    ENGRAM_ASSIGN_OR_RETURN(
        Stmt * q, S("INSERT INTO kb_governed(uniq_id, business_scene, question, answer, metadata, class_name, "
                    "class_no, source, type, \"desc\", version, status, editor, editor_id, auditor, auditor_id, releaser, "
                    "releaser_id, create_time, update_time, collection, latest) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id"));
    BindGoverned(q, g);
    if (!q->Step()) {
      ENGRAM_RETURN_IF_ERROR(q->status());
      return Status::IOError("storing a governed entry returned no id");
    }
    id = q->Int(0);
    q->Reset();
    return Status::Ok();
  });
  if (!st.ok()) return st;
  return id;
}

Status SqlEngine::UpdateGoverned(const GovernedEntry& g) {
  return Atomically([&]() -> Status {
    ENGRAM_ASSIGN_OR_RETURN(
        Stmt * q, S("UPDATE kb_governed SET uniq_id = ?, business_scene = ?, question = ?, answer = ?, metadata = ?, "
                    "class_name = ?, class_no = ?, source = ?, type = ?, \"desc\" = ?, version = ?, status = ?, "
                    "editor = ?, editor_id = ?, auditor = ?, auditor_id = ?, releaser = ?, releaser_id = ?, "
                    "create_time = ?, update_time = ?, collection = ?, latest = ? WHERE id = ? RETURNING id"));
    BindGoverned(q, g);
    q->Bind(23, g.id);
    const bool found = q->Step();
    ENGRAM_RETURN_IF_ERROR(q->status());
    q->Reset();
    if (!found) return Status::NotFound("no governed entry " + std::to_string(g.id));
    return Status::Ok();
  });
}

Result<std::optional<GovernedEntry>> SqlEngine::GetGoverned(int64_t id) {
  static const std::string sql = std::string(kGovernedColumns) + "WHERE id = ?";
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(sql.c_str()));
  q->Bind(1, id);
  std::optional<GovernedEntry> out;
  if (q->Step()) out = GovernedOf(*q);
  ENGRAM_RETURN_IF_ERROR(q->status());
  q->Reset();
  return out;
}

Result<std::optional<GovernedEntry>> SqlEngine::LatestGoverned(std::string_view uniq_id,
                                                                  std::string_view business_scene) {
  static const std::string sql =
      std::string(kGovernedColumns) + "WHERE uniq_id = ? AND business_scene = ? ORDER BY version DESC LIMIT 1";
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(sql.c_str()));
  q->Bind(1, uniq_id).Bind(2, business_scene);
  std::optional<GovernedEntry> out;
  if (q->Step()) out = GovernedOf(*q);
  ENGRAM_RETURN_IF_ERROR(q->status());
  q->Reset();
  return out;
}

Result<std::vector<GovernedEntry>> SqlEngine::FindGoverned(std::string_view word, bool online_only,
                                                              size_t limit) {
  // instr() rather than LIKE: the word is matched as written, % and _ included.
  static const std::string sql = std::string(kGovernedColumns) +
                                 "WHERE latest = 1 AND instr(question, ?) > 0 AND (? = 0 OR status = 'online') "
                                 "ORDER BY id LIMIT ?";
  static const std::string pg_sql = std::string(kGovernedColumns) +
                                    "WHERE latest = 1 AND strpos(question, ?) > 0 AND (? = 0 OR status = 'online') "
                                    "ORDER BY id LIMIT ?";
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(D(sql.c_str(), pg_sql.c_str())));
  q->Bind(1, word).Bind(2, static_cast<int64_t>(online_only ? 1 : 0)).Bind(3, static_cast<int64_t>(limit));
  return AllRows(q);
}

Result<std::vector<GovernedEntry>> SqlEngine::ScanGoverned(int64_t after_id, size_t limit) {
  static const std::string sql = std::string(kGovernedColumns) + "WHERE id > ? ORDER BY id LIMIT ?";
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(sql.c_str()));
  q->Bind(1, after_id).Bind(2, static_cast<int64_t>(limit));
  return AllRows(q);
}

Status SqlEngine::AppendKbAudit(const KbAuditEntry& e) {
  return Atomically([&]() -> Status {
    ENGRAM_ASSIGN_OR_RETURN(
        Stmt * q, S("INSERT INTO kb_audit(at, who, action, governed_id, before, after) VALUES (?, ?, ?, ?, ?, ?)"));
    q->Bind(1, e.at).Bind(2, e.who).Bind(3, e.action).Bind(4, e.governed_id).Bind(5, e.before).Bind(6, e.after);
    return q->Run();
  });
}

Result<std::vector<KbAuditEntry>> SqlEngine::KbAudit(int64_t governed_id, size_t limit) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT id, at, who, action, governed_id, before, after FROM kb_audit "
                                      "WHERE (? = 0 OR governed_id = ?) ORDER BY id DESC LIMIT ?"));
  q->Bind(1, governed_id).Bind(2, governed_id).Bind(3, static_cast<int64_t>(limit));
  std::vector<KbAuditEntry> out;
  while (q->Step()) out.push_back({q->Int(0), q->Text(1), q->Text(2), q->Text(3), q->Int(4), q->Text(5), q->Text(6)});
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

}  // namespace engram::store::sql
