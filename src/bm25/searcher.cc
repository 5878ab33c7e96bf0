// Term-at-a-time BM25 into accumulators reached through DocMap, strongest
// terms first, with safe pruning (see Search). ScorePages completes a fusion
// of two shallow arms by scoring given pages exactly.
#include "bm25/searcher.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>

#include "bm25/prepared_query.h"
#include "store/postings_codec.h"

namespace engram::bm25 {

namespace {

using store::Posting;
using store::PostingCursor;

// A page a query may not return: dropped (excluded words, private), or
// outside the filter's allowed pages (nullptr: none is).
bool Out(const std::unordered_set<int64_t>& dropped, const std::unordered_set<int64_t>* allowed, int64_t page) {
  return (!dropped.empty() && dropped.count(page) != 0) || (allowed != nullptr && allowed->count(page) == 0);
}

std::string ListContext(const std::string& term) {
  std::string s = "posting list of '";
  s.append(term).append("'");
  return s;
}

}  // namespace

Status Searcher::DroppedPages(const KeywordQuery& query, PostingField field, std::unordered_set<int64_t>* dropped) {
  std::vector<Posting> list;
  std::string blob;
  for (const auto& group : query.excluded_groups) {
    std::unordered_map<int64_t, std::pair<size_t, int64_t>> seen;  // doc -> (terms matched, page)
    size_t group_terms = 0;
    bool missing = false;
    for (const std::string& term : group) {
      ENGRAM_ASSIGN_OR_RETURN(std::optional<int64_t> tid, store_.FindTerm(term));
      if (!tid) {
        missing = true;
        break;
      }
      ++group_terms;
      ENGRAM_RETURN_IF_ERROR(store_.ReadPostingList(field, *tid, &blob).WithContext(ListContext(term)));
      ENGRAM_RETURN_IF_ERROR(store::DecodePostings(blob, &list).WithContext(ListContext(term)));
      for (const Posting& p : list) {
        auto& s = seen[p.doc];
        s.first++;
        s.second = p.page;
      }
    }
    if (missing || group_terms == 0) continue;
    for (const auto& [doc, s] : seen) {
      if (s.first == group_terms) dropped->insert(s.second);
    }
  }
  if (!query.include_private) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<int64_t> hidden, store_.PrivatePageIds());
    dropped->insert(hidden.begin(), hidden.end());
  }
  return Status::Ok();
}

// A lower bound of the limit-th highest page score (best chunk per page) once
// every list is read: the limit-th best among pages of `docs` whose current
// best chunk scores above `floor`, skipping dropped pages. Scores only grow, and a
// subset of pages can only give a lower value, so the bound is safe; 0 when
// fewer than `limit` such pages exist.
float Searcher::PageScoreThreshold(const std::vector<int64_t>& docs, size_t limit, float floor,
                                   const std::unordered_set<int64_t>& dropped,
                                   const std::unordered_set<int64_t>* allowed) {
  std::vector<int64_t> pages;
  for (int64_t doc : docs) {
    const Acc& a = acc_[doc];
    if (a.score <= floor) continue;
    if (Out(dropped, allowed, a.page)) continue;
    float& best = page_best_[a.page];
    if (best == 0.0f) pages.push_back(a.page);
    best = std::max(best, a.score);
  }
  std::vector<float> scores;
  scores.reserve(pages.size());
  for (int64_t page : pages) scores.push_back(page_best_[page]);
  page_best_.Clear(pages);
  if (scores.size() < limit) return 0.0f;
  std::nth_element(scores.begin(), scores.begin() + static_cast<long>(limit - 1), scores.end(), std::greater<>());
  return scores[limit - 1];
}

