#include "store/sql/sql_engine.h"

namespace engram::store::sql {

Result<Stmt*> SqlEngine::S(const char* sql) {
  auto it = stmts_.find(sql);
  if (it != stmts_.end()) {
    it->second.Reset();
    return &it->second;
  }
  ENGRAM_ASSIGN_OR_RETURN(Stmt stmt, conn_->Prepare(sql, true));
  auto [pos, inserted] = stmts_.emplace(sql, std::move(stmt));
  return &pos->second;
}

Result<int64_t> SqlEngine::InsertedId(Stmt* insert) {
  if (!insert->Step()) {
    ENGRAM_RETURN_IF_ERROR(insert->status());
    return Status::Internal("an insert returned no id");
  }
  const int64_t id = insert->Int(0);
  ENGRAM_RETURN_IF_ERROR(insert->Run());
  return id;
}

void SqlEngine::FinishReads() {
  conn_->ReadsFinished();
  if (in_transaction_) return;  // the open transaction stays
  ResetStatements();
}

void SqlEngine::ResetStatements() {
  for (auto& entry : stmts_) {
    if (entry.second.Busy()) entry.second.Reset();
  }
}

Status SqlEngine::Commit() {
  ResetStatements();  // else the WAL of a large batch is never checkpointed
  return conn_->Commit();
}

Status SqlEngine::BeginTransaction() {
  if (in_transaction_) return Status::FailedPrecondition("a transaction is already open");
  FinishReads();
  ENGRAM_RETURN_IF_ERROR(conn_->Begin());
  in_transaction_ = true;
  batch_ = BatchState();
  return Status::Ok();
}

Status SqlEngine::CommitTransaction() {
  if (!in_transaction_) return Status::FailedPrecondition("no transaction is open");
  Status st = FlushPostings();
  if (st.ok()) st = Commit();
  if (!st.ok()) {
    RollbackTransaction();
    return st;
  }
  in_transaction_ = false;
  generation_advanced_ = false;
  if (pg_) AnalyseIfGrown(batch_.pages);
  batch_ = BatchState();
  pending_terms_.clear();
  first_new_term_id_ = 0;
  return Status::Ok();
}

void SqlEngine::RollbackTransaction() {
  if (!in_transaction_) return;
  conn_->Rollback();
  ClearDeltas();
  for (const auto& t : pending_terms_) term_ids_.Erase(t);
  pending_terms_.clear();
  first_new_term_id_ = 0;
  in_transaction_ = false;
}

Result<int64_t> SqlEngine::SourceId(std::string_view name, bool create) {
  // Inside a write transaction a source's id is asked once (no other writer can change sources meanwhile).
  const bool keep = pg_ && in_transaction_;
  if (keep) {
    if (auto it = batch_.sources.find(std::string(name)); it != batch_.sources.end()) return it->second;
  }
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT id FROM sources WHERE name = ?"));
  q->Bind(1, name);
  int64_t id = 0;
  if (q->Step()) {
    id = q->Int(0);
    q->Reset();
  } else {
    ENGRAM_RETURN_IF_ERROR(q->status());
    if (!create) return Status::NotFound("no source named '" + std::string(name) + "'");
    ENGRAM_ASSIGN_OR_RETURN(Stmt * ins, S("INSERT INTO sources(name) VALUES (?) RETURNING id"));
    ins->Bind(1, name);
    ENGRAM_ASSIGN_OR_RETURN(id, InsertedId(ins));
  }
  if (keep) batch_.sources.emplace(std::string(name), id);
  return id;
}

Result<std::string> SqlEngine::SourceRoot(std::string_view source) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT root FROM sources WHERE name = ?"));
  q->Bind(1, source);
  if (q->Step()) return q->Text(0);
  ENGRAM_RETURN_IF_ERROR(q->status());
  return std::string();
}

Status SqlEngine::SetSourceRoot(std::string_view source, std::string_view root) {
  ENGRAM_RETURN_IF_ERROR(SourceId(source, true).status());
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("UPDATE sources SET root = ? WHERE name = ?"));
  q->Bind(1, root).Bind(2, source);
  return q->Run();
}

Result<std::string> SqlEngine::SyncAnchor(std::string_view source) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT sync_anchor FROM sources WHERE name = ?"));
  q->Bind(1, source);
  std::string anchor;
  if (q->Step() && !q->IsNull(0)) anchor = q->Text(0);
  ENGRAM_RETURN_IF_ERROR(q->status());
  return anchor;
}

