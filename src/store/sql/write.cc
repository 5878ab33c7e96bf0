// Page writes: every derived row of a page commits with the page row.
#include <map>
#include <algorithm>
#include <iterator>

#include "common/files.h"
#include "common/hash.h"
#include "store/sql/sql_engine.h"
#include "text/page_links.h"

namespace engram::store::sql {

template <typename Fn>
Status SqlEngine::Transaction(Fn&& fn) {
  FinishReads();  // a write from a stale read snapshot would fail with "database is locked"
  // Cached statements: these run once per page, and parsing them each time showed up in profiles.
  if (in_transaction_) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * savepoint, S("SAVEPOINT page_write"));
    ENGRAM_RETURN_IF_ERROR(savepoint->Send());
  } else {
    ENGRAM_RETURN_IF_ERROR(conn_->Begin());
  }
  size_t pending_before = pending_terms_.size();
  const StatsDelta stats_before = pending_stats_;
  const bool advanced_before = generation_advanced_;
  undo_.clear();
  Status st = fn();
  if (st.ok()) {
    // Outside a Transaction the page's posting changes are written now; inside
    // one they wait for CommitTransaction.
    if (!in_transaction_) st = FlushPostings();
    if (st.ok()) {
      if (in_transaction_) {
        auto release = S("RELEASE page_write");
        st = release.ok() ? (*release)->Run() : release.status();
      } else {
        st = Commit();
      }
    }
    if (st.ok()) {
      undo_.clear();
      if (!in_transaction_) {
        pending_terms_.clear();
        first_new_term_id_ = 0;
        generation_advanced_ = false;
      }
      return st;
    }
  }
  if (in_transaction_) (void)Exec("ROLLBACK TO page_write; RELEASE page_write");
  else conn_->Rollback();
  if (in_transaction_) {
    UndoPageDeltas();
    batch_.ForgetPageRows();  // what it knew may include the rolled-back page's rows
    pending_stats_ = stats_before;
    generation_advanced_ = advanced_before;  // the savepoint's rollback took back its advance
  } else {
    ClearDeltas();
  }
  // Term ids inserted by the rolled-back writes no longer exist.
  for (size_t i = pending_before; i < pending_terms_.size(); ++i) term_ids_.Erase(pending_terms_[i]);
  pending_terms_.resize(pending_before);
  if (pending_terms_.empty()) first_new_term_id_ = 0;
  return st;
}

void SqlEngine::AddPosting(Deltas* deltas, int64_t term, const Posting& p) {
  TermDelta& d = (*deltas)[term];
  if (in_transaction_) undo_.push_back({deltas, term, static_cast<uint32_t>(d.adds.size()), static_cast<uint32_t>(d.removes.size())});
  d.adds.push_back(p);
}

void SqlEngine::RemovePosting(Deltas* deltas, int64_t term, int64_t doc) {
  TermDelta& d = (*deltas)[term];
  if (in_transaction_) undo_.push_back({deltas, term, static_cast<uint32_t>(d.adds.size()), static_cast<uint32_t>(d.removes.size())});
  d.removes.push_back({doc, static_cast<uint32_t>(d.adds.size())});
}

void SqlEngine::UndoPageDeltas() {
  // Newest first, so each list ends at the size it had before the page.
  for (auto it = undo_.rbegin(); it != undo_.rend(); ++it) {
    TermDelta& d = (*it->deltas)[it->term];
    d.adds.resize(it->adds);
    d.removes.resize(it->removes);
  }
  undo_.clear();
}

void SqlEngine::ClearDeltas() {
  pending_chunks_.clear();
  pending_titles_.clear();
  undo_.clear();
  pending_stats_ = StatsDelta();
  generation_advanced_ = false;
  batch_ = BatchState();
}

Status SqlEngine::ReadPostings(int64_t term_id, bool titles, std::vector<Posting>* out) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(titles ? "SELECT data FROM title_postings WHERE term_id = ?"
                                             : "SELECT data FROM postings WHERE term_id = ?"));
  q->Bind(1, term_id);
  out->clear();
  Status st;
  if (q->Step()) st = DecodePostings(q->Blob(0), out);
  ENGRAM_RETURN_IF_ERROR(q->status());
  q->Reset();
  return st;
}

