// A keyword query made ready for one field: duplicate terms merged, each
// term's posting list read once, idf and the per-term upper bounds computed
// from the collection statistics (public ones only for a caller that may not
// see private pages). Internal to the bm25 module.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engram/posting_store.h"
#include "engram/search.h"
#include "engram/status.h"

namespace engram::bm25 {

// A query may require at most this many terms (one bit each).
constexpr size_t kMaxRequiredTerms = 64;

struct PreparedQuery {
  struct Term {
    std::string term;
    uint64_t bit = 0;       // non-zero for required terms
    std::string_view blob;  // the encoded posting list, in a ListCache ("" when the term never occurs)
    double w = 0;           // idf * weight * (k1 + 1)
    double ub = 0;          // the most the term can add to one doc
  };
  std::vector<Term> terms;  // strongest bound first; ties by term
  uint64_t all_required = 0;
  bool impossible = false;  // a required term never occurs, or the field is empty
  double base = 0, len_norm = 0;
  int64_t field_docs = 0;   // docs of the field the query is scored over (all, private ones included)

  // BM25 contribution of term t to a doc with term frequency tf and length dl.
  double Score(const Term& t, double tf, double dl) const { return t.w * tf / (tf + base + len_norm * dl); }
};

// The posting lists one search has read, held for the rest of it: fusion
// scores the same terms again (ScorePages, deeper passes), and a list is
// asked of the store once. Views stay valid for the cache's life; it sees
// each list as the store held it when first read.
//
// It keeps the rest of what one search reads from the store the same way:
// term ids, and each field's statistics. A search asks the store for what it
// lacks in batches (Fetch), so that over a network a stage costs one round
// trip, not one per term.
class ListCache {
 public:
  explicit ListCache(PostingStore& store) : store_(store) {}
  // The encoded list of term_id in field ("" when it has none).
  Result<std::string_view> Get(PostingField field, int64_t term_id);
  // Term ids of terms (nothing for a term the store never held), each read
  // once per search; then the lists of the found ones in field, read
  // together. Terms and ids in the order given.
  Result<std::vector<std::optional<int64_t>>> Fetch(PostingField field, const std::vector<std::string>& terms);
  // The field's statistics and what private pages add to them, read once per search.
  Result<FieldStatistics> Statistics(PostingField field);
  Result<std::shared_ptr<const PrivateFieldStatistics>> PrivateStatistics(PostingField field);

 private:
  PostingStore& store_;
  std::unordered_map<int64_t, std::shared_ptr<const std::string>> lists_[2];  // by field, then term id
  std::unordered_map<std::string, std::optional<int64_t>> term_ids_;
  std::optional<FieldStatistics> stats_[2];
  std::shared_ptr<const PrivateFieldStatistics> private_stats_[2];
};

// Prepares query over field, the lists read through cache (the result's
// views point into it). InvalidArgument when more than kMaxRequiredTerms
// terms are required; store errors (with the term) as they come.
Result<PreparedQuery> Prepare(ListCache& cache, const KeywordQuery& query, PostingField field);

}  // namespace engram::bm25
