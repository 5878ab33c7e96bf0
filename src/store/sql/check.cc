// CheckIntegrity: the database checked against itself. (The comparison with
// a rebuild from the files is PageDerivedRows plus sync/rebuild_check.)
#include <map>
#include <set>
#include <unordered_map>

#include "store/sql/sql_engine.h"

namespace engram::store::sql {

namespace {

// The triggers that log vector changes, as migration 10 creates them (IF NOT
// EXISTS so a repair can put back whichever is missing).
constexpr const char* kVectorTriggers[][2] = {
    {"chunks_vector_insert",
     "CREATE TRIGGER IF NOT EXISTS chunks_vector_insert AFTER INSERT ON chunks WHEN NEW.embedding IS NOT NULL "
     "BEGIN " ENGRAM_LOG_CHANGE_SQL("1", "NEW.id") " END;"},
    {"chunks_vector_update",
     "CREATE TRIGGER IF NOT EXISTS chunks_vector_update AFTER UPDATE OF embedding, embedding_model ON chunks "
     "BEGIN " ENGRAM_LOG_CHANGE_SQL("1", "NEW.id") " END;"},
    {"chunks_vector_delete",
     "CREATE TRIGGER IF NOT EXISTS chunks_vector_delete AFTER DELETE ON chunks WHEN OLD.embedding IS NOT NULL "
     "BEGIN " ENGRAM_LOG_CHANGE_SQL("1", "OLD.id") " END;"},
};
// PostgreSQL's, over the function its schema defines (store/postgres/pg_schema.cc).
constexpr const char* kPgVectorTriggers[][2] = {
    {"chunks_vector_insert",
     "CREATE OR REPLACE TRIGGER chunks_vector_insert AFTER INSERT ON chunks FOR EACH ROW "
     "WHEN (NEW.embedding IS NOT NULL) EXECUTE FUNCTION engram_log_vector_change()"},
    {"chunks_vector_update",
     "CREATE OR REPLACE TRIGGER chunks_vector_update AFTER UPDATE OF embedding, embedding_model ON chunks "
     "FOR EACH ROW EXECUTE FUNCTION engram_log_vector_change()"},
    {"chunks_vector_delete",
     "CREATE OR REPLACE TRIGGER chunks_vector_delete AFTER DELETE ON chunks FOR EACH ROW "
     "WHEN (OLD.embedding IS NOT NULL) EXECUTE FUNCTION engram_log_vector_change()"},
};
}  // namespace

// What the change log's vector stream says about chunks, for the check and the repair.
struct SqlEngine::VectorLogState {
  std::vector<std::string> missing_triggers;
  bool missing_generation = false;         // the generation row is gone
  int64_t beyond_generation = 0;           // entries with a generation above the store's
  std::vector<int64_t> ghosts;             // vanished chunks an index catching up would keep
  std::map<int64_t, std::string> unlogged;  // chunk id -> path: a stored vector the log never saw
  std::map<int64_t, std::string> stale;     // chunk id -> path: vector of text that changed since
};

Result<SqlEngine::VectorLogState> SqlEngine::ReadVectorLogState() {
  VectorLogState st;
  for (const auto& [name, sql] : kVectorTriggers) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(D("SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                                          "SELECT 1 FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                                          "WHERE t.tgname = ? AND c.relname = 'chunks' AND pg_table_is_visible(c.oid)")));
    q->Bind(1, std::string_view(name));
    if (!q->Step()) st.missing_triggers.push_back(name);
    ENGRAM_RETURN_IF_ERROR(q->status());
    q->Reset();
  }
  int64_t generation = 0, trimmed_through = 0;
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT value, trimmed_through FROM store_generation WHERE id = 1"));
    if (q->Step()) {
      generation = q->Int(0);
      trimmed_through = q->Int(1);
    } else if (q->status().ok()) {
      st.missing_generation = true;
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
    q->Reset();
  }
  std::unordered_map<int64_t, int64_t> entries;  // chunk id -> log entries
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT generation, key FROM change_log WHERE stream = 1"));
    while (q->Step()) {
      if (q->Int(0) > generation) ++st.beyond_generation;
      ++entries[q->Int(1)];
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
  }
  // Only a log that still reaches back to its first entry tells which
  // vectors it never saw; a trimmed one lost the entries of old vectors.
  bool complete = trimmed_through == 0 && !st.missing_generation;
  std::set<int64_t> live;
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT c.id, p.path, p.title, c.text, c.embedded_hash, "
                                        "c.embedding IS NOT NULL FROM chunks c JOIN pages p ON p.id = c.page_id"));
    while (q->Step()) {
      int64_t id = q->Int(0);
      live.insert(id);
      if (q->Int(5) == 0) continue;
      if (complete && !entries.count(id)) st.unlogged[id] = q->Text(1);
      if (q->IsNull(4) || q->Text(4) != EmbeddingTextHash(ChunkEmbeddingText(q->Text(2), q->Text(3)))) {
        st.stale[id] = q->Text(1);
      }
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
  }
  if (complete) {
    // Storing a vector logs once and deleting its chunk once more; a vanished
    // chunk logged only once left its vector in every index built from the log.
    for (const auto& [id, n] : entries) {
      if (n == 1 && !live.count(id)) st.ghosts.push_back(id);
    }
  }
  return st;
}

