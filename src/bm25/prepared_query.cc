#include "bm25/prepared_query.h"

#include <algorithm>
#include <cmath>

#include "store/postings_codec.h"

namespace engram::bm25 {

Result<std::string_view> ListCache::Get(PostingField field, int64_t term_id) {
  auto& lists = lists_[field == PostingField::kTitles ? 1 : 0];
  auto it = lists.find(term_id);
  if (it == lists.end()) {
    ENGRAM_ASSIGN_OR_RETURN(std::shared_ptr<const std::string> list, store_.ReadPostingList(field, term_id));
    if (list == nullptr) return Status::Internal("the store returned no posting list");
    if (!store::IsPackedPostings(*list)) {
      // A list in a varint layout (a brain written before the packed one):
      // repacked once here, so that every cursor of the search opens it in
      // place. A damaged one is kept as it is; the cursors report it.
      auto packed = store::RepackPostings(*list);
      if (packed.ok()) list = std::make_shared<const std::string>(std::move(packed).value());
    }
    it = lists.emplace(term_id, std::move(list)).first;
  }
  return std::string_view(*it->second);
}

Result<std::vector<std::optional<int64_t>>> ListCache::Fetch(PostingField field,
                                                             const std::vector<std::string>& terms) {
  std::vector<std::string> unknown;
  for (const std::string& t : terms) {
    if (term_ids_.find(t) == term_ids_.end()) unknown.push_back(t);
  }
  if (!unknown.empty()) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<std::optional<int64_t>> ids, store_.FindTerms(unknown));
    if (ids.size() != unknown.size()) return Status::Internal("the store returned a term id per term asked");
    for (size_t i = 0; i < unknown.size(); ++i) term_ids_.emplace(unknown[i], ids[i]);
  }
  std::vector<std::optional<int64_t>> out;
  out.reserve(terms.size());
  auto& lists = lists_[field == PostingField::kTitles ? 1 : 0];
  std::vector<int64_t> missing;
  for (const std::string& t : terms) {
    const std::optional<int64_t> id = term_ids_.at(t);
    out.push_back(id);
    if (id && lists.find(*id) == lists.end() &&
        std::find(missing.begin(), missing.end(), *id) == missing.end()) {
      missing.push_back(*id);
    }
  }
  if (missing.size() > 1) {  // one is read by Get as it comes
    ENGRAM_ASSIGN_OR_RETURN(auto read, store_.ReadPostingLists(field, missing));
    if (read.size() != missing.size()) return Status::Internal("the store returned a posting list per term asked");
    for (size_t i = 0; i < missing.size(); ++i) {
      if (read[i] == nullptr) return Status::Internal("the store returned no posting list");
      lists.emplace(missing[i], std::move(read[i]));
    }
  }
  return out;
}

Result<FieldStatistics> ListCache::Statistics(PostingField field) {
  auto& kept = stats_[field == PostingField::kTitles ? 1 : 0];
  if (!kept) {
    ENGRAM_ASSIGN_OR_RETURN(FieldStatistics stats, store_.Statistics(field));
    kept = stats;
  }
  return *kept;
}

Result<std::shared_ptr<const PrivateFieldStatistics>> ListCache::PrivateStatistics(PostingField field) {
  auto& kept = private_stats_[field == PostingField::kTitles ? 1 : 0];
  if (kept == nullptr) {
    ENGRAM_ASSIGN_OR_RETURN(kept, store_.PrivateStatistics(field));
    if (kept == nullptr) return Status::Internal("the store returned no private statistics");
  }
  return kept;
}

