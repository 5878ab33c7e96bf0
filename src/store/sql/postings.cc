// The SQLite engine as a PostingStore (engram/posting_store.h): the lists
// are read as the write path stored them; scoring is the bm25 module's.
#include "store/sql/sql_engine.h"

namespace engram::store::sql {

Result<std::optional<int64_t>> SqlEngine::FindTerm(std::string_view term) {
  auto id = LookupTermId(std::string(term));
  if (id.ok()) return std::optional<int64_t>(*id);
  if (id.status().code() == StatusCode::kNotFound) return std::optional<int64_t>();
  return id.status();
}

Status SqlEngine::CheckPostingCache() {
  ENGRAM_ASSIGN_OR_RETURN(auto key, ChangeKey());
  if (key != posting_cache_.key) {
    posting_cache_.Clear();
    posting_cache_.key = key;
  }
  return Status::Ok();
}

std::shared_ptr<const std::string> SqlEngine::PostingCache::Find(const Key& k) {
  auto it = index.find(k);
  if (it == index.end()) return nullptr;
  lru.splice(lru.begin(), lru, it->second);
  return it->second->second;
}

void SqlEngine::PostingCache::Keep(const Key& k, std::shared_ptr<const std::string> list) {
  if (list->size() > kPostingCacheBytes / 4 || index.count(k) != 0) return;
  bytes += list->size();
  lru.emplace_front(k, std::move(list));
  index.emplace(k, lru.begin());
  while (bytes > kPostingCacheBytes) {
    bytes -= lru.back().second->size();
    index.erase(lru.back().first);
    lru.pop_back();
  }
}

Result<std::shared_ptr<const std::string>> SqlEngine::ReadPostingList(PostingField field, int64_t term_id) {
  ENGRAM_RETURN_IF_ERROR(CheckPostingCache());
  PostingCache& cache = posting_cache_;
  const PostingCache::Key k{term_id, field == PostingField::kTitles};
  if (auto kept = cache.Find(k)) return kept;
  auto blob = std::make_shared<std::string>();
  ENGRAM_RETURN_IF_ERROR(ReadPostingBlobCopy(term_id, k.second, blob.get()));
  std::shared_ptr<const std::string> list = std::move(blob);
  cache.Keep(k, list);
  return list;
}

Result<std::vector<std::shared_ptr<const std::string>>> SqlEngine::ReadPostingLists(
    PostingField field, const std::vector<int64_t>& term_ids) {
  if (!pg_) return PostingStore::ReadPostingLists(field, term_ids);  // in process: a read is no round trip
  ENGRAM_RETURN_IF_ERROR(CheckPostingCache());
  PostingCache& cache = posting_cache_;
  const bool titles = field == PostingField::kTitles;
  std::vector<std::shared_ptr<const std::string>> out(term_ids.size());
  std::vector<int64_t> missing;
  for (size_t i = 0; i < term_ids.size(); ++i) {
    out[i] = cache.Find({term_ids[i], titles});
    if (out[i] == nullptr) missing.push_back(term_ids[i]);
  }
  if (missing.empty()) return out;
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(titles ? kReadTitlePostingsByIdsSql : kReadPostingsByIdsSql));
  q->Bind(1, IntArray(missing));
  std::unordered_map<int64_t, std::shared_ptr<const std::string>> read;
  while (q->Step()) read.emplace(q->Int(0), std::make_shared<const std::string>(q->Blob(1)));
  ENGRAM_RETURN_IF_ERROR(q->status());
  static const auto kEmpty = std::make_shared<const std::string>();
  for (size_t i = 0; i < term_ids.size(); ++i) {
    if (out[i] != nullptr) continue;
    auto it = read.find(term_ids[i]);
    out[i] = it == read.end() ? kEmpty : it->second;
    cache.Keep({term_ids[i], titles}, out[i]);
  }
  return out;
}

Result<std::vector<std::optional<int64_t>>> SqlEngine::FindTerms(const std::vector<std::string>& terms) {
  if (!pg_) return PostingStore::FindTerms(terms);
  std::vector<std::optional<int64_t>> out(terms.size());
  std::vector<std::string> unknown;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (const int64_t* id = term_ids_.Find(terms[i])) {
      out[i] = *id;
    } else {
      unknown.push_back(terms[i]);
    }
  }
  if (unknown.empty()) return out;
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT term, id FROM terms WHERE term = ANY(?::text[])"));
  q->Bind(1, TextArray(unknown));
  while (q->Step()) term_ids_.Put(q->Text(0), q->Int(1));
  ENGRAM_RETURN_IF_ERROR(q->status());
  for (size_t i = 0; i < terms.size(); ++i) {
    if (out[i]) continue;
    if (const int64_t* id = term_ids_.Find(terms[i])) out[i] = *id;
  }
  return out;
}