Status SqlEngine::SetSyncAnchor(std::string_view source, std::string_view anchor) {
  ENGRAM_RETURN_IF_ERROR(SourceId(source, true).status());
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("UPDATE sources SET sync_anchor = ? WHERE name = ?"));
  q->Bind(1, anchor).Bind(2, source);
  return q->Run();
}

Result<std::string> SqlEngine::GetConfigValue(std::string_view key) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT value FROM config WHERE key = ?"));
  q->Bind(1, key);
  std::string value;
  if (q->Step()) value = q->Text(0);
  ENGRAM_RETURN_IF_ERROR(q->status());
  return value;
}

Status SqlEngine::SetConfigValue(std::string_view key, std::string_view value) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("INSERT INTO config(key, value) VALUES (?, ?) "
                                      "ON CONFLICT (key) DO UPDATE SET value = excluded.value"));
  q->Bind(1, key).Bind(2, value);
  return q->Run();
}

Status SqlEngine::AppendAudit(std::string_view source, const AuditEntry& e) {
  ENGRAM_ASSIGN_OR_RETURN(int64_t source_id, SourceId(source, true));
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q,
                          S("INSERT INTO quarantine_audit(source_id, at, path, rule, line) VALUES (?, ?, ?, ?, ?)"));
  q->Bind(1, source_id).Bind(2, e.at).Bind(3, e.path).Bind(4, e.rule).Bind(5, static_cast<int64_t>(e.line));
  return q->Run();
}

Result<std::vector<AuditEntry>> SqlEngine::Audit(size_t limit) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT at, path, rule, line FROM quarantine_audit ORDER BY id DESC LIMIT ?"));
  q->Bind(1, static_cast<int64_t>(limit));
  std::vector<AuditEntry> out;
  while (q->Step()) out.push_back({q->Text(0), q->Text(1), q->Text(2), static_cast<int>(q->Int(3))});
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

Status SqlEngine::RecordSyncFailure(std::string_view source, const SyncFailure& f) {
  ENGRAM_ASSIGN_OR_RETURN(int64_t source_id, SourceId(source, true));
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("INSERT INTO sync_failures(source_id, path, reason, at) VALUES (?, ?, ?, ?) "
                                      "ON CONFLICT (source_id, path) DO UPDATE SET reason = excluded.reason, at = excluded.at"));
  q->Bind(1, source_id).Bind(2, f.path).Bind(3, f.reason).Bind(4, f.at);
  return q->Run();
}

Status SqlEngine::ClearSyncFailure(std::string_view source, std::string_view path) {
  ENGRAM_ASSIGN_OR_RETURN(int64_t source_id, SourceId(source, true));
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("DELETE FROM sync_failures WHERE source_id = ? AND path = ?"));
  q->Bind(1, source_id).Bind(2, path);
  return q->Run();
}

Result<std::vector<SyncFailure>> SqlEngine::SyncFailures(std::string_view source) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT f.path, f.reason, f.at FROM sync_failures f JOIN sources s ON s.id = f.source_id "
                                      "WHERE s.name = ? ORDER BY f.path"));
  q->Bind(1, source);
  std::vector<SyncFailure> out;
  while (q->Step()) out.push_back({q->Text(0), q->Text(1), q->Text(2)});
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

Result<StoredPage> SqlEngine::GetPage(const ReadScope& scope, std::string_view slug) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q,
                          S("SELECT p.id, p.slug, p.path, p.type, p.title, p.frontmatter, p.compiled_truth, "
                            "p.timeline, p.content, p.content_hash, p.visibility, p.created_at, p.updated_at, "
                            "p.indexed_at "
                            "FROM pages p JOIN sources s ON s.id = p.source_id WHERE s.name = ?1 AND p.slug = ?2 "
                            "AND (?3 OR p.visibility = 'public')"));
  q->Bind(1, scope.source).Bind(2, slug).Bind(3, int64_t{scope.include_private ? 1 : 0});
  if (!q->Step()) {
    ENGRAM_RETURN_IF_ERROR(q->status());
    return Status::NotFound("no page '" + std::string(slug) + "'");
  }
  StoredPage p;
  p.id = PageId(q->Int(0));
  p.source = scope.source;
  p.slug = q->Text(1);
  p.path = q->Text(2);
  p.type = q->Text(3);
  p.title = q->Text(4);
  p.frontmatter_json = q->Text(5);
  p.compiled_truth = q->Text(6);
  p.timeline = q->Text(7);
  p.content = q->Text(8);
  p.content_hash = q->Text(9);
  p.is_private = q->Text(10) == "private";
  p.created_at = q->Text(11);
  p.updated_at = q->Text(12);
  p.indexed_at = q->Text(13);
  ENGRAM_ASSIGN_OR_RETURN(Stmt * tags, S("SELECT tag FROM tags WHERE page_id = ? ORDER BY tag"));
  tags->Bind(1, p.id.value());
  while (tags->Step()) p.tags.push_back(tags->Text(0));
  ENGRAM_RETURN_IF_ERROR(tags->status());
  ENGRAM_ASSIGN_OR_RETURN(Stmt * al, S("SELECT alias FROM aliases WHERE page_id = ? ORDER BY alias"));
  al->Bind(1, p.id.value());
  while (al->Step()) p.aliases.push_back(al->Text(0));
  ENGRAM_RETURN_IF_ERROR(al->status());
  return p;
}

