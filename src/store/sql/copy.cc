// CopyStore (engram/store/copy_store.h): table by table through the two
// engines' connections, with the same SQL on either side.
#include "engram/store/copy_store.h"

#include <algorithm>
#include <cstring>

#include "common/crash_point.h"
#include "common/hash.h"
#include "store/sql/sql_engine.h"

namespace engram {

namespace {

using store::sql::Connection;
using store::sql::Stmt;

// How a column's values are read and bound.
enum class Kind { kInt, kText, kBlob };

struct Column {
  const char* name;
  Kind kind;
};

// How a table is copied: in key order, resuming after the target's highest
// key (kResume); whole, each row inserted or updated by its key (kUpsert);
// or whole after emptying the target's (kReplace: rows without a key, or
// that the copy's own writes add to, as the vector triggers do to the log).
enum class Mode { kResume, kUpsert, kReplace };

struct Table {
  const char* name;
  const char* key;  // the ORDER BY and ON CONFLICT columns
  Mode mode;
  std::vector<Column> columns;
};

constexpr Kind I = Kind::kInt, T = Kind::kText, B = Kind::kBlob;

// In an order that satisfies the foreign keys.
const std::vector<Table>& Tables() {
  static const std::vector<Table> kTables = {
      {"sources", "id", Mode::kUpsert,
       {{"id", I}, {"name", T}, {"root", T}, {"sync_anchor", T}, {"created_at", T}}},
      {"pages", "id", Mode::kResume,
       {{"id", I}, {"source_id", I}, {"slug", T}, {"path", T}, {"type", T}, {"title", T}, {"frontmatter", T},
        {"compiled_truth", T}, {"timeline", T}, {"content", T}, {"content_hash", T}, {"visibility", T},
        {"title_terms", B}, {"title_length", I}, {"created_at", T}, {"updated_at", T}, {"path_key", T},
        {"name_key", T}, {"indexed_at", T}}},
      {"chunks", "id", Mode::kResume,
       {{"id", I}, {"page_id", I}, {"ordinal", I}, {"source", T}, {"text", T}, {"token_count", I},
        {"line_start", I}, {"line_end", I}, {"terms", B}, {"term_length", I}, {"embedding", B},
        {"embedding_model", T}, {"embedded_hash", T}}},
      {"terms", "id", Mode::kResume, {{"id", I}, {"term", T}}},
      {"postings", "term_id", Mode::kResume, {{"term_id", I}, {"data", B}}},
      {"title_postings", "term_id", Mode::kResume, {{"term_id", I}, {"data", B}}},
      {"corpus_stats", "id", Mode::kUpsert,
       {{"id", I}, {"chunks", I}, {"chunk_tokens", I}, {"titles", I}, {"title_tokens", I}}},
      {"links", "id", Mode::kResume,
       {{"id", I}, {"from_page", I}, {"to_slug", T}, {"type", T}, {"label", T}, {"context", T}, {"to_name", T}}},
      {"tags", "page_id, tag", Mode::kUpsert, {{"page_id", I}, {"tag", T}}},
      {"aliases", "page_id, alias", Mode::kUpsert, {{"page_id", I}, {"alias", T}}},
      {"timeline_entries", "id", Mode::kResume,
       {{"id", I}, {"page_id", I}, {"date", T}, {"summary", T}, {"summary_hash", T}, {"source", T}, {"line", I}}},
      {"facts", "id", Mode::kResume,
       {{"id", I}, {"page_id", I}, {"subject", T}, {"subject_name", T}, {"predicate", T}, {"value", T},
        {"value_is_link", I}, {"value_name", T}, {"valid_from", T}, {"valid_until", T}, {"line", I}, {"origin", T}}},
      {"page_versions", "id", Mode::kResume,
       {{"id", I}, {"page_id", I}, {"source_id", I}, {"slug", T}, {"content", T}, {"content_hash", T},
        {"created_at", T}}},
      {"ingest_log", "id", Mode::kResume, {{"id", I}, {"at", T}, {"path", T}, {"action", T}, {"message", T}}},
      {"config", "key", Mode::kUpsert, {{"key", T}, {"value", T}}},
      {"sync_failures", "source_id, path", Mode::kUpsert,
       {{"source_id", I}, {"path", T}, {"reason", T}, {"at", T}}},
      {"quarantine_audit", "id", Mode::kResume,
       {{"id", I}, {"source_id", I}, {"at", T}, {"path", T}, {"rule", T}, {"line", I}}},
      {"query_cache", "model, query_hash", Mode::kUpsert,
       {{"model", T}, {"query_hash", T}, {"vector", B}, {"used_at", T}}},
      {"kb_collections", "id", Mode::kUpsert,
       {{"id", I}, {"name", T}, {"fields", T}, {"embedder", T}, {"dimension", I}, {"created_at", T},
        {"created_by", T}, {"folder", T}}},
      {"kb_entries", "key", Mode::kResume,
       {{"key", I}, {"collection_id", I}, {"id", T}, {"text", T}, {"source", T}, {"meta", T}, {"updated_at", T},
        {"updated_by", T}, {"vector", B}}},
      {"kb_governed", "id", Mode::kResume,
       {{"id", I}, {"uniq_id", T}, {"business_scene", T}, {"question", T}, {"answer", T}, {"metadata", T},
        {"class_name", T}, {"class_no", T}, {"source", T}, {"type", T}, {"\"desc\"", T}, {"version", I},
        {"status", T}, {"editor", T}, {"editor_id", T}, {"auditor", T}, {"auditor_id", T}, {"releaser", T},
        {"releaser_id", T}, {"create_time", T}, {"update_time", T}, {"collection", T}, {"latest", I}}},
      {"kb_audit", "id", Mode::kResume,
       {{"id", I}, {"at", T}, {"who", T}, {"action", T}, {"governed_id", I}, {"before", T}, {"after", T}}},
      {"write_journal", "id", Mode::kUpsert,
       {{"id", I}, {"operation", T}, {"args", T}, {"report", T}, {"started_at", T}, {"owner", T}}},
      {"write_journal_files", "journal_id, seq", Mode::kUpsert,
       {{"journal_id", I}, {"seq", I}, {"path", T}, {"before", B}, {"after", B}, {"done", I}}},
      // Last: the chunks copied above logged their vectors again through the triggers.
      {"store_generation", "id", Mode::kReplace, {{"id", I}, {"value", I}, {"trimmed_through", I}}},
      {"change_log", "generation, stream, key", Mode::kReplace, {{"generation", I}, {"stream", I}, {"key", I}}},
  };
  return kTables;
}

constexpr size_t kBatchRows = 2000;

std::string ColumnList(const Table& t) {
  std::string s;
  for (const Column& c : t.columns) s.append(s.empty() ? "" : ", ").append(c.name);
  return s;
}

std::string InsertSql(const Table& t) {
  std::string sql = std::string("INSERT INTO ") + t.name + "(" + ColumnList(t) + ") VALUES (";
  for (size_t i = 0; i < t.columns.size(); ++i) sql += i ? ", ?" : "?";
  sql += ")";
  if (t.mode == Mode::kReplace) return sql;
  sql += std::string(" ON CONFLICT (") + t.key + ") DO ";
  std::string set;
  const std::string key = std::string(", ") + t.key + ",";
  for (const Column& c : t.columns) {
    if (key.find(std::string(", ") + c.name + ",") != std::string::npos) continue;
    set.append(set.empty() ? "" : ", ").append(c.name).append(" = excluded.").append(c.name);
  }
  return sql + (set.empty() ? "NOTHING" : "UPDATE SET " + set);
}

// Binds row `from` of the source as the parameters of `to`.
void BindRow(const Table& t, const Stmt& from, Stmt* to) {
  for (size_t i = 0; i < t.columns.size(); ++i) {
    const int col = static_cast<int>(i), param = static_cast<int>(i + 1);
    if (from.IsNull(col)) {
      to->BindNull(param);
      continue;
    }
    switch (t.columns[i].kind) {
      case Kind::kInt: to->Bind(param, from.Int(col)); break;
      case Kind::kText: to->Bind(param, from.Text(col)); break;
      case Kind::kBlob: to->BindBlob(param, from.Blob(col)); break;
    }
  }
}

// Row count and SHA-256 of a table's rows in key order (kind-aware, so that
// both engines' text renderings hash alike).
Result<std::pair<int64_t, std::string>> Digest(Connection& conn, const Table& t) {
  // The target's marker is the one row of the source's tables that only the target has.
  const std::string where = t.name == std::string("config") ? " WHERE key != 'migrated_from'" : "";
  ENGRAM_ASSIGN_OR_RETURN(Stmt q, conn.Prepare(std::string("SELECT ") + ColumnList(t) + " FROM " + t.name + where +
                                                   " ORDER BY " + t.key, false));
  common::Sha256 sha;
  int64_t rows = 0;
  while (q.Step()) {
    ++rows;
    for (size_t i = 0; i < t.columns.size(); ++i) {
      const int col = static_cast<int>(i);
      if (q.IsNull(col)) {
        sha.Update("N;");
        continue;
      }
      std::string cell;
      switch (t.columns[i].kind) {
        case Kind::kInt: cell = std::to_string(q.Int(col)); break;
        case Kind::kText: cell = q.Text(col); break;
        case Kind::kBlob: cell = std::string(q.Blob(col)); break;
      }
      sha.Update(std::to_string(cell.size()) + ":");
      sha.Update(cell);
    }
  }
  ENGRAM_RETURN_IF_ERROR(q.status());
  return std::make_pair(rows, sha.HexDigest());
}

Result<int64_t> Count(Connection& conn, const std::string& sql) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt q, conn.Prepare(sql, false));
  const int64_t n = q.Step() ? q.Int(0) : 0;
  ENGRAM_RETURN_IF_ERROR(q.status());
  return n;
}