Status SqlEngine::ReadPostingBlobCopy(int64_t term_id, bool titles, std::string* out) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(titles ? "SELECT data FROM title_postings WHERE term_id = ?"
                                             : "SELECT data FROM postings WHERE term_id = ?"));
  q->Bind(1, term_id);
  out->clear();
  if (q->Step()) out->assign(q->Blob(0));
  ENGRAM_RETURN_IF_ERROR(q->status());
  q->Reset();
  return Status::Ok();
}

// Merges each changed term's list: existing postings minus removed docs, plus
// new ones. New chunk ids are larger than every stored one (AUTOINCREMENT), so
// the merge is usually an append; it sorts when it is not.
Status SqlEngine::FlushDeltas(Deltas* deltas, bool titles) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * put, S(titles ? kPutTitlePostingsSql : kPutPostingsSql));
  ENGRAM_ASSIGN_OR_RETURN(Stmt * del, S(titles ? "DELETE FROM title_postings WHERE term_id = ?"
                                               : "DELETE FROM postings WHERE term_id = ?"));
  std::vector<int64_t> order = deltas->touched;
  std::sort(order.begin(), order.end());  // the same writes in the same order on every run
  order.erase(std::unique(order.begin(), order.end()), order.end());
  std::vector<Posting> list;
  // A term first inserted in this transaction has no stored list to merge.
  auto is_new = [&](int64_t term_id) { return first_new_term_id_ > 0 && term_id >= first_new_term_id_; };
  // PostgreSQL reads the stored lists a window of terms at a time, in one statement each.
  constexpr size_t kWindow = 512;
  std::unordered_map<int64_t, std::string> stored;
  for (size_t at = 0; at < order.size(); ++at) {
    const int64_t term_id = order[at];
    if (pg_ && at % kWindow == 0) {
      std::vector<int64_t> ids;
      for (size_t k = at; k < std::min(order.size(), at + kWindow); ++k) {
        if (!is_new(order[k])) ids.push_back(order[k]);
      }
      stored.clear();
      if (!ids.empty()) {
        ENGRAM_ASSIGN_OR_RETURN(Stmt * read, S(titles ? kReadTitlePostingsByIdsSql : kReadPostingsByIdsSql));
        read->Bind(1, IntArray(ids));
        while (read->Step()) stored.emplace(read->Int(0), std::string(read->Blob(1)));
        ENGRAM_RETURN_IF_ERROR(read->status());
      }
    }
    TermDelta& delta = (*deltas)[term_id];
    if (delta.adds.empty() && delta.removes.empty()) continue;
    if (is_new(term_id)) {
      list.clear();
    } else if (pg_) {
      list.clear();
      auto it = stored.find(term_id);
      if (it != stored.end()) {
        ENGRAM_RETURN_IF_ERROR(DecodePostings(it->second, &list).WithContext("term " + std::to_string(term_id)));
      }
    } else {
      ENGRAM_RETURN_IF_ERROR(ReadPostings(term_id, titles, &list).WithContext("term " + std::to_string(term_id)));
    }
    if (!delta.removes.empty()) {
      // Per removed doc, how many of the adds came before its last removal:
      // those adds are gone, later ones (the same doc written again) stay.
      std::sort(delta.removes.begin(), delta.removes.end(), [](const Removal& a, const Removal& b) {
        return a.doc != b.doc ? a.doc < b.doc : a.adds_before < b.adds_before;
      });
      auto last_removal = [&](int64_t doc) -> const Removal* {
        auto it = std::upper_bound(delta.removes.begin(), delta.removes.end(), doc,
                                   [](int64_t d, const Removal& r) { return d < r.doc; });
        return it == delta.removes.begin() || std::prev(it)->doc != doc ? nullptr : &*std::prev(it);
      };
      list.erase(std::remove_if(list.begin(), list.end(), [&](const Posting& p) { return last_removal(p.doc); }),
                 list.end());
      size_t kept = 0;
      for (size_t i = 0; i < delta.adds.size(); ++i) {
        const Removal* r = last_removal(delta.adds[i].doc);
        if (r == nullptr || i >= r->adds_before) delta.adds[kept++] = delta.adds[i];
      }
      delta.adds.resize(kept);
    }
    bool append_in_order = list.empty() || delta.adds.empty() || delta.adds.front().doc > list.back().doc;
    list.insert(list.end(), delta.adds.begin(), delta.adds.end());
    if (!append_in_order || !std::is_sorted(list.begin(), list.end(),
                                            [](const Posting& a, const Posting& b) { return a.doc < b.doc; })) {
      std::sort(list.begin(), list.end(), [](const Posting& a, const Posting& b) { return a.doc < b.doc; });
    }
    if (list.empty()) {
      del->Bind(1, term_id);
      ENGRAM_RETURN_IF_ERROR(del->Send());
    } else {
      put->Bind(1, term_id).BindBlob(2, EncodePostings(list));
      ENGRAM_RETURN_IF_ERROR(put->Send());
    }
  }
  deltas->clear();
  return Status::Ok();
}