Result<FieldStatistics> SqlEngine::Statistics(PostingField field) {
  const bool titles = field == PostingField::kTitles;
  // Kept with the posting lists, under their change key (outside a write, whose own changes it does not follow).
  const StatsDelta& d = pending_stats_;
  const bool keep = !in_transaction_ && d.chunks == 0 && d.chunk_tokens == 0 && d.titles == 0 && d.title_tokens == 0;
  if (keep) {
    ENGRAM_RETURN_IF_ERROR(CheckPostingCache());
    if (posting_cache_.stats) return titles ? posting_cache_.stats->second : posting_cache_.stats->first;
  }
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q,
                          S("SELECT chunks, chunk_tokens, titles, title_tokens FROM corpus_stats WHERE id = 1"));
  if (!q->Step()) {
    ENGRAM_RETURN_IF_ERROR(q->status());
    return Status::Corruption("corpus_stats row is missing");
  }
  // With this connection's writes not yet flushed (AdjustStats).
  const FieldStatistics chunks{q->Int(0) + pending_stats_.chunks, q->Int(1) + pending_stats_.chunk_tokens};
  const FieldStatistics title{q->Int(2) + pending_stats_.titles, q->Int(3) + pending_stats_.title_tokens};
  q->Reset();
  if (keep) posting_cache_.stats.emplace(chunks, title);
  return titles ? title : chunks;
}

Result<std::shared_ptr<const PrivateFieldStatistics>> SqlEngine::PrivateStatistics(PostingField field) {
  ENGRAM_RETURN_IF_ERROR(RefreshPrivateStats());
  return field == PostingField::kTitles ? private_stats_.titles : private_stats_.chunks;
}

// Recomputed only when the database changed since the last computation:
// PRAGMA data_version moves with other connections' commits, the change
// count with this one's.
Status SqlEngine::RefreshPrivateStats() {
  ENGRAM_ASSIGN_OR_RETURN(auto key, ChangeKey());
  if (key == private_stats_.key && private_stats_.chunks != nullptr) return Status::Ok();
  auto chunks = std::make_shared<PrivateFieldStatistics>();
  auto titles = std::make_shared<PrivateFieldStatistics>();
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(ENGRAM_FROM_PRIVATE_PAGES(
                                            "SELECT c.terms, c.term_length FROM pages p",
                                            "JOIN chunks c ON c.page_id = p.id WHERE p.visibility = 'private'")));
    while (q->Step()) {
      ++chunks->totals.docs;
      chunks->totals.tokens += q->Int(1);
      ENGRAM_ASSIGN_OR_RETURN(std::vector<int64_t> ids, TermIds(q->Blob(0), "a private chunk"));
      for (int64_t t : ids) ++chunks->df[t];
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
  }
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(ENGRAM_FROM_PRIVATE_PAGES("SELECT title_terms, title_length FROM pages",
                                                                 "WHERE visibility = 'private'")));
    while (q->Step()) {
      const int64_t length = q->Int(1);
      if (length <= 0) continue;
      ++titles->totals.docs;
      titles->totals.tokens += length;
      ENGRAM_ASSIGN_OR_RETURN(std::vector<int64_t> ids, TermIds(q->Blob(0), "a private page's title"));
      for (int64_t t : ids) ++titles->df[t];
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
  }
  private_stats_ = {std::move(chunks), std::move(titles), key};
  return Status::Ok();
}

Result<std::vector<PageId>> SqlEngine::PrivatePageIds() {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(ENGRAM_FROM_PRIVATE_PAGES("SELECT id FROM pages",
                                                               "WHERE visibility = 'private' ORDER BY id")));
  std::vector<PageId> out;
  while (q->Step()) out.emplace_back(q->Int(0));
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

Result<std::vector<std::vector<ChunkId>>> SqlEngine::PagesChunkIds(const std::vector<PageId>& page_ids) {
  auto& kept = posting_cache_.page_chunks;
  if (!pg_ || in_transaction_) return PostingStore::PagesChunkIds(page_ids);
  ENGRAM_RETURN_IF_ERROR(CheckPostingCache());  // kept with the lists, under their key
  std::vector<int64_t> missing;
  for (const PageId id : page_ids) {
    if (kept.find(id.value()) == kept.end()) missing.push_back(id.value());
  }
  if (!missing.empty()) {
    if (kept.size() + missing.size() > 200000) kept.clear();
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT page_id, id FROM chunks WHERE page_id = ANY(?::bigint[]) "
                                        "ORDER BY page_id, id"));
    q->Bind(1, IntArray(missing));
    for (const int64_t id : missing) kept[id];  // a page without chunks (or no page) has none
    while (q->Step()) kept[q->Int(0)].emplace_back(q->Int(1));
    ENGRAM_RETURN_IF_ERROR(q->status());
  }
  std::vector<std::vector<ChunkId>> out;
  out.reserve(page_ids.size());
  for (const PageId id : page_ids) out.push_back(kept.at(id.value()));
  return out;
}

Result<std::vector<ChunkId>> SqlEngine::PageChunkIds(PageId page_id) {
  // Kept with the posting lists read for this search (valid while their change key is): not inside a
  // write transaction, whose own writes the key does not follow.
  auto& kept = posting_cache_.page_chunks;
  if (!in_transaction_) {
    if (auto it = kept.find(page_id.value()); it != kept.end()) return it->second;
  }
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT id FROM chunks WHERE page_id = ? ORDER BY id"));
  q->Bind(1, page_id.value());
  std::vector<ChunkId> out;
  while (q->Step()) out.emplace_back(q->Int(0));
  ENGRAM_RETURN_IF_ERROR(q->status());
  if (!in_transaction_ && posting_cache_.key.first >= 0) {
    if (kept.size() >= 200000) kept.clear();
    kept.emplace(page_id.value(), out);
  }
  return out;
}

}  // namespace engram::store::sql