Result<Connection*> ConnectionOf(Engine& e) {
  auto* sql = dynamic_cast<store::sql::SqlEngine*>(&e);
  if (!sql) return Status::InvalidArgument("this store cannot be copied (not an SQL engine)");
  return &sql->connection();
}

// Runs fn in one write transaction of conn.
Status InTransaction(Connection& conn, const std::function<Status()>& fn) {
  ENGRAM_RETURN_IF_ERROR(conn.Begin());
  Status st = fn();
  if (!st.ok()) {
    conn.Rollback();
    return st;
  }
  return conn.Commit();
}

}  // namespace

std::vector<std::pair<std::string, std::vector<std::string>>> CopiedColumns() {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const Table& t : Tables()) {
    std::vector<std::string> cols;
    for (const Column& c : t.columns) {
      cols.push_back(c.name[0] == '"' ? std::string(c.name + 1, strlen(c.name) - 2) : c.name);  // "desc"
    }
    out.emplace_back(t.name, std::move(cols));
  }
  return out;
}

Result<CopyReport> CopyStore(Engine& from_engine, Engine& to_engine, const std::string& source_name,
                             const std::function<void(const CopyProgress&)>& progress) {
  ENGRAM_ASSIGN_OR_RETURN(Connection * from, ConnectionOf(from_engine));
  ENGRAM_ASSIGN_OR_RETURN(Connection * to, ConnectionOf(to_engine));
  from_engine.FinishReads();
  to_engine.FinishReads();
  // The target: empty, or an interrupted copy of this same source.
  ENGRAM_ASSIGN_OR_RETURN(std::string marker, to_engine.GetConfigValue("migrated_from"));
  ENGRAM_ASSIGN_OR_RETURN(int64_t held, Count(*to, "SELECT (SELECT count(*) FROM pages) + (SELECT count(*) FROM "
                                                   "kb_entries) + (SELECT count(*) FROM kb_governed)"));
  if (marker.empty() && held > 0) {
    return Status::FailedPrecondition("the target already holds a brain (" + std::to_string(held) +
                                      " pages and knowledge entries); copy into an empty database");
  }
  if (!marker.empty() && marker != source_name) {
    return Status::FailedPrecondition("the target holds a copy of another brain (" + marker + ")");
  }
  ENGRAM_RETURN_IF_ERROR(to_engine.SetConfigValue("migrated_from", source_name));

  CopyProgress p;
  for (const Table& t : Tables()) {
    ENGRAM_ASSIGN_OR_RETURN(int64_t n, Count(*from, std::string("SELECT count(*) FROM ") + t.name));
    p.rows_total += n;
  }
  CopyReport report;
  for (const Table& t : Tables()) {
    CopiedTable done;
    done.name = t.name;
    p.table = t.name;
    const bool resume = t.mode == Mode::kResume;
    int64_t after = 0;
    if (resume) {
      ENGRAM_ASSIGN_OR_RETURN(after, Count(*to, std::string("SELECT coalesce(max(") + t.key + "), 0) FROM " + t.name));
      ENGRAM_ASSIGN_OR_RETURN(done.resumed_after, Count(*to, std::string("SELECT count(*) FROM ") + t.name));
      p.rows_done += done.resumed_after;
    }
    ENGRAM_ASSIGN_OR_RETURN(Stmt insert, to->Prepare(InsertSql(t), true));
    const std::string select = std::string("SELECT ") + ColumnList(t) + " FROM " + t.name +
                               (resume ? std::string(" WHERE ") + t.key + " > ?" : std::string()) + " ORDER BY " +
                               t.key + (resume ? " LIMIT ?" : "");
    ENGRAM_ASSIGN_OR_RETURN(Stmt read, from->Prepare(select, true));
    if (!resume) {
      // Whole, in one transaction: the table's rows are few, or must match the source exactly.
      ENGRAM_RETURN_IF_ERROR(InTransaction(*to, [&]() -> Status {
        if (t.mode == Mode::kReplace) ENGRAM_RETURN_IF_ERROR(to->Exec(std::string("DELETE FROM ") + t.name));
        while (read.Step()) {
          BindRow(t, read, &insert);
          ENGRAM_RETURN_IF_ERROR(insert.Run());
          ++p.rows_done;
        }
        return read.status();
      }).WithContext(std::string("copying ") + t.name));
      common::CrashPoint("a table copied");
      if (progress) progress(p);
    } else {
      for (;;) {
        size_t batch = 0;
        read.Reset();
        read.Bind(1, after).Bind(2, static_cast<int64_t>(kBatchRows));
        ENGRAM_RETURN_IF_ERROR(InTransaction(*to, [&]() -> Status {
          while (read.Step()) {
            after = read.Int(0);
            BindRow(t, read, &insert);
            ENGRAM_RETURN_IF_ERROR(insert.Run());
            ++batch;
          }
          return read.status();
        }).WithContext(std::string("copying ") + t.name));
        p.rows_done += static_cast<int64_t>(batch);
        common::CrashPoint("a batch of rows copied");
        if (progress) progress(p);
        if (batch < kBatchRows) break;
      }
    }
    report.tables.push_back(std::move(done));
  }
  // Identity columns continue after the copied ids.
  if (to->dialect() == store::sql::Dialect::kPostgres) {
    for (const Table& t : Tables()) {
      const std::string name = t.name;
      const bool identity = name == "sources" || name == "kb_collections" || name == "write_journal";
      if (t.mode != Mode::kResume && !identity) continue;
      if (std::string(t.key) == "term_id") continue;  // not an identity
      ENGRAM_RETURN_IF_ERROR(to->Exec(std::string("SELECT setval(pg_get_serial_sequence('") + t.name + "', '" +
                                      t.key + "'), coalesce(max(" + t.key + "), 0) + 1, false) FROM " + t.name)
                                 .WithContext(std::string("continuing the ids of ") + t.name));
    }
  }
  // Verified: every table read back on both sides.
  for (CopiedTable& done : report.tables) {
    const Table& t = *std::find_if(Tables().begin(), Tables().end(),
                                   [&](const Table& x) { return done.name == x.name; });
    ENGRAM_ASSIGN_OR_RETURN(auto source, Digest(*from, t));
    ENGRAM_ASSIGN_OR_RETURN(auto target, Digest(*to, t));
    if (source != target) {
      return Status::Corruption(std::string("the copy of table ") + t.name + " differs from the source: " +
                                std::to_string(source.first) + " rows (sha256 " + source.second.substr(0, 12) +
                                ") in the source, " + std::to_string(target.first) + " (sha256 " +
                                target.second.substr(0, 12) + ") in the target");
    }
    done.rows = source.first;
    done.sha256 = source.second;
    report.rows += source.first;
  }
  // A finished copy is a brain of its own: another copy into it is refused.
  ENGRAM_ASSIGN_OR_RETURN(Stmt unmark, to->Prepare("DELETE FROM config WHERE key = 'migrated_from'", false));
  ENGRAM_RETURN_IF_ERROR(unmark.Run());
  return report;
}

}  // namespace engram
