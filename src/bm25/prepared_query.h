// A keyword query made ready for one field: duplicate terms merged, each
// term's posting list read once, idf and the per-term upper bounds computed
// from the collection statistics (public ones only for a caller that may not
// see private pages). Internal to the bm25 module.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
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
    std::string_view blob;  // the encoded posting list, in the caller's pool ("" when the term never occurs)
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

// Prepares query over field. The lists are copied into *pool (one buffer per
// distinct term, reused across queries); the result points into it and is
// valid until the pool is next used. InvalidArgument when more than
// kMaxRequiredTerms terms are required; store errors (with the term) as is.
Result<PreparedQuery> Prepare(PostingStore& store, const KeywordQuery& query, PostingField field,
                              std::vector<std::string>* pool);

}  // namespace engram::bm25