Result<PreparedQuery> Prepare(ListCache& cache, const KeywordQuery& query, PostingField field) {
  // Merge duplicate terms: "data data" weighs "data" twice, like a query term frequency.
  std::vector<QueryTerm> terms;
  for (const QueryTerm& t : query.terms) {
    auto it = std::find_if(terms.begin(), terms.end(), [&](const QueryTerm& u) { return u.term == t.term; });
    if (it == terms.end()) {
      terms.push_back(t);
    } else {
      it->weight += t.weight;
      it->required = it->required || t.required;
    }
  }
  size_t required_count = 0;
  for (const QueryTerm& t : terms) required_count += t.required ? 1 : 0;
  if (required_count > kMaxRequiredTerms) {
    return Status::InvalidArgument("a query may require at most " + std::to_string(kMaxRequiredTerms) + " terms");
  }
  PreparedQuery pq;
  pq.all_required = required_count == 64 ? ~uint64_t{0} : (uint64_t{1} << required_count) - 1;

  std::vector<std::string> names;
  names.reserve(terms.size());
  for (const QueryTerm& t : terms) names.push_back(t.term);
  ENGRAM_ASSIGN_OR_RETURN(std::vector<std::optional<int64_t>> term_ids, cache.Fetch(field, names));
  ENGRAM_ASSIGN_OR_RETURN(FieldStatistics stats, cache.Statistics(field));
  pq.field_docs = stats.docs;
  double n_docs = static_cast<double>(stats.docs);
  double tokens = static_cast<double>(stats.tokens);
  std::shared_ptr<const PrivateFieldStatistics> hidden;
  if (!query.include_private) {
    ENGRAM_ASSIGN_OR_RETURN(hidden, cache.PrivateStatistics(field));
    n_docs -= static_cast<double>(hidden->totals.docs);
    tokens -= static_cast<double>(hidden->totals.tokens);
  }
  if (n_docs <= 0) {
    pq.impossible = true;
    return pq;
  }
  double avgdl = std::max(tokens / n_docs, 1.0);
  const double k1 = query.k1, b = query.b;
  pq.len_norm = k1 * b / avgdl;
  pq.base = k1 * (1.0 - b);

  // BM25 grows with tf and shrinks with length, so (max tf, min dl) of a list
  // bounds what its term can add to any one doc.
  size_t required_bit = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const QueryTerm& t = terms[i];
    uint64_t bit = t.required ? uint64_t{1} << required_bit++ : 0;
    const std::optional<int64_t> tid = term_ids[i];
    PreparedQuery::Term pt;
    if (tid) {
      auto blob = cache.Get(field, *tid);
      if (!blob.ok()) return blob.status().WithContext("posting list of '" + t.term + "'");
      pt.blob = *blob;
    }
    auto info = store::ReadPostingInfo(pt.blob);
    if (!info.ok()) return info.status().WithContext("posting list of '" + t.term + "'");
    double df = static_cast<double>(info->count);
    if (hidden != nullptr && tid) {
      auto it = hidden->df.find(*tid);
      if (it != hidden->df.end()) df -= static_cast<double>(it->second);
    }
    if (df <= 0) {
      if (t.required) pq.impossible = true;  // a required term that never occurs: nothing matches
      continue;
    }
    double idf = std::log(1.0 + (n_docs - df + 0.5) / (df + 0.5));
    pt.term = t.term;
    pt.bit = bit;
    pt.w = idf * t.weight * (k1 + 1.0);
    double max_tf = static_cast<double>(info->max_tf);
    pt.ub = pq.Score(pt, max_tf, static_cast<double>(info->min_dl));
    pq.terms.push_back(std::move(pt));
  }
  // Strongest terms first; ties by term so that scores always add in one order.
  std::sort(pq.terms.begin(), pq.terms.end(), [](const PreparedQuery::Term& x, const PreparedQuery::Term& y) {
    return x.ub != y.ub ? x.ub > y.ub : x.term < y.term;
  });
  // Bounded cost: past kMaxQueryTerms, the weakest optional terms go.
  if (pq.terms.size() > kMaxQueryTerms) {
    std::vector<PreparedQuery::Term> kept;
    size_t optional = 0;
    for (auto& t : pq.terms) {
      if (t.bit != 0 || optional++ < kMaxQueryTerms - required_count) kept.push_back(std::move(t));
    }
    pq.terms = std::move(kept);
  }
  return pq;
}

}  // namespace engram::bm25