Status SqlEngine::FlushPostings() {
  ENGRAM_RETURN_IF_ERROR(FlushDeltas(&pending_chunks_, false));
  ENGRAM_RETURN_IF_ERROR(FlushDeltas(&pending_titles_, true));
  const StatsDelta d = pending_stats_;
  if (d.chunks == 0 && d.chunk_tokens == 0 && d.titles == 0 && d.title_tokens == 0) return Status::Ok();
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("UPDATE corpus_stats SET chunks = chunks + ?, chunk_tokens = chunk_tokens + ?, "
                                      "titles = titles + ?, title_tokens = title_tokens + ? WHERE id = 1"));
  q->Bind(1, d.chunks).Bind(2, d.chunk_tokens).Bind(3, d.titles).Bind(4, d.title_tokens);
  ENGRAM_RETURN_IF_ERROR(q->Send());
  pending_stats_ = StatsDelta();
  return Status::Ok();
}

Result<int64_t> SqlEngine::LookupTermId(const std::string& term) {
  if (const int64_t* id = term_ids_.Find(term)) return *id;
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT id FROM terms WHERE term = ?"));
  q->Bind(1, term);
  if (q->Step()) {
    int64_t id = q->Int(0);
    term_ids_.Put(term, id);
    return id;
  }
  ENGRAM_RETURN_IF_ERROR(q->status());
  return Status::NotFound(term);
}

Result<int64_t> SqlEngine::TermId(const std::string& term) {
  auto found = LookupTermId(term);
  if (found.ok() || found.status().code() != StatusCode::kNotFound) return found;
  ENGRAM_ASSIGN_OR_RETURN(Stmt * ins, S("INSERT INTO terms(term) VALUES (?) RETURNING id"));
  ins->Bind(1, term);
  ENGRAM_ASSIGN_OR_RETURN(int64_t id, InsertedId(ins));
  term_ids_.Put(term, id);
  if (pending_terms_.empty() || first_new_term_id_ == 0) first_new_term_id_ = id;
  pending_terms_.push_back(term);
  return id;
}