Result<std::vector<IntegrityProblem>> SqlEngine::CheckIntegrity() {
  FinishReads();
  std::vector<IntegrityProblem> problems;
  ENGRAM_RETURN_IF_ERROR(CheckTables(&problems));
  IndexTotals totals;
  ENGRAM_RETURN_IF_ERROR(CheckPostings(&problems, &totals));
  ENGRAM_RETURN_IF_ERROR(CheckCorpusStats(totals, &problems));
  ENGRAM_ASSIGN_OR_RETURN(VectorLogState vectors, ReadVectorLogState());
  AddVectorLogProblems(vectors, &problems);
  return problems;
}

// SQLite's own check, and derived rows whose page is gone.
Status SqlEngine::CheckTables(std::vector<IntegrityProblem>* out) {
  std::vector<IntegrityProblem>& problems = *out;
  {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<std::string> storage, conn_->StorageCheck());
    for (std::string& line : storage) problems.push_back({std::move(line), ""});
  }
  static const char* const kOrphans[][2] = {
      {"SELECT count(*) FROM chunks WHERE page_id NOT IN (SELECT id FROM pages)", "chunks of deleted pages"},
      {"SELECT count(*) FROM links WHERE from_page NOT IN (SELECT id FROM pages)", "links from deleted pages"},
      {"SELECT count(*) FROM tags WHERE page_id NOT IN (SELECT id FROM pages)", "tags of deleted pages"},
      {"SELECT count(*) FROM aliases WHERE page_id NOT IN (SELECT id FROM pages)", "aliases of deleted pages"},
      {"SELECT count(*) FROM timeline_entries WHERE page_id NOT IN (SELECT id FROM pages)",
       "timeline entries of deleted pages"},
      {"SELECT count(*) FROM facts WHERE page_id NOT IN (SELECT id FROM pages)", "facts of deleted pages"},
  };
  for (const auto& [sql, what] : kOrphans) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(sql));
    int64_t n = q->Step() ? q->Int(0) : 0;
    ENGRAM_RETURN_IF_ERROR(q->status());
    if (n > 0) problems.push_back({std::to_string(n) + " " + what, ""});
  }
  return Status::Ok();
}

