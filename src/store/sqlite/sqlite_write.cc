// Page writes: every derived row of a page commits with the page row.
#include <algorithm>

#include "common/files.h"
#include "common/hash.h"
#include "store/sqlite/sqlite_engine.h"

namespace engram::store::sqlite {

template <typename Fn>
Status SqliteEngine::Transaction(Fn&& fn) {
  const char* begin = in_batch_ ? "SAVEPOINT page_write" : "BEGIN IMMEDIATE";
  ENGRAM_RETURN_IF_ERROR(Exec(db_.get(), begin));
  size_t pending_before = pending_terms_.size();
  Status st = fn();
  if (st.ok()) {
    st = Exec(db_.get(), in_batch_ ? "RELEASE page_write" : "COMMIT");
    if (st.ok()) {
      if (!in_batch_) pending_terms_.clear();
      return st;
    }
  }
  (void)Exec(db_.get(), in_batch_ ? "ROLLBACK TO page_write; RELEASE page_write" : "ROLLBACK");
  // Term ids inserted by the rolled-back writes no longer exist.
  for (size_t i = pending_before; i < pending_terms_.size(); ++i) term_ids_.erase(pending_terms_[i]);
  pending_terms_.resize(pending_before);
  return st;
}

Result<int64_t> SqliteEngine::LookupTermId(const std::string& term) {
  auto it = term_ids_.find(term);
  if (it != term_ids_.end()) return it->second;
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT id FROM terms WHERE term = ?"));
  q->Bind(1, term);
  if (q->Step()) {
    int64_t id = q->Int(0);
    term_ids_.emplace(term, id);
    return id;
  }
  ENGRAM_RETURN_IF_ERROR(q->status());
  return Status::NotFound(term);
}

Result<int64_t> SqliteEngine::TermId(const std::string& term) {
  auto found = LookupTermId(term);
  if (found.ok() || found.status().code() != StatusCode::kNotFound) return found;
  ENGRAM_ASSIGN_OR_RETURN(Stmt * ins, S("INSERT INTO terms(term) VALUES (?)"));
  ins->Bind(1, term);
  ENGRAM_RETURN_IF_ERROR(ins->Run());
  int64_t id = sqlite3_last_insert_rowid(db_.get());
  term_ids_.emplace(term, id);
  pending_terms_.push_back(term);
  return id;
}

Status SqliteEngine::AdjustStats(int64_t chunks, int64_t chunk_tokens, int64_t titles, int64_t title_tokens) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("UPDATE corpus_stats SET chunks = chunks + ?, chunk_tokens = chunk_tokens + ?, "
                                      "titles = titles + ?, title_tokens = title_tokens + ? WHERE id = 1"));
  q->Bind(1, chunks).Bind(2, chunk_tokens).Bind(3, titles).Bind(4, title_tokens);
  return q->Run();
}

Status SqliteEngine::RemoveDerivedRows(int64_t page_id) {
  int64_t chunks = 0, chunk_tokens = 0, titles = 0, title_tokens = 0;
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT id, terms, term_length FROM chunks WHERE page_id = ?"));
    q->Bind(1, page_id);
    std::vector<std::pair<int64_t, std::vector<int64_t>>> doomed;
    while (q->Step()) {
      doomed.emplace_back(q->Int(0), DecodeIds(q->Blob(1)));
      ++chunks;
      chunk_tokens += q->Int(2);
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
    ENGRAM_ASSIGN_OR_RETURN(Stmt * del, S("DELETE FROM postings WHERE term_id = ? AND chunk_id = ?"));
    for (const auto& [chunk_id, term_ids] : doomed) {
      for (int64_t t : term_ids) {
        del->Bind(1, t).Bind(2, chunk_id);
        ENGRAM_RETURN_IF_ERROR(del->Run());
      }
    }
  }
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT title_terms, title_length FROM pages WHERE id = ?"));
    q->Bind(1, page_id);
    std::vector<int64_t> term_ids;
    if (q->Step()) {
      term_ids = DecodeIds(q->Blob(0));
      title_tokens = q->Int(1);
      titles = title_tokens > 0 ? 1 : 0;
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
    ENGRAM_ASSIGN_OR_RETURN(Stmt * del, S("DELETE FROM title_postings WHERE term_id = ? AND page_id = ?"));
    for (int64_t t : term_ids) {
      del->Bind(1, t).Bind(2, page_id);
      ENGRAM_RETURN_IF_ERROR(del->Run());
    }
  }
  static const char* const kDeletes[] = {
      "DELETE FROM chunks WHERE page_id = ?",  "DELETE FROM links WHERE from_page = ?",
      "DELETE FROM tags WHERE page_id = ?",    "DELETE FROM aliases WHERE page_id = ?",
      "DELETE FROM timeline_entries WHERE page_id = ?",
  };
  for (const char* sql : kDeletes) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * d, S(sql));
    d->Bind(1, page_id);
    ENGRAM_RETURN_IF_ERROR(d->Run());
  }
  return AdjustStats(-chunks, -chunk_tokens, -titles, -title_tokens);
}