Status SqlEngine::ResolveTerms(const PageWrite& w) {
  ENGRAM_ASSIGN_OR_RETURN(const bool all_known, KnowAllTerms());  // first: it may read every term
  std::vector<std::string> unknown;
  auto want = [&](const std::string& term) {
    if (term_ids_.Find(term) == nullptr) unknown.push_back(term);
  };
  for (const auto& [term, tf] : w.title_terms.terms) want(term);
  for (const ChunkWrite& c : w.chunks) {
    for (const auto& [term, tf] : c.terms.terms) want(term);
  }
  if (unknown.empty()) return Status::Ok();
  std::sort(unknown.begin(), unknown.end());
  unknown.erase(std::unique(unknown.begin(), unknown.end()), unknown.end());
  if (all_known) return InsertNewTerms(unknown);
  // The scan of terms in the last SELECT sees the table as it was before the INSERT: each term comes once.
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("WITH w AS (SELECT unnest(?::text[]) AS term), "
                                      "ins AS (INSERT INTO terms(term) SELECT term FROM w ORDER BY term "
                                      "ON CONFLICT (term) DO NOTHING RETURNING term, id) "
                                      "SELECT term, id, 1 FROM ins UNION ALL "
                                      "SELECT t.term, t.id, 0 FROM terms t JOIN w ON t.term = w.term"));
  q->Bind(1, TextArray(unknown));
  int64_t first_new = 0;
  std::vector<std::string> inserted;
  while (q->Step()) {
    std::string term = q->Text(0);
    const int64_t id = q->Int(1);
    term_ids_.Put(term, id);
    if (q->Int(2) == 1) {
      if (first_new == 0 || id < first_new) first_new = id;
      inserted.push_back(std::move(term));
    }
  }
  ENGRAM_RETURN_IF_ERROR(q->status());
  if (!inserted.empty() && (pending_terms_.empty() || first_new_term_id_ == 0)) first_new_term_id_ = first_new;
  for (std::string& t : inserted) pending_terms_.push_back(std::move(t));
  return Status::Ok();
}

Status SqlEngine::AdjustStats(int64_t chunks, int64_t chunk_tokens, int64_t titles, int64_t title_tokens) {
  pending_stats_.chunks += chunks;
  pending_stats_.chunk_tokens += chunk_tokens;
  pending_stats_.titles += titles;
  pending_stats_.title_tokens += title_tokens;
  return Status::Ok();
}

Result<std::vector<int64_t>> SqlEngine::AllTermIds(bool titles) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(titles ? "SELECT term_id FROM title_postings" : "SELECT term_id FROM postings"));
  std::vector<int64_t> ids;
  while (q->Step()) ids.push_back(q->Int(0));
  ENGRAM_RETURN_IF_ERROR(q->status());
  return ids;
}

Status SqlEngine::RemoveDerivedRows(int64_t page_id) {
  int64_t chunks = 0, chunk_tokens = 0, titles = 0, title_tokens = 0;
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT id, terms, term_length FROM chunks WHERE page_id = ?"));
    q->Bind(1, page_id);
    std::vector<std::pair<int64_t, std::vector<int64_t>>> doomed;
    while (q->Step()) {
      std::vector<int64_t> ids;
      // A damaged list cannot say which lists hold the chunk: every one is asked.
      if (!store::DecodeIds(q->Blob(1), &ids)) {
        ENGRAM_ASSIGN_OR_RETURN(ids, AllTermIds(false));
      }
      doomed.emplace_back(q->Int(0), std::move(ids));
      ++chunks;
      chunk_tokens += q->Int(2);
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
    for (const auto& [chunk_id, term_ids] : doomed) {
      for (int64_t t : term_ids) RemovePosting(&pending_chunks_, t, chunk_id);
    }
  }
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT title_terms, title_length FROM pages WHERE id = ?"));
    q->Bind(1, page_id);
    std::vector<int64_t> term_ids;
    if (q->Step()) {
      if (!store::DecodeIds(q->Blob(0), &term_ids)) {
        ENGRAM_ASSIGN_OR_RETURN(term_ids, AllTermIds(true));
      }
      title_tokens = q->Int(1);
      titles = title_tokens > 0 ? 1 : 0;
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
    for (int64_t t : term_ids) RemovePosting(&pending_titles_, t, page_id);
  }
  static const char* const kDeletes[] = {
      "DELETE FROM chunks WHERE page_id = ?",  "DELETE FROM links WHERE from_page = ?",
      "DELETE FROM tags WHERE page_id = ?",    "DELETE FROM aliases WHERE page_id = ?",
      "DELETE FROM timeline_entries WHERE page_id = ?", "DELETE FROM facts WHERE page_id = ?",
  };
  for (const char* sql : kDeletes) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * d, S(sql));
    d->Bind(1, page_id);
    ENGRAM_RETURN_IF_ERROR(d->Send());
  }
  return AdjustStats(-chunks, -chunk_tokens, -titles, -title_tokens);
}

