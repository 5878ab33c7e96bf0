// BM25 ranking over a store's posting lists (engram/posting_store.h), with
// safe top-k pruning. The one place engram scores keywords: an engine only
// stores the lists, so every engine ranks identically.
//
// Scoring: Lucene's idf, log(1 + (N - df + 0.5) / (df + 0.5)), and
// w · tf · (k1 + 1) / (tf + k1 · (1 - b + b · dl / avgdl)) per term, the
// query's weight w of a term being the sum over its repeats; contributions
// add in float, strongest term first, so a score is the same number however
// the lists were walked. A caller that may not see private pages is scored
// with statistics from which private docs are taken out (N, avgdl and df),
// and never gets a private page back.
//
// Threading: a Searcher is used by one thread at a time, like its store; it
// keeps buffers between queries (create one per search session, or keep it).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "bm25/doc_map.h"
#include "engram/posting_store.h"
#include "engram/search.h"
#include "engram/status.h"

namespace engram::bm25 {

class Searcher {
 public:
  // The store must outlive the searcher.
  explicit Searcher(PostingStore& store) : store_(store) {}
  Searcher(const Searcher&) = delete;
  Searcher& operator=(const Searcher&) = delete;

  // The best chunk(s) (query.chunks_per_page) of the best query.limit pages,
  // by score, then page id, then chunk id. Chunks that lack a required term,
  // pages with a chunk holding every term of an excluded group, private
  // pages (unless query.include_private) and pages outside
  // query.allowed_pages are never returned. InvalidArgument for more than 64
  // required terms; store errors and Corruption of a list, naming the term.
  // Cost: every list of the query is read; lists the answer provably cannot
  // depend on are only probed for docs already seen.
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
  Result<std::vector<KeywordHit>> ScorePages(const KeywordQuery& query, const std::vector<int64_t>& page_ids,
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
  float PageScoreThreshold(const std::vector<int64_t>& docs, size_t limit, float floor,
                           const std::unordered_set<int64_t>& dropped, const std::unordered_set<int64_t>* allowed);

  PostingStore& store_;
  // Buffers for the posting lists of the query being scored; a
  // PreparedQuery points into them for one Search or ScorePages call.
  std::vector<std::string> blob_pool_;
  // Score accumulators by doc id (only the docs in touched_ are non-zero
  // between uses), and per-page scratch, all reused across queries.
  DocMap<Acc> acc_;
  std::vector<int64_t> touched_;
  DocMap<float> page_best_;
  DocMap<uint32_t> page_counts_;
};

}  // namespace engram::bm25