Result<std::vector<KeywordHit>> Searcher::Search(const KeywordQuery& query, PostingField field) {
  const bool titles = field == PostingField::kTitles;
  std::vector<KeywordHit> hits;
  ENGRAM_ASSIGN_OR_RETURN(PreparedQuery pq, Prepare(store_, query, field, &blob_pool_));
  if (pq.impossible || pq.terms.empty()) return hits;
  std::unordered_set<int64_t> dropped;
  ENGRAM_RETURN_IF_ERROR(DroppedPages(query, field, &dropped));

  // Accumulators left by a query that failed half way are cleared first.
  acc_.Clear(touched_);
  touched_.clear();
  acc_.SetCap(DirectCap(pq.field_docs));
  page_best_.SetCap(DirectCap(pq.field_docs));
  page_counts_.SetCap(DirectCap(pq.field_docs));

  // Term-at-a-time scoring into the accumulators (every contribution is
  // positive, so a zero score means "not touched yet").
  //
  // Pruning (Moffat & Zobel's "continue" strategy with MaxScore bounds): once
  // the bounds of the remaining terms add up to less than the score of the
  // limit-th best page so far, no doc not yet seen can reach the answer, so
  // the remaining lists are only probed, with skips, for the docs already
  // seen. Scores only grow, so the threshold is safe. Used when the answer is
  // one chunk per page and nothing is required (a doc missing a required term
  // would be counted in the threshold and then dropped).
  const bool can_prune = pq.all_required == 0 && query.chunks_per_page <= 1 && query.limit > 0;
  bool probing = false;
  float top_score = 0;
  std::vector<int64_t> seen_docs;
  std::vector<Posting> list;
  PostingCursor cursor;
  for (size_t i = 0; i < pq.terms.size(); ++i) {
    const PreparedQuery::Term& t = pq.terms[i];
    if (can_prune && !probing && touched_.size() >= query.limit) {
      double remaining = 0;
      for (size_t j = i; j < pq.terms.size(); ++j) remaining += pq.terms[j].ub;
      // The threshold is at most the top score: skip computing it when even that cannot prune.
      float threshold = remaining < top_score
                            ? PageScoreThreshold(touched_, query.limit, static_cast<float>(remaining), dropped,
                                                 query.allowed_pages)
                            : 0.0f;
      if (remaining < threshold) {
        probing = true;
        // Docs that cannot reach the threshold even with every remaining
        // term are out of the answer already: leave them unprobed.
        seen_docs.clear();
        for (int64_t doc : touched_) {
          if (acc_[doc].score + remaining >= threshold) seen_docs.push_back(doc);
        }
        std::sort(seen_docs.begin(), seen_docs.end());
      }
    }
    if (probing) {
      ENGRAM_RETURN_IF_ERROR(cursor.Open(t.blob).WithContext(ListContext(t.term)));
      for (int64_t doc : seen_docs) {
        const Posting* p = cursor.NextGeq(doc);
        if (p == nullptr) break;
        if (p->doc != doc) continue;
        acc_[doc].score += static_cast<float>(pq.Score(t, p->tf, p->dl));
      }
      ENGRAM_RETURN_IF_ERROR(cursor.status().WithContext(ListContext(t.term)));
      // With fewer terms left, fewer candidates can still reach the answer.
      double remaining = 0;
      for (size_t j = i + 1; j < pq.terms.size(); ++j) remaining += pq.terms[j].ub;
      if (i + 1 < pq.terms.size()) {
        float threshold = PageScoreThreshold(seen_docs, query.limit, static_cast<float>(remaining), dropped,
                                             query.allowed_pages);
        seen_docs.erase(std::remove_if(seen_docs.begin(), seen_docs.end(),
                                       [&](int64_t doc) { return acc_[doc].score + remaining < threshold; }),
                        seen_docs.end());
      }
      continue;
    }
    ENGRAM_RETURN_IF_ERROR(store::DecodePostings(t.blob, &list).WithContext(ListContext(t.term)));
    acc_.Grow(list.back().doc);
    for (const Posting& p : list) {
      Acc& a = acc_[p.doc];
      if (a.score == 0.0f) touched_.push_back(p.doc);
      a.score += static_cast<float>(pq.Score(t, p.tf, p.dl));
      top_score = std::max(top_score, a.score);
      a.page = p.page;
      a.required |= t.bit;
    }
  }

  // Collect (and reset the accumulators), then keep the best chunks of the
  // best pages. Ties break on ids so that the same query always gives the
  // same order.
  std::vector<KeywordHit> cand;
  cand.reserve(touched_.size());
  for (int64_t doc : touched_) {
    const Acc& a = acc_[doc];
    bool complete = (a.required & pq.all_required) == pq.all_required;
    if (!complete || Out(dropped, query.allowed_pages, a.page)) continue;
    cand.push_back({a.page, titles ? 0 : doc, a.score});
  }
  acc_.Clear(touched_);
  touched_.clear();
  auto better = [](const KeywordHit& x, const KeywordHit& y) {
    if (x.score != y.score) return x.score > y.score;
    if (x.page_id != y.page_id) return x.page_id < y.page_id;
    return x.chunk_id < y.chunk_id;
  };
  // Sort only as much as the answer needs; sort the rest when many chunks of
  // the same pages crowd the head.
  size_t head = std::min(cand.size(), query.limit * std::max<size_t>(query.chunks_per_page, 1) * 2 + 32);
  std::nth_element(cand.begin(), cand.begin() + static_cast<long>(head), cand.end(), better);
  std::sort(cand.begin(), cand.begin() + static_cast<long>(head), better);
  // Chunks kept per page.
  std::vector<int64_t> counted;
  size_t pages = 0;
  const size_t per_page_limit = std::max<size_t>(query.chunks_per_page, 1);
  for (size_t i = 0; i < cand.size(); ++i) {
    if (i == head) {
      if (pages == query.limit) break;
      std::sort(cand.begin() + static_cast<long>(head), cand.end(), better);
    }
    const KeywordHit& h = cand[i];
    uint32_t& n = page_counts_[h.page_id];
    if (n == 0) {
      if (pages == query.limit) continue;
      ++pages;
      counted.push_back(h.page_id);
    }
    if (n >= per_page_limit) continue;
    ++n;
    hits.push_back(h);
  }
  page_counts_.Clear(counted);
  return hits;
}