Status SqlEngine::PutPageRows(const PageWrite& w, int64_t* page_id) {
  if (pg_) ENGRAM_RETURN_IF_ERROR(ResolveTerms(w));
  if (in_transaction_) ++batch_.pages;
  ENGRAM_ASSIGN_OR_RETURN(int64_t source_id, SourceId(w.source, true));
  // Title postings are computed first so the page row can carry their term ids.
  std::vector<int64_t> title_ids;
  title_ids.reserve(w.title_terms.terms.size());
  for (const auto& [term, tf] : w.title_terms.terms) {
    ENGRAM_ASSIGN_OR_RETURN(int64_t id, TermId(term));
    title_ids.push_back(id);
  }
  KeptEmbeddings kept_embeddings;
  ENGRAM_ASSIGN_OR_RETURN(int64_t id, WritePageRow(w, source_id, store::EncodeIds(title_ids), &kept_embeddings));
  *page_id = id;
  for (size_t i = 0; i < title_ids.size(); ++i) {
    AddPosting(&pending_titles_, title_ids[i], {id, id, w.title_terms.terms[i].second, w.title_terms.length});
  }
  ENGRAM_ASSIGN_OR_RETURN(int64_t chunk_tokens, WriteChunkRows(w, id, kept_embeddings));
  ENGRAM_RETURN_IF_ERROR(WritePageFacts(w.page, id));
  return AdjustStats(static_cast<int64_t>(w.chunks.size()), chunk_tokens, w.title_terms.length > 0 ? 1 : 0,
                     w.title_terms.length);
}