Result<std::vector<PageSummary>> SqlEngine::ListPages(const ListFilter& f) {
  ENGRAM_ASSIGN_OR_RETURN(
      Stmt * q, S("SELECT p.slug, p.path, p.type, p.title, p.visibility, p.updated_at FROM pages p "
                  "JOIN sources s ON s.id = p.source_id WHERE s.name = ?1 "
                  "AND (?2 = '' OR p.type = ?2) "
                  "AND (?3 = '' OR EXISTS (SELECT 1 FROM tags t WHERE t.page_id = p.id AND " ENGRAM_TAG_MATCHES("?3", "?3") ")) "
                  "AND (?4 = 1 OR p.visibility = 'public') ORDER BY p.slug LIMIT ?5"));
  q->Bind(1, f.source).Bind(2, f.type).Bind(3, WantedTag(f.tag)).Bind(4, int64_t{f.include_private ? 1 : 0});
  q->Bind(5, static_cast<int64_t>(f.limit));
  std::vector<PageSummary> out;
  while (q->Step()) {
    out.push_back({q->Text(0), q->Text(1), q->Text(2), q->Text(3), q->Text(4) == "private", q->Text(5)});
  }
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

Result<std::vector<SourceFile>> SqlEngine::ListSourceFiles(std::string_view source) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT p.path, p.slug, p.content_hash FROM pages p "
                                      "JOIN sources s ON s.id = p.source_id WHERE s.name = ? ORDER BY p.path"));
  q->Bind(1, source);
  std::vector<SourceFile> out;
  while (q->Step()) out.push_back({q->Text(0), q->Text(1), q->Text(2)});
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

Result<std::optional<SourceFile>> SqlEngine::FindSourceFileWhere(const char* sql, std::string_view source,
                                                                    std::string_view value) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(sql));
  q->Bind(1, source).Bind(2, value);
  std::optional<SourceFile> out;
  if (q->Step()) out = SourceFile{q->Text(0), q->Text(1), q->Text(2)};
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

Result<std::optional<SourceFile>> SqlEngine::FindSourceFile(std::string_view source, std::string_view path) {
  return FindSourceFileWhere("SELECT p.path, p.slug, p.content_hash FROM pages p JOIN sources s ON s.id = p.source_id "
                             "WHERE s.name = ? AND p.path = ?",
                             source, path);
}

Result<std::optional<SourceFile>> SqlEngine::FindSourceFileBySlug(std::string_view source, std::string_view slug) {
  return FindSourceFileWhere("SELECT p.path, p.slug, p.content_hash FROM pages p JOIN sources s ON s.id = p.source_id "
                             "WHERE s.name = ? AND p.slug = ?",
                             source, slug);
}

Result<std::vector<TimelineEntry>> SqlEngine::Timeline(std::string_view source, std::string_view slug) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT t.date, t.summary, t.source, t.line FROM timeline_entries t "
                                      "JOIN pages p ON p.id = t.page_id JOIN sources s ON s.id = p.source_id "
                                      "WHERE s.name = ? AND p.slug = ? ORDER BY t.date, t.line"));
  q->Bind(1, source).Bind(2, slug);
  std::vector<TimelineEntry> out;
  while (q->Step()) out.push_back({q->Text(0), q->Text(1), q->Text(2), static_cast<int>(q->Int(3))});
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

