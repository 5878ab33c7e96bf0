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

Result<std::shared_ptr<const std::string>> SqlEngine::ReadPostingList(PostingField field, int64_t term_id) {
  ENGRAM_ASSIGN_OR_RETURN(auto key, ChangeKey());
  PostingCache& cache = posting_cache_;
  if (key != cache.key) {
    cache.Clear();
    cache.key = key;
  }
  const PostingCache::Key k{term_id, field == PostingField::kTitles};
  if (auto it = cache.index.find(k); it != cache.index.end()) {
    cache.lru.splice(cache.lru.begin(), cache.lru, it->second);
    return it->second->second;
  }
  auto blob = std::make_shared<std::string>();
  ENGRAM_RETURN_IF_ERROR(ReadPostingBlobCopy(term_id, k.second, blob.get()));
  std::shared_ptr<const std::string> list = std::move(blob);
  if (list->size() <= kPostingCacheBytes / 4) {
    cache.lru.emplace_front(k, list);
    cache.index.emplace(k, cache.lru.begin());
    cache.bytes += list->size();
    while (cache.bytes > kPostingCacheBytes) {
      cache.bytes -= cache.lru.back().second->size();
      cache.index.erase(cache.lru.back().first);
      cache.lru.pop_back();
    }
  }
  return list;
}

Result<FieldStatistics> SqlEngine::Statistics(PostingField field) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q,
                          S("SELECT chunks, chunk_tokens, titles, title_tokens FROM corpus_stats WHERE id = 1"));
  if (!q->Step()) {
    ENGRAM_RETURN_IF_ERROR(q->status());
    return Status::Corruption("corpus_stats row is missing");
  }
  const bool titles = field == PostingField::kTitles;
  FieldStatistics stats{titles ? q->Int(2) : q->Int(0), titles ? q->Int(3) : q->Int(1)};
  q->Reset();
  return stats;
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