Result<int64_t> SqlEngine::WritePageRow(const PageWrite& w, int64_t source_id, const std::string& title_blob,
                                           KeptEmbeddings* kept_embeddings) {
  const Page& page = w.page;
  std::string now = common::NowIso8601();
  std::string visibility = page.is_private ? "private" : "public";
  // What links are resolved against (text/page_links.h).
  const std::string path_key = text::PathKey(page.path);
  const std::string name_key = text::LinkName(path_key);
  ENGRAM_ASSIGN_OR_RETURN(Stmt * find, S("SELECT id, content, content_hash, created_at, updated_at FROM pages "
                                         "WHERE source_id = ? AND slug = ?"));
  find->Bind(1, source_id).Bind(2, page.slug);
  int64_t id = 0;
  // The note's dates (PageWrite::date, StoredPage::created_at).
  std::string date = w.date;
  std::string created = page.created;
  ENGRAM_ASSIGN_OR_RETURN(const bool absent, KnownAbsent(source_id, page.slug));
  if (!absent && find->Step()) {
    id = find->Int(0);
    std::string old_content = find->Text(1);
    std::string old_hash = find->Text(2);
    std::string old_created = find->Text(3);
    std::string old_date = find->Text(4);
    ENGRAM_RETURN_IF_ERROR(find->status());
    find->Reset();
    const bool same_content = old_hash == w.content_hash;
    if (date.empty()) date = same_content ? old_date : now;
    if (created.empty()) created = !old_created.empty() && old_created < date ? old_created : date;
    // A version identical to the page is none (a re-index, a re-dating).
    if (!same_content) {
      ENGRAM_ASSIGN_OR_RETURN(Stmt * snap, S("INSERT INTO page_versions(page_id, source_id, slug, content, "
                                             "content_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)"));
      snap->Bind(1, id).Bind(2, source_id).Bind(3, page.slug).Bind(4, old_content).Bind(5, old_hash).Bind(6, now);
      ENGRAM_RETURN_IF_ERROR(snap->Send());
    }
    // Embeddings of chunks whose text does not change are kept.
    ENGRAM_ASSIGN_OR_RETURN(Stmt * old, S("SELECT embedded_hash, embedding, embedding_model FROM chunks "
                                          "WHERE page_id = ? AND embedding IS NOT NULL AND embedded_hash IS NOT NULL"));
    old->Bind(1, id);
    while (old->Step()) {
      kept_embeddings->emplace(old->Text(0), std::make_pair(std::string(old->Blob(1)), old->Text(2)));
    }
    ENGRAM_RETURN_IF_ERROR(old->status());
    old->Reset();
    ENGRAM_RETURN_IF_ERROR(RemoveDerivedRows(id));
    ENGRAM_ASSIGN_OR_RETURN(Stmt * upd, S("UPDATE pages SET path = ?, type = ?, title = ?, frontmatter = ?, "
                                          "compiled_truth = ?, timeline = ?, content = ?, content_hash = ?, "
                                          "visibility = ?, title_terms = ?, title_length = ?, updated_at = ?, "
                                          "path_key = ?, name_key = ?, created_at = ?, indexed_at = ? WHERE id = ?"));
    upd->Bind(1, page.path).Bind(2, page.type).Bind(3, page.title).Bind(4, page.frontmatter_json);
    upd->Bind(5, page.compiled_truth).Bind(6, page.timeline).Bind(7, w.content).Bind(8, w.content_hash);
    upd->Bind(9, visibility).BindBlob(10, title_blob).Bind(11, int64_t{w.title_terms.length}).Bind(12, date);
    upd->Bind(13, path_key).Bind(14, name_key).Bind(15, created).Bind(16, now).Bind(17, id);
    ENGRAM_RETURN_IF_ERROR(upd->Send());
  } else {
    ENGRAM_RETURN_IF_ERROR(find->status());
    find->Reset();
    if (date.empty()) date = now;
    if (created.empty()) created = date;
    if (pg_ && in_transaction_) {
      return InsertPageWithReservedId(w, source_id, title_blob, {created, date, now, path_key, name_key});
    }
    ENGRAM_ASSIGN_OR_RETURN(Stmt * ins, S("INSERT INTO pages(source_id, slug, path, type, title, frontmatter, "
                                          "compiled_truth, timeline, content, content_hash, visibility, title_terms, "
                                          "title_length, created_at, updated_at, path_key, name_key, indexed_at) "
                                          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id"));
    ins->Bind(1, source_id).Bind(2, page.slug).Bind(3, page.path).Bind(4, page.type).Bind(5, page.title);
    ins->Bind(6, page.frontmatter_json).Bind(7, page.compiled_truth).Bind(8, page.timeline).Bind(9, w.content);
    ins->Bind(10, w.content_hash).Bind(11, visibility).BindBlob(12, title_blob);
    ins->Bind(13, int64_t{w.title_terms.length}).Bind(14, created).Bind(15, date).Bind(16, path_key);
    ins->Bind(17, name_key).Bind(18, now);
    ENGRAM_ASSIGN_OR_RETURN(id, InsertedId(ins));
  }
  return id;
}

Result<int64_t> SqlEngine::WriteChunkRows(const PageWrite& w, int64_t id, const KeptEmbeddings& kept_embeddings) {
  const Page& page = w.page;
  int64_t chunk_tokens = 0;
  std::vector<std::vector<int64_t>> term_ids(w.chunks.size());
  for (size_t k = 0; k < w.chunks.size(); ++k) {
    term_ids[k].reserve(w.chunks[k].terms.terms.size());
    for (const auto& [term, tf] : w.chunks[k].terms.terms) {
      ENGRAM_ASSIGN_OR_RETURN(int64_t tid, TermId(term));
      term_ids[k].push_back(tid);
    }
  }
  std::vector<int64_t> chunk_ids;
  if (pg_) {
    ENGRAM_ASSIGN_OR_RETURN(chunk_ids, InsertChunksAsArrays(w, id, term_ids));
  } else {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * cins, S("INSERT INTO chunks(page_id, ordinal, source, text, token_count, "
                                           "line_start, line_end, terms, term_length) "
                                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id"));
    for (size_t k = 0; k < w.chunks.size(); ++k) {
      const ChunkWrite& c = w.chunks[k];
      cins->Bind(1, id).Bind(2, int64_t{c.ordinal}).Bind(3, std::string_view(ChunkSourceName(c.source)));
      cins->Bind(4, c.text).Bind(5, int64_t{c.token_count}).Bind(6, int64_t{c.line_start});
      cins->Bind(7, int64_t{c.line_end}).BindBlob(8, store::EncodeIds(term_ids[k])).Bind(9, int64_t{c.terms.length});
      ENGRAM_ASSIGN_OR_RETURN(int64_t chunk_id, InsertedId(cins));
      chunk_ids.push_back(chunk_id);
    }
  }
  for (size_t k = 0; k < w.chunks.size(); ++k) {
    const ChunkWrite& c = w.chunks[k];
    const std::vector<int64_t>& ids = term_ids[k];
    const int64_t chunk_id = chunk_ids[k];
    if (!kept_embeddings.empty()) {
      const std::string hash = EmbeddingTextHash(ChunkEmbeddingText(page.title, c.text));
      auto kept = kept_embeddings.find(hash);
      if (kept != kept_embeddings.end()) {
        ENGRAM_ASSIGN_OR_RETURN(Stmt * keep, S("UPDATE chunks SET embedding = ?, embedding_model = ?, "
                                               "embedded_hash = ? WHERE id = ?"));
        keep->BindBlob(1, kept->second.first).Bind(2, kept->second.second).Bind(3, hash).Bind(4, chunk_id);
        ENGRAM_RETURN_IF_ERROR(keep->Send());
      }
    }
    for (size_t i = 0; i < ids.size(); ++i) {
      AddPosting(&pending_chunks_, ids[i], {chunk_id, id, c.terms.terms[i].second, c.terms.length});
    }
    chunk_tokens += c.terms.length;
  }
  return chunk_tokens;
}

Status SqlEngine::WritePageFacts(const Page& page, int64_t id) {
  if (pg_) return WritePageFactsAsArrays(page, id);
  ENGRAM_ASSIGN_OR_RETURN(Stmt * lins, S("INSERT INTO links(from_page, to_slug, to_name, type, label, context) "
                                         "VALUES (?, ?, ?, ?, ?, ?)"));
  for (const PageLink& l : page.links) {
    // Attachments are files, never found by a page's name.
    const std::string to_name = l.type == text::kAttachmentLinkType ? "" : text::LinkName(l.target);
    lins->Bind(1, id).Bind(2, l.target).Bind(3, to_name).Bind(4, l.type).Bind(5, l.label).Bind(6, l.context);
    ENGRAM_RETURN_IF_ERROR(lins->Send());
  }
  ENGRAM_ASSIGN_OR_RETURN(Stmt * tins, S("INSERT INTO tags(page_id, tag) VALUES (?, ?) ON CONFLICT DO NOTHING"));
  for (const std::string& tag : page.tags) {
    tins->Bind(1, id).Bind(2, tag);
    ENGRAM_RETURN_IF_ERROR(tins->Send());
  }
  ENGRAM_ASSIGN_OR_RETURN(Stmt * ains, S("INSERT INTO aliases(page_id, alias) VALUES (?, ?) ON CONFLICT DO NOTHING"));
  for (const std::string& alias : page.aliases) {
    ains->Bind(1, id).Bind(2, alias);
    ENGRAM_RETURN_IF_ERROR(ains->Send());
  }
  ENGRAM_ASSIGN_OR_RETURN(Stmt * tl, S("INSERT INTO timeline_entries(page_id, date, summary, summary_hash, "
                                       "source, line) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"));
  for (const TimelineEntry& e : page.timeline_entries) {
    tl->Bind(1, id).Bind(2, e.date).Bind(3, e.summary).Bind(4, common::Sha256Hex(e.summary));
    tl->Bind(5, e.source).Bind(6, int64_t{e.line});
    ENGRAM_RETURN_IF_ERROR(tl->Send());
  }
  ENGRAM_ASSIGN_OR_RETURN(Stmt * fins, S("INSERT INTO facts(page_id, subject, subject_name, predicate, value, "
                                         "value_is_link, value_name, valid_from, valid_until, line, origin) "
                                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  for (const PageFact& f : page.facts) {
    fins->Bind(1, id).Bind(2, f.subject).Bind(3, f.subject.empty() ? "" : text::LinkName(f.subject));
    fins->Bind(4, f.predicate).Bind(5, f.value).Bind(6, int64_t{f.value_is_link ? 1 : 0});
    fins->Bind(7, f.value_is_link ? text::LinkName(f.value) : "").Bind(8, f.valid_from).Bind(9, f.valid_until);
    fins->Bind(10, int64_t{f.line}).Bind(11, f.origin);
    ENGRAM_RETURN_IF_ERROR(fins->Send());
  }
  return Status::Ok();
}

Result<PageId> SqlEngine::PutPage(const PageWrite& write) {
  if (write.page.slug.empty()) return Status::InvalidArgument("page has an empty slug");
  int64_t id = 0;
  ENGRAM_RETURN_IF_ERROR(Transaction([&]() -> Status {
                           ENGRAM_RETURN_IF_ERROR(PutPageRows(write, &id));
                           return WriteChange(ChangeStream::kPages, id);
                         }).WithContext("writing page '" + write.page.slug + "'"));
  return PageId(id);
}

Status SqlEngine::RenamePage(std::string_view source, std::string_view old_slug, std::string_view new_slug,
                                std::string_view new_path) {
  batch_.ForgetPageRows();  // the page names a batch read are no longer the pages' names
  return Transaction([&]() -> Status {
           ENGRAM_ASSIGN_OR_RETURN(int64_t source_id, SourceId(source, true));
           if (old_slug != new_slug) {
             ENGRAM_ASSIGN_OR_RETURN(Stmt * taken, S("SELECT 1 FROM pages WHERE source_id = ? AND slug = ?"));
             taken->Bind(1, source_id).Bind(2, new_slug);
             bool exists = taken->Step();
             ENGRAM_RETURN_IF_ERROR(taken->status());
             taken->Reset();
             if (exists) return Status::AlreadyExists("slug '" + std::string(new_slug) + "' is taken");
           }
           // A new name is no new date: the note's date stays, the write is recorded.
           ENGRAM_ASSIGN_OR_RETURN(Stmt * upd, S("UPDATE pages SET slug = ?, path = ?, indexed_at = ?, path_key = ?, "
                                                 "name_key = ? WHERE source_id = ? AND slug = ?"));
           const std::string path_key = text::PathKey(new_path);
           upd->Bind(1, new_slug).Bind(2, new_path).Bind(3, common::NowIso8601()).Bind(4, path_key);
           upd->Bind(5, text::LinkName(path_key)).Bind(6, source_id).Bind(7, old_slug);
           ENGRAM_RETURN_IF_ERROR(upd->Run());
           if (upd->Changes() == 0) return Status::NotFound("no page '" + std::string(old_slug) + "'");
           // Links stay as the linking files write them: rewriting them to the
           // new slug made the rows differ from a rebuild of the same files.
           ENGRAM_ASSIGN_OR_RETURN(Stmt * id, S("SELECT id FROM pages WHERE source_id = ? AND slug = ?"));
           id->Bind(1, source_id).Bind(2, new_slug);
           const int64_t page_id = id->Step() ? id->Int(0) : 0;
           ENGRAM_RETURN_IF_ERROR(id->status());
           id->Reset();
           return WriteChange(ChangeStream::kPages, page_id);
         })
      .WithContext("renaming page '" + std::string(old_slug) + "'");
}

Status SqlEngine::DeletePage(std::string_view source, std::string_view slug) {
  batch_.ForgetPageRows();
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
           ENGRAM_RETURN_IF_ERROR(del->Run());
           return WriteChange(ChangeStream::kPages, id);
         })
      .WithContext("deleting page '" + std::string(slug) + "'");
}

}  // namespace engram::store::sql
