// CheckIntegrity: the database checked against itself.
#include <map>
#include <set>

#include "store/sqlite/sqlite_engine.h"

namespace engram::store::sqlite {

Result<std::vector<IntegrityProblem>> SqliteEngine::CheckIntegrity() {
  std::vector<IntegrityProblem> problems;
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("PRAGMA quick_check"));
    while (q->Step()) {
      std::string line = q->Text(0);
      if (line != "ok") problems.push_back({"sqlite: " + line, ""});
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
  }
  static const char* const kOrphans[][2] = {
      {"SELECT count(*) FROM chunks WHERE page_id NOT IN (SELECT id FROM pages)", "chunks of deleted pages"},
      {"SELECT count(*) FROM links WHERE from_page NOT IN (SELECT id FROM pages)", "links from deleted pages"},
      {"SELECT count(*) FROM tags WHERE page_id NOT IN (SELECT id FROM pages)", "tags of deleted pages"},
      {"SELECT count(*) FROM aliases WHERE page_id NOT IN (SELECT id FROM pages)", "aliases of deleted pages"},
      {"SELECT count(*) FROM timeline_entries WHERE page_id NOT IN (SELECT id FROM pages)",
       "timeline entries of deleted pages"},
  };
  for (const auto& [sql, what] : kOrphans) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(sql));
    int64_t n = q->Step() ? q->Int(0) : 0;
    ENGRAM_RETURN_IF_ERROR(q->status());
    if (n > 0) problems.push_back({std::to_string(n) + " " + what, ""});
  }

  // Chunks and posting lists must describe the same (term, chunk) pairs.
  std::map<int64_t, std::pair<std::string, std::set<int64_t>>> chunk_terms;  // chunk -> (path, term ids)
  int64_t chunk_tokens = 0;
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT c.id, p.path, c.terms, c.term_length FROM chunks c "
                                        "JOIN pages p ON p.id = c.page_id"));
    while (q->Step()) {
      std::vector<int64_t> ids = DecodeIds(q->Blob(2));
      chunk_terms[q->Int(0)] = {q->Text(1), std::set<int64_t>(ids.begin(), ids.end())};
      chunk_tokens += q->Int(3);
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
  }
  std::set<std::string> bad_paths;
  std::map<int64_t, std::set<int64_t>> posted;  // chunk -> term ids with a posting
  int64_t stray = 0;
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT term_id, data FROM postings"));
    std::vector<Posting> list;
    while (q->Step()) {
      int64_t term = q->Int(0);
      Status st = DecodePostings(q->Blob(1), &list);
      if (!st.ok()) {
        problems.push_back({"posting list of term " + std::to_string(term) + " is damaged: " + st.message(), ""});
        continue;
      }
      for (const Posting& p : list) {
        auto it = chunk_terms.find(p.doc);
        if (it == chunk_terms.end()) {
          ++stray;
          continue;
        }
        posted[p.doc].insert(term);
        if (!it->second.second.count(term)) bad_paths.insert(it->second.first);
      }
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
  }
  if (stray > 0) problems.push_back({std::to_string(stray) + " postings point at chunks that no longer exist", ""});
  for (const auto& [chunk, entry] : chunk_terms) {
    if (posted[chunk] != entry.second) bad_paths.insert(entry.first);
  }
  for (const std::string& path : bad_paths) {
    problems.push_back({"full-text index disagrees with the page's chunks", path});
  }

  // Corpus statistics drive BM25: they must equal the sums.
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT chunks, chunk_tokens FROM corpus_stats WHERE id = 1"));
    if (q->Step()) {
      if (q->Int(0) != static_cast<int64_t>(chunk_terms.size()) || q->Int(1) != chunk_tokens) {
        problems.push_back({"corpus statistics (" + std::to_string(q->Int(0)) + " chunks, " +
                                std::to_string(q->Int(1)) + " tokens) differ from the chunks (" +
                                std::to_string(chunk_terms.size()) + ", " + std::to_string(chunk_tokens) + ")",
                            ""});
      }
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
  }
  return problems;
}

Status SqliteEngine::Repair() {
  FinishReads();
  ENGRAM_RETURN_IF_ERROR(Exec(db_.get(), "BEGIN IMMEDIATE"));
  Status st = [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Exec(db_.get(),
                                "DELETE FROM chunks WHERE page_id NOT IN (SELECT id FROM pages);"
                                "DELETE FROM links WHERE from_page NOT IN (SELECT id FROM pages);"
                                "DELETE FROM tags WHERE page_id NOT IN (SELECT id FROM pages);"
                                "DELETE FROM aliases WHERE page_id NOT IN (SELECT id FROM pages);"
                                "DELETE FROM timeline_entries WHERE page_id NOT IN (SELECT id FROM pages);"));
    // Drop postings of vanished chunks (and of vanished pages' titles).
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
        if (!decoded.ok()) list.clear();  // damaged: its pages are re-indexed by the caller
        std::erase_if(list, [&](const Posting& p) { return !live.count(p.doc); });
        if (list.size() != before) rewrites.emplace_back(q->Int(0), list.empty() ? std::string() : EncodePostings(list));
      }
      ENGRAM_RETURN_IF_ERROR(q->status());
      ENGRAM_ASSIGN_OR_RETURN(Stmt * put, S(titles ? "INSERT OR REPLACE INTO title_postings(term_id, data) VALUES (?, ?)"
                                                   : "INSERT OR REPLACE INTO postings(term_id, data) VALUES (?, ?)"));
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
    return Exec(db_.get(),
                "UPDATE corpus_stats SET chunks = (SELECT count(*) FROM chunks), "
                "chunk_tokens = (SELECT coalesce(sum(term_length), 0) FROM chunks), "
                "titles = (SELECT count(*) FROM pages WHERE title_length > 0), "
                "title_tokens = (SELECT coalesce(sum(title_length), 0) FROM pages) WHERE id = 1");
  }();
  if (!st.ok()) {
    (void)Exec(db_.get(), "ROLLBACK");
    return st;
  }
  return Exec(db_.get(), "COMMIT");
}

}  // namespace engram::store::sqlite