Status SqliteEngine::PutPageRows(const PageWrite& w, int64_t* page_id) {
  const Page& page = w.page;
  ENGRAM_ASSIGN_OR_RETURN(int64_t source_id, SourceId(w.source, true));
  std::string now = common::NowIso8601();
  std::string visibility = page.is_private ? "private" : "public";

  // Title postings are computed first so the page row can carry their term ids.
  std::vector<int64_t> title_ids;
  title_ids.reserve(w.title_terms.terms.size());
  for (const auto& [term, tf] : w.title_terms.terms) {
    ENGRAM_ASSIGN_OR_RETURN(int64_t id, TermId(term));
    title_ids.push_back(id);
  }
  std::string title_blob = EncodeIds(title_ids);

  ENGRAM_ASSIGN_OR_RETURN(Stmt * find, S("SELECT id, content, content_hash FROM pages WHERE source_id = ? AND slug = ?"));
  find->Bind(1, source_id).Bind(2, page.slug);
  int64_t id = 0;
  if (find->Step()) {
    id = find->Int(0);
    std::string old_content = find->Text(1);
    std::string old_hash = find->Text(2);
    ENGRAM_RETURN_IF_ERROR(find->status());
    find->Reset();
    ENGRAM_ASSIGN_OR_RETURN(Stmt * snap, S("INSERT INTO page_versions(page_id, source_id, slug, content, content_hash, "
                                           "created_at) VALUES (?, ?, ?, ?, ?, ?)"));
    snap->Bind(1, id).Bind(2, source_id).Bind(3, page.slug).Bind(4, old_content).Bind(5, old_hash).Bind(6, now);
    ENGRAM_RETURN_IF_ERROR(snap->Run());
    ENGRAM_RETURN_IF_ERROR(RemoveDerivedRows(id));
    ENGRAM_ASSIGN_OR_RETURN(Stmt * upd, S("UPDATE pages SET path = ?, type = ?, title = ?, frontmatter = ?, "
                                          "compiled_truth = ?, timeline = ?, content = ?, content_hash = ?, "
                                          "visibility = ?, title_terms = ?, title_length = ?, updated_at = ? "
                                          "WHERE id = ?"));
    upd->Bind(1, page.path).Bind(2, page.type).Bind(3, page.title).Bind(4, page.frontmatter_json);
    upd->Bind(5, page.compiled_truth).Bind(6, page.timeline).Bind(7, w.content).Bind(8, w.content_hash);
    upd->Bind(9, visibility).BindBlob(10, title_blob).Bind(11, int64_t{w.title_terms.length}).Bind(12, now);
    upd->Bind(13, id);
    ENGRAM_RETURN_IF_ERROR(upd->Run());
  } else {
    ENGRAM_RETURN_IF_ERROR(find->status());
    ENGRAM_ASSIGN_OR_RETURN(Stmt * ins, S("INSERT INTO pages(source_id, slug, path, type, title, frontmatter, "
                                          "compiled_truth, timeline, content, content_hash, visibility, title_terms, "
                                          "title_length, created_at, updated_at) "
                                          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    ins->Bind(1, source_id).Bind(2, page.slug).Bind(3, page.path).Bind(4, page.type).Bind(5, page.title);
    ins->Bind(6, page.frontmatter_json).Bind(7, page.compiled_truth).Bind(8, page.timeline).Bind(9, w.content);
    ins->Bind(10, w.content_hash).Bind(11, visibility).BindBlob(12, title_blob);
    ins->Bind(13, int64_t{w.title_terms.length}).Bind(14, now).Bind(15, now);
    ENGRAM_RETURN_IF_ERROR(ins->Run());
    id = sqlite3_last_insert_rowid(db_.get());
  }
  *page_id = id;

  ENGRAM_ASSIGN_OR_RETURN(Stmt * tpost, S("INSERT INTO title_postings(term_id, page_id, tf, dl) VALUES (?, ?, ?, ?)"));
  for (size_t i = 0; i < title_ids.size(); ++i) {
    tpost->Bind(1, title_ids[i]).Bind(2, id).Bind(3, int64_t{w.title_terms.terms[i].second});
    tpost->Bind(4, int64_t{w.title_terms.length});
    ENGRAM_RETURN_IF_ERROR(tpost->Run());
  }

  int64_t chunk_tokens = 0;
  ENGRAM_ASSIGN_OR_RETURN(Stmt * cins, S("INSERT INTO chunks(page_id, ordinal, source, text, token_count, line_start, "
                                         "line_end, terms, term_length) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  ENGRAM_ASSIGN_OR_RETURN(Stmt * post, S("INSERT INTO postings(term_id, chunk_id, page_id, tf, dl) VALUES (?, ?, ?, ?, ?)"));
  for (const ChunkWrite& c : w.chunks) {
    std::vector<int64_t> ids;
    ids.reserve(c.terms.terms.size());
    for (const auto& [term, tf] : c.terms.terms) {
      ENGRAM_ASSIGN_OR_RETURN(int64_t tid, TermId(term));
      ids.push_back(tid);
    }
    cins->Bind(1, id).Bind(2, int64_t{c.ordinal}).Bind(3, c.source).Bind(4, c.text).Bind(5, int64_t{c.token_count});
    cins->Bind(6, int64_t{c.line_start}).Bind(7, int64_t{c.line_end}).BindBlob(8, EncodeIds(ids));
    cins->Bind(9, int64_t{c.terms.length});
    ENGRAM_RETURN_IF_ERROR(cins->Run());
    int64_t chunk_id = sqlite3_last_insert_rowid(db_.get());
    for (size_t i = 0; i < ids.size(); ++i) {
      post->Bind(1, ids[i]).Bind(2, chunk_id).Bind(3, id).Bind(4, int64_t{c.terms.terms[i].second});
      post->Bind(5, int64_t{c.terms.length});
      ENGRAM_RETURN_IF_ERROR(post->Run());
    }
    chunk_tokens += c.terms.length;
  }

  ENGRAM_ASSIGN_OR_RETURN(Stmt * lins, S("INSERT INTO links(from_page, to_slug, type, label, context) VALUES (?, ?, ?, ?, ?)"));
  for (const PageLink& l : page.links) {
    lins->Bind(1, id).Bind(2, l.target).Bind(3, l.type).Bind(4, l.label).Bind(5, l.context);
    ENGRAM_RETURN_IF_ERROR(lins->Run());
  }
  ENGRAM_ASSIGN_OR_RETURN(Stmt * tins, S("INSERT OR IGNORE INTO tags(page_id, tag) VALUES (?, ?)"));
  for (const std::string& tag : page.tags) {
    tins->Bind(1, id).Bind(2, tag);
    ENGRAM_RETURN_IF_ERROR(tins->Run());
  }
  ENGRAM_ASSIGN_OR_RETURN(Stmt * ains, S("INSERT OR IGNORE INTO aliases(page_id, alias) VALUES (?, ?)"));
  for (const std::string& alias : page.aliases) {
    ains->Bind(1, id).Bind(2, alias);
    ENGRAM_RETURN_IF_ERROR(ains->Run());
  }
  ENGRAM_ASSIGN_OR_RETURN(Stmt * tl, S("INSERT OR IGNORE INTO timeline_entries(page_id, date, summary, summary_hash, "
                                       "source, line) VALUES (?, ?, ?, ?, ?, ?)"));
  for (const TimelineEntry& e : page.timeline_entries) {
    tl->Bind(1, id).Bind(2, e.date).Bind(3, e.summary).Bind(4, common::Sha256Hex(e.summary));
    tl->Bind(5, e.source).Bind(6, int64_t{e.line});
    ENGRAM_RETURN_IF_ERROR(tl->Run());
  }
  return AdjustStats(static_cast<int64_t>(w.chunks.size()), chunk_tokens, w.title_terms.length > 0 ? 1 : 0,
                     w.title_terms.length);
}

Result<int64_t> SqliteEngine::PutPage(const PageWrite& write) {
  if (write.page.slug.empty()) return Status::InvalidArgument("page has an empty slug");
  int64_t id = 0;
  ENGRAM_RETURN_IF_ERROR(Transaction([&] { return PutPageRows(write, &id); })
                             .WithContext("writing page '" + write.page.slug + "'"));
  return id;
}

Status SqliteEngine::DeletePage(std::string_view source, std::string_view slug) {
  return Transaction([&]() -> Status {
           ENGRAM_ASSIGN_OR_RETURN(int64_t source_id, SourceId(source, false));
           ENGRAM_ASSIGN_OR_RETURN(Stmt * find, S("SELECT id FROM pages WHERE source_id = ? AND slug = ?"));
           find->Bind(1, source_id).Bind(2, slug);
           if (!find->Step()) {
             ENGRAM_RETURN_IF_ERROR(find->status());
             return Status::NotFound("no page '" + std::string(slug) + "'");
           }
           int64_t id = find->Int(0);
           find->Reset();
           ENGRAM_RETURN_IF_ERROR(RemoveDerivedRows(id));
           ENGRAM_ASSIGN_OR_RETURN(Stmt * del, S("DELETE FROM pages WHERE id = ?"));
           del->Bind(1, id);
           return del->Run();
         })
      .WithContext("deleting page '" + std::string(slug) + "'");
}

}  // namespace engram::store::sqlite