Status SqlEngine::CheckPostings(std::vector<IntegrityProblem>* out, IndexTotals* totals) {
  std::vector<IntegrityProblem>& problems = *out;
  // Posting lists must describe the same (term, doc) pairs as the term-id
  // lists stored with chunks (doc = chunk) and pages (doc = page, the title),
  // each posting naming the doc's page and its field length.
  struct Doc {
    std::string path;
    int64_t page = 0;
    int64_t length = 0;
    std::set<int64_t> terms;
  };
  std::set<std::string> bad_paths;
  std::map<int64_t, Doc> chunk_docs, title_docs;
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT c.id, p.path, c.page_id, c.terms, c.term_length FROM chunks c "
                                        "JOIN pages p ON p.id = c.page_id"));
    while (q->Step()) {
      std::vector<int64_t> ids;
      if (!store::DecodeIds(q->Blob(3), &ids)) {
        problems.push_back({"the term list of chunk " + std::to_string(q->Int(0)) + " is damaged", q->Text(1)});
        bad_paths.insert(q->Text(1));
      }
      chunk_docs[q->Int(0)] = {q->Text(1), q->Int(2), q->Int(4), std::set<int64_t>(ids.begin(), ids.end())};
      totals->chunk_tokens += q->Int(4);
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
  }
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT id, path, title_terms, title_length FROM pages"));
    while (q->Step()) {
      std::vector<int64_t> ids;
      if (!store::DecodeIds(q->Blob(2), &ids)) {
        problems.push_back({"the title term list of page " + std::to_string(q->Int(0)) + " is damaged", q->Text(1)});
        bad_paths.insert(q->Text(1));
      }
      title_docs[q->Int(0)] = {q->Text(1), q->Int(0), q->Int(3), std::set<int64_t>(ids.begin(), ids.end())};
      totals->title_tokens += q->Int(3);
      if (q->Int(3) > 0) ++totals->titles;
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
  }
  for (bool title_lists : {false, true}) {
    std::map<int64_t, Doc>& docs = title_lists ? title_docs : chunk_docs;
    const std::string field = title_lists ? "title" : "full-text";
    std::map<int64_t, std::set<int64_t>> posted;  // doc -> term ids with a posting
    int64_t stray = 0;
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(title_lists ? "SELECT term_id, data FROM title_postings"
                                                    : "SELECT term_id, data FROM postings"));
    std::vector<Posting> list;
    while (q->Step()) {
      int64_t term = q->Int(0);
      Status st = DecodePostings(q->Blob(1), &list);
      if (!st.ok() || list.empty()) {
        problems.push_back({field + " posting list of term " + std::to_string(term) +
                                (st.ok() ? " is stored empty" : " is damaged: " + st.message()),
                            ""});
        // Its docs are unknown; the pages that list the term are the ones to write again.
        for (const auto& [id, doc] : docs) {
          if (doc.terms.count(term)) bad_paths.insert(doc.path);
        }
        continue;
      }
      for (const Posting& p : list) {
        auto it = docs.find(p.doc);
        if (it == docs.end()) {
          ++stray;
          continue;
        }
        posted[p.doc].insert(term);
        if (!it->second.terms.count(term) || p.page != it->second.page ||
            static_cast<int64_t>(p.dl) != it->second.length || p.tf == 0) {
          bad_paths.insert(it->second.path);
        }
      }
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
    q->Reset();
    if (stray > 0) {
      problems.push_back({std::to_string(stray) + " " + field + " postings point at " +
                              (title_lists ? "pages" : "chunks") + " that no longer exist",
                          ""});
    }
    for (const auto& [id, doc] : docs) {
      auto it = posted.find(id);
      if (it == posted.end() ? !doc.terms.empty() : it->second != doc.terms) bad_paths.insert(doc.path);
    }
    for (const std::string& path : bad_paths) {
      problems.push_back({field + " index disagrees with the page's " + (title_lists ? "title" : "chunks"), path});
    }
    bad_paths.clear();
  }
  totals->chunks = static_cast<int64_t>(chunk_docs.size());
  return Status::Ok();
}