Result<BrainStats> SqlEngine::Stats(const ReadScope& scope) {
  BrainStats st;
  st.scoped = !scope.include_private;
  struct Count {
    const char* all;     // every page's
    const char* scoped;  // a public reader's: what belongs to public pages ("" = not counted)
    int64_t* out;
  };
#define ENGRAM_PUBLIC_PAGE(col) " " col " NOT IN (SELECT id FROM pages WHERE visibility = 'private')"
  const Count counts[] = {
      {"SELECT count(*) FROM pages", "SELECT count(*) FROM pages WHERE visibility != 'private'", &st.pages},
      {"SELECT count(*) FROM pages WHERE visibility = 'private'", "", &st.private_pages},
      {"SELECT count(*) FROM chunks", "SELECT count(*) FROM chunks WHERE" ENGRAM_PUBLIC_PAGE("page_id"), &st.chunks},
      {"SELECT count(*) FROM links WHERE type != 'attachment'",
       "SELECT count(*) FROM links WHERE type != 'attachment' AND" ENGRAM_PUBLIC_PAGE("from_page"), &st.links},
      {"SELECT count(*) FROM links WHERE type = 'attachment'",
       "SELECT count(*) FROM links WHERE type = 'attachment' AND" ENGRAM_PUBLIC_PAGE("from_page"), &st.attachments},
      {"SELECT count(*) FROM tags", "SELECT count(*) FROM tags WHERE" ENGRAM_PUBLIC_PAGE("page_id"), &st.tags},
      {"SELECT count(*) FROM aliases", "SELECT count(*) FROM aliases WHERE" ENGRAM_PUBLIC_PAGE("page_id"),
       &st.aliases},
      {"SELECT count(*) FROM timeline_entries",
       "SELECT count(*) FROM timeline_entries WHERE" ENGRAM_PUBLIC_PAGE("page_id"), &st.timeline_entries},
      // Versions outlive their pages, whose visibility is then unknown: counted for readers of every page.
      {"SELECT count(*) FROM page_versions", "", &st.versions},
      {"SELECT count(*) FROM terms", "", &st.terms},
  };
#undef ENGRAM_PUBLIC_PAGE
  for (const Count& c : counts) {
    const char* sql = scope.include_private ? c.all : c.scoped;
    if (*sql == '\0') continue;
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(sql));
    int64_t v = q->Step() ? q->Int(0) : 0;
    ENGRAM_RETURN_IF_ERROR(q->status());
    *c.out = v;
  }
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(scope.include_private
                                          ? "SELECT type, count(*) FROM pages GROUP BY type ORDER BY type"
                                          : "SELECT type, count(*) FROM pages WHERE visibility != 'private' "
                                            "GROUP BY type ORDER BY type"));
  while (q->Step()) st.pages_by_type[q->Text(0)] = q->Int(1);
  ENGRAM_RETURN_IF_ERROR(q->status());
  ENGRAM_ASSIGN_OR_RETURN(st.schema_version, conn_->SchemaVersion());
  if (scope.include_private) {
    ENGRAM_ASSIGN_OR_RETURN(st.db_bytes, conn_->DatabaseBytes());
  }
  st.engine = pg_ ? "postgres" : "sqlite";
  ENGRAM_ASSIGN_OR_RETURN(st.server, conn_->Describe());
  ENGRAM_ASSIGN_OR_RETURN(st.replica, conn_->ReadReplica());
  return st;
}

Status SqlEngine::AppendIngestLog(const IngestLogEntry& e) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("INSERT INTO ingest_log(at, path, action, message) VALUES (?, ?, ?, ?)"));
  q->Bind(1, e.at).Bind(2, e.path).Bind(3, e.action).Bind(4, e.message);
  return q->Send();
}

Result<std::vector<IngestLogEntry>> SqlEngine::RecentIngestLog(size_t limit) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT at, path, action, message FROM ingest_log ORDER BY id DESC LIMIT ?"));
  q->Bind(1, static_cast<int64_t>(limit));
  std::vector<IngestLogEntry> out;
  while (q->Step()) out.push_back({q->Text(0), q->Text(1), q->Text(2), q->Text(3)});
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

Result<std::vector<int64_t>> TermIds(std::string_view blob, std::string_view whose) {
  std::vector<int64_t> ids;
  if (!store::DecodeIds(blob, &ids)) {
    return Status::Corruption(std::string("the term list of ").append(whose).append(
        " is damaged (not a list of varints); `engram check --repair` writes it again"));
  }
  return ids;
}

}  // namespace engram::store::sql