Result<std::vector<KeywordHit>> Searcher::ScorePages(const KeywordQuery& query, const std::vector<int64_t>& page_ids,
                                                     PostingField field) {
  const bool titles = field == PostingField::kTitles;
  std::vector<KeywordHit> hits;
  if (page_ids.empty()) return hits;
  ENGRAM_ASSIGN_OR_RETURN(PreparedQuery pq, Prepare(store_, query, field, &blob_pool_));
  if (pq.impossible || pq.terms.empty()) return hits;
  std::unordered_set<int64_t> dropped;
  ENGRAM_RETURN_IF_ERROR(DroppedPages(query, field, &dropped));

  // The docs to score: the pages themselves (titles) or their chunks.
  struct Doc {
    int64_t doc;
    int64_t page;
    float score = 0;
    uint64_t required = 0;
  };
  std::vector<Doc> docs;
  for (int64_t page : page_ids) {
    if (Out(dropped, query.allowed_pages, page)) continue;
    if (titles) {
      docs.push_back({page, page});
      continue;
    }
    ENGRAM_ASSIGN_OR_RETURN(std::vector<int64_t> chunks, store_.PageChunkIds(page));
    for (int64_t chunk : chunks) docs.push_back({chunk, page});
  }
  std::sort(docs.begin(), docs.end(), [](const Doc& a, const Doc& b) { return a.doc < b.doc; });
  PostingCursor cursor;
  for (const PreparedQuery::Term& t : pq.terms) {
    ENGRAM_RETURN_IF_ERROR(cursor.Open(t.blob).WithContext(ListContext(t.term)));
    for (Doc& d : docs) {
      const Posting* p = cursor.NextGeq(d.doc);
      if (p == nullptr) break;
      if (p->doc != d.doc) continue;
      d.score += static_cast<float>(pq.Score(t, p->tf, p->dl));
      d.required |= t.bit;
    }
    ENGRAM_RETURN_IF_ERROR(cursor.status().WithContext(ListContext(t.term)));
  }
  // Best doc per page, reported in page_ids order.
  std::unordered_map<int64_t, KeywordHit> best;
  for (const Doc& d : docs) {
    if (d.score <= 0 || (d.required & pq.all_required) != pq.all_required) continue;
    auto [it, inserted] = best.try_emplace(d.page, KeywordHit{d.page, titles ? 0 : d.doc, d.score});
    if (!inserted && (d.score > it->second.score || (d.score == it->second.score && d.doc < it->second.chunk_id))) {
      it->second = {d.page, titles ? 0 : d.doc, d.score};
    }
  }
  for (int64_t page : page_ids) {
    auto it = best.find(page);
    if (it != best.end()) hits.push_back(it->second);
  }
  return hits;
}

}  // namespace engram::bm25