// Corpus statistics drive BM25: they must equal the sums over the rows.
Status SqlEngine::CheckCorpusStats(const IndexTotals& totals, std::vector<IntegrityProblem>* out) {
  std::vector<IntegrityProblem>& problems = *out;
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT chunks, chunk_tokens, titles, title_tokens FROM corpus_stats WHERE id = 1"));
    if (q->Step()) {
      auto num = [](int64_t a, int64_t b) { return std::to_string(a) + ", " + std::to_string(b); };
      if (q->Int(0) != totals.chunks || q->Int(1) != totals.chunk_tokens) {
        problems.push_back({"corpus statistics (" + num(q->Int(0), q->Int(1)) + " chunks, tokens) differ from the chunks (" +
                                num(totals.chunks, totals.chunk_tokens) + ")",
                            ""});
      }
      if (q->Int(2) != totals.titles || q->Int(3) != totals.title_tokens) {
        problems.push_back({"corpus statistics (" + num(q->Int(2), q->Int(3)) + " titles, tokens) differ from the pages (" +
                                num(totals.titles, totals.title_tokens) + ")",
                            ""});
      }
    } else {
      problems.push_back({"corpus statistics are missing", ""});
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
  }
  return Status::Ok();
}

void SqlEngine::AddVectorLogProblems(const VectorLogState& vectors, std::vector<IntegrityProblem>* out) {
  std::vector<IntegrityProblem>& problems = *out;
  for (const std::string& name : vectors.missing_triggers) {
    problems.push_back({"change log trigger " + name + " is missing: vector changes go unlogged", ""});
  }
  if (vectors.missing_generation) problems.push_back({"the store's generation row is missing: changes go unlogged", ""});
  if (vectors.beyond_generation > 0) {
    problems.push_back({std::to_string(vectors.beyond_generation) + " change log entries lie beyond the store's generation",
                        ""});
  }
  if (!vectors.ghosts.empty()) {
    problems.push_back({std::to_string(vectors.ghosts.size()) +
                            " deleted chunks left their vectors visible to vector indexes (deletion never logged)",
                        ""});
  }
  for (const auto& [id, path] : vectors.unlogged) {
    problems.push_back({"chunk " + std::to_string(id) + " has a vector the change log never recorded", path});
  }
  for (const auto& [id, path] : vectors.stale) {
    problems.push_back({"chunk " + std::to_string(id) + " has a vector of text that changed since it was embedded", path});
  }
}

