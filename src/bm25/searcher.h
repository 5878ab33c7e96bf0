// BM25 ranking over a store's posting lists (engram/posting_store.h), with
// safe top-k pruning. The one place engram scores keywords: an engine only
// stores the lists, so every engine ranks identically.
//
// Scoring: Lucene's idf, log(1 + (N - df + 0.5) / (df + 0.5)), and
// w · tf · (k1 + 1) / (tf + k1 · (1 - b + b · dl / avgdl)) per term, the
// query's weight w of a term being the sum over its repeats; contributions
// are rounded to float and added in one order (strongest bound first, then by
// term), so a score is the same number however the lists were walked. A
// caller that may not see private pages is scored with statistics from which
// private docs are taken out (N, avgdl and df), and never gets a private page
// back.
//
// Threading and lifetime: a Searcher is used by one thread at a time, like
// its store. It reads each posting list once and keeps it for its own life,
// so it sees the store as of its first read of a list: make one per search
// (every pass and arm of one keyword search share it), not one per store.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "bm25/doc_map.h"
#include "engram/posting_store.h"
#include "engram/search.h"
#include "engram/status.h"
#include "store/postings_codec.h"

namespace engram::bm25 {

struct PreparedQuery;
class ListCache;

class Searcher {
 public:
  // The store must outlive the searcher.
  explicit Searcher(PostingStore& store);
  ~Searcher();
  Searcher(const Searcher&) = delete;
  Searcher& operator=(const Searcher&) = delete;

  // The best chunk(s) (query.chunks_per_page) of the best query.limit pages,
  // by score, then page id, then chunk id. Chunks that lack a required term,
  // pages with a chunk holding every term of an excluded group, private
  // pages (unless query.include_private) and pages outside
  // query.allowed_pages are never returned. InvalidArgument for more than 64
  // required terms; store errors and Corruption of a list, naming the term.
  // Cost: with one chunk per page, nothing required and a limit below the
  // field's size, document at a time with MaxScore pruning (lists that
  // cannot lift a doc into the answer are only probed, through their block
  // tables, for docs the others found), from a threshold seeded by scoring
  // a few likely docs first; otherwise every posting of every list. Either
  // way the same hits with the same scores.
  Result<std::vector<KeywordHit>> SearchChunks(const KeywordQuery& query) {
    return Search(query, PostingField::kChunks);
  }
  // The same over titles and aliases: one hit per page, chunk_id 0.
  Result<std::vector<KeywordHit>> SearchTitles(const KeywordQuery& query) {
    return Search(query, PostingField::kTitles);
  }
  Result<std::vector<KeywordHit>> Search(const KeywordQuery& query, PostingField field);

  // The exact score of each given page in one field (chunks: its best chunk;
  // titles: its title/alias field), for the pages that match the query at all
  // (required terms present, not excluded, visible, allowed), in page_ids
  // order. Completes a fusion of two shallow arms. Cost: the query's lists
  // are probed for the pages' docs only.
  Result<std::vector<KeywordHit>> ScorePages(const KeywordQuery& query, const std::vector<PageId>& page_ids,
                                             PostingField field);

 private:
  struct Acc {
    float score = 0;  // zero until a term adds to it (every contribution is positive)
    uint64_t required = 0;
    int64_t page = 0;
  };
  // Pages the query must not return: those with a doc holding every term of
  // an excluded group, and private pages unless the query may see them.
  Status DroppedPages(const KeywordQuery& query, PostingField field, std::unordered_set<int64_t>* dropped);
  // Document at a time with MaxScore pruning (one chunk per page, nothing required).
  Result<std::vector<KeywordHit>> SearchPruned(const PreparedQuery& pq, const KeywordQuery& query, bool titles,
                                               const std::unordered_set<int64_t>& dropped);
  // Term at a time over every posting: any number of chunks per page, required terms.
  Result<std::vector<KeywordHit>> SearchExhaustive(const PreparedQuery& pq, const KeywordQuery& query, bool titles,
                                                   const std::unordered_set<int64_t>& dropped);

  PostingStore& store_;
  std::unique_ptr<ListCache> lists_;
  // Score accumulators by doc id (only the docs in touched_ are non-zero
  // between uses) and chunks kept per page, reached through the module's
  // dense id mapping; cursors, all reused across queries.
  DocMap<Acc> acc_;
  std::vector<int64_t> touched_;
  DocMap<uint32_t> page_counts_;
  std::vector<store::PostingCursor> cursors_;
};

}  // namespace engram::bm25