Status SqlEngine::Repair() {
  FinishReads();
  ENGRAM_RETURN_IF_ERROR(conn_->Begin());
  Status st = [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Exec("DELETE FROM chunks WHERE page_id NOT IN (SELECT id FROM pages);"
                                "DELETE FROM links WHERE from_page NOT IN (SELECT id FROM pages);"
                                "DELETE FROM tags WHERE page_id NOT IN (SELECT id FROM pages);"
                                "DELETE FROM aliases WHERE page_id NOT IN (SELECT id FROM pages);"
                                "DELETE FROM timeline_entries WHERE page_id NOT IN (SELECT id FROM pages);"
                                "DELETE FROM facts WHERE page_id NOT IN (SELECT id FROM pages);"));
    // Drop postings of vanished chunks (and of vanished pages' titles), and
    // damaged lists (the pages listing their terms are written again by the caller).
    for (bool titles : {false, true}) {
      std::set<int64_t> live;
      ENGRAM_ASSIGN_OR_RETURN(Stmt * ids, S(titles ? "SELECT id FROM pages" : "SELECT id FROM chunks"));
      while (ids->Step()) live.insert(ids->Int(0));
      ENGRAM_RETURN_IF_ERROR(ids->status());
      std::vector<std::pair<int64_t, std::string>> rewrites;
      ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(titles ? "SELECT term_id, data FROM title_postings"
                                                 : "SELECT term_id, data FROM postings"));
      std::vector<Posting> list;
      while (q->Step()) {
        Status decoded = DecodePostings(q->Blob(1), &list);
        size_t before = decoded.ok() ? list.size() : SIZE_MAX;
        if (!decoded.ok()) list.clear();
        std::erase_if(list, [&](const Posting& p) { return !live.count(p.doc); });
        if (list.size() != before || list.empty()) {
          rewrites.emplace_back(q->Int(0), list.empty() ? std::string() : EncodePostings(list));
        }
      }
      ENGRAM_RETURN_IF_ERROR(q->status());
      ENGRAM_ASSIGN_OR_RETURN(Stmt * put, S(titles ? kPutTitlePostingsSql : kPutPostingsSql));
      ENGRAM_ASSIGN_OR_RETURN(Stmt * del, S(titles ? "DELETE FROM title_postings WHERE term_id = ?"
                                                   : "DELETE FROM postings WHERE term_id = ?"));
      for (const auto& [term, blob] : rewrites) {
        if (blob.empty()) {
          del->Bind(1, term);
          ENGRAM_RETURN_IF_ERROR(del->Run());
        } else {
          put->Bind(1, term).BindBlob(2, blob);
          ENGRAM_RETURN_IF_ERROR(put->Run());
        }
      }
    }
    // Vector changes: triggers back first, then an entry for each vector an
    // index could hold wrongly, so that indexes catching up re-read it.
    for (const auto& [name, sql] : pg_ ? kPgVectorTriggers : kVectorTriggers) ENGRAM_RETURN_IF_ERROR(Exec(sql));
    ENGRAM_ASSIGN_OR_RETURN(VectorLogState vectors, ReadVectorLogState());
    // A lost generation row comes back one above every entry and marks the
    // log as reaching back no further: changes made while it was gone went
    // unlogged, so every index built before rebuilds. Entries beyond the
    // generation lift it to theirs (an index that recorded less catches up).
    if (vectors.missing_generation) {
      ENGRAM_RETURN_IF_ERROR(Exec("INSERT INTO store_generation(id, value, trimmed_through) SELECT 1, "
                                             "coalesce(max(generation), 0) + 1, coalesce(max(generation), 0) + 1 "
                                             "FROM change_log"));
    } else if (vectors.beyond_generation > 0) {
      ENGRAM_RETURN_IF_ERROR(Exec("UPDATE store_generation SET value = "
                                             "(SELECT max(generation) FROM change_log) WHERE id = 1"));
    }
    std::vector<int64_t> relog = vectors.ghosts;
    for (const auto& [id, path] : vectors.unlogged) relog.push_back(id);
    for (int64_t id : relog) ENGRAM_RETURN_IF_ERROR(WriteChange(ChangeStream::kVectors, id));
    // A vector of changed text is dropped (logged by the trigger); the next embed redoes it.
    ENGRAM_ASSIGN_OR_RETURN(Stmt * drop, S("UPDATE chunks SET embedding = NULL, embedding_model = NULL, "
                                           "embedded_hash = NULL WHERE id = ?"));
    for (const auto& [id, path] : vectors.stale) {
      drop->Bind(1, id);
      ENGRAM_RETURN_IF_ERROR(drop->Run());
    }
    return Exec("INSERT INTO corpus_stats(id, chunks, chunk_tokens, titles, title_tokens) VALUES (1, "
                "(SELECT count(*) FROM chunks), (SELECT coalesce(sum(term_length), 0) FROM chunks), "
                "(SELECT count(*) FROM pages WHERE title_length > 0), "
                "(SELECT coalesce(sum(title_length), 0) FROM pages)) ON CONFLICT (id) DO UPDATE SET "
                "chunks = excluded.chunks, chunk_tokens = excluded.chunk_tokens, titles = excluded.titles, "
                "title_tokens = excluded.title_tokens");
  }();
  if (!st.ok()) {
    conn_->Rollback();
    return st;
  }
  return Commit();
}

}  // namespace engram::store::sql
