// Search: document at a time with MaxScore pruning when the answer is one
// chunk per page and nothing is required (every keyword search's first
// pass), else term at a time over every posting into accumulators reached
// through DocMap. ScorePages completes a fusion of two shallow arms by
// scoring given pages exactly.
#include "bm25/searcher.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>

#include "bm25/prepared_query.h"
#include "bm25/threshold_seed.h"

namespace engram::bm25 {

namespace {

using store::Posting;
using store::PostingCursor;

// A page a query may not return: dropped (excluded words, private), or
// outside the filter's allowed pages (nullptr: none is).
bool Out(const std::unordered_set<int64_t>& dropped, const PageSelector* allowed, int64_t page) {
  return (!dropped.empty() && dropped.count(page) != 0) || (allowed != nullptr && !allowed->Contains(PageId(page)));
}

// A hit from the module's raw doc ids (a title hit has chunk 0).
KeywordHit Hit(int64_t page, int64_t chunk, float score) { return {PageId(page), ChunkId(chunk), score}; }

std::string ListContext(const std::string& term) {
  std::string s = "posting list of '";
  s.append(term).append("'");
  return s;
}

// The order of hits: score, then page, then chunk, so that the same query
// always gives the same order.
bool Better(const KeywordHit& x, const KeywordHit& y) {
  if (x.score != y.score) return x.score > y.score;
  if (x.page_id != y.page_id) return x.page_id < y.page_id;
  return x.chunk_id < y.chunk_id;
}

// Bounds are compared with scores only after this margin: a score is a sum
// of float-rounded contributions, each up to 2^-24 above its exact value and
// every addition rounding again, so a bound computed in double could sit a
// hair below the score it bounds. 1e-4 covers 256 terms many times over and
// costs nothing measurable in pruning.
constexpr double kBoundMargin = 1.0 + 1e-4;

// The best `k` pages seen so far by the score of their best doc, with that
// doc. threshold() is the score a doc must reach to matter once k pages are
// held: a doc below it cannot enter, nor be the best doc of a page inside.
class TopPages {
 public:
  explicit TopPages(size_t k) : k_(k) {}
  bool full() const { return by_page_.size() == k_; }
  float threshold() const { return full() ? order_.begin()->score : 0.0f; }

  // Docs arrive in ascending id order, so a page keeps the first of its
  // equally scored docs: the one with the lowest id, as Better wants.
  void Offer(int64_t page, int64_t doc, float score) {
    auto it = by_page_.find(page);
    if (it != by_page_.end()) {
      if (score <= it->second.score) return;
      order_.erase(it->second);
      it->second = {score, page, doc};
      order_.insert(it->second);
      return;
    }
    if (full()) {
      const Entry& worst = *order_.begin();
      if (!(score > worst.score || (score == worst.score && page < worst.page))) return;
      by_page_.erase(worst.page);
      order_.erase(order_.begin());
    }
    Entry e{score, page, doc};
    by_page_.emplace(page, e);
    order_.insert(e);
  }

  std::vector<KeywordHit> Hits(bool titles) const {
    std::vector<KeywordHit> hits;
    hits.reserve(order_.size());
    for (const Entry& e : order_) hits.push_back(Hit(e.page, titles ? 0 : e.doc, e.score));
    std::sort(hits.begin(), hits.end(), Better);
    return hits;
  }

 private:
  struct Entry {
    float score;
    int64_t page;
    int64_t doc;
  };
  // Worst first: the lowest score, then the highest page id.
  struct Worse {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.score != b.score ? a.score < b.score : a.page > b.page;
    }
  };
  size_t k_;
  std::set<Entry, Worse> order_;
  std::unordered_map<int64_t, Entry> by_page_;
};

}  // namespace

Searcher::Searcher(PostingStore& store) : store_(store), lists_(std::make_unique<ListCache>(store)) {}

Searcher::~Searcher() = default;

Status Searcher::DroppedPages(const KeywordQuery& query, PostingField field, std::unordered_set<int64_t>* dropped) {
  std::vector<Posting> list;
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
      auto blob = lists_->Get(field, *tid);
      if (!blob.ok()) return blob.status().WithContext(ListContext(term));
      ENGRAM_RETURN_IF_ERROR(store::DecodePostings(*blob, &list).WithContext(ListContext(term)));
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
    ENGRAM_ASSIGN_OR_RETURN(std::vector<PageId> hidden, store_.PrivatePageIds());
    for (const PageId page : hidden) dropped->insert(page.value());
  }
  return Status::Ok();
}

Result<std::vector<KeywordHit>> Searcher::Search(const KeywordQuery& query, PostingField field) {
  ENGRAM_ASSIGN_OR_RETURN(PreparedQuery pq, Prepare(*lists_, query, field));
  if (pq.impossible || pq.terms.empty()) return std::vector<KeywordHit>();
  std::unordered_set<int64_t> dropped;
  ENGRAM_RETURN_IF_ERROR(DroppedPages(query, field, &dropped));
  const bool titles = field == PostingField::kTitles;
  // Pruning needs a threshold that only grows: with one doc per page and no
  // required term, the limit-th best page so far. A limit past the field's
  // size can never prune, and walking every list once is then cheaper.
  if (pq.all_required == 0 && query.chunks_per_page <= 1 && query.limit > 0 &&
      query.limit < static_cast<size_t>(std::max<int64_t>(pq.field_docs, 0))) {
    return SearchPruned(pq, query, titles, dropped);
  }
  return SearchExhaustive(pq, query, titles, dropped);
}

// MaxScore, document at a time (Turtle & Flood 1995; the form of Lucene's
// and PISA's MaxScore). Lists are ordered by their bound, weakest first;
// bound[i] sums the bounds of lists 0..i. Once the limit-th best page scores
// above bound[i], a doc found only in lists 0..i cannot matter, so those
// lists stop leading: the next doc is the smallest among the others (the
// essential lists), and the non-essential ones are only probed for it,
// strongest first, through their block tables, while the doc can still
// reach the threshold. A doc's score is then summed in the one order every
// path uses, so pruning changes which docs are scored, never a score. The
// threshold starts from a seed (threshold_seed.h) rather than zero.
//
// Measured and left out: block-max skipping of the essential lists (jump a
// block whose bound plus the rest cannot reach the threshold) skipped ~12
// blocks a query on the synthetic 100,000-chunk brain and gained nothing
// measurable, and bounding the probes by the probed lists' block bounds
// cost twice what it saved (the block-table look-ups per doc); see
// docs/PERFORMANCE.md. The block bounds serve the seed.
Result<std::vector<KeywordHit>> Searcher::SearchPruned(const PreparedQuery& pq, const KeywordQuery& query,
                                                       bool titles, const std::unordered_set<int64_t>& dropped) {
  const size_t n = pq.terms.size();
  std::vector<size_t> by_bound(n);  // list position -> term index (pq.terms order)
  for (size_t i = 0; i < n; ++i) by_bound[i] = n - 1 - i;  // pq.terms is strongest first
  std::vector<double> bound(n);
  if (cursors_.size() < n) cursors_.resize(n);
  std::vector<const Posting*> at(n);
  for (size_t i = 0; i < n; ++i) {
    const PreparedQuery::Term& t = pq.terms[by_bound[i]];
    bound[i] = (i > 0 ? bound[i - 1] : 0.0) + t.ub * kBoundMargin;
    ENGRAM_RETURN_IF_ERROR(cursors_[i].Open(t.blob).WithContext(ListContext(t.term)));
    at[i] = cursors_[i].NextGeq(0);
  }
  TopPages top(query.limit);
  const bool filtered = !dropped.empty() || query.allowed_pages != nullptr;
  // The limit-th best page's score is at least the seed's, so pruning may
  // start from it (0 when none was found: pruning starts once limit pages
  // are held).
  float threshold = SeedThreshold(pq, query.limit, [&](int64_t page) {
    return filtered && Out(dropped, query.allowed_pages, page);
  });
  size_t first_essential = 0;
  while (first_essential < n && bound[first_essential] < threshold) ++first_essential;
  std::vector<float> contribution(n, 0.0f);  // by term index; 0 where the doc lacks the term
  std::vector<size_t> matched;
  while (first_essential < n) {
    const size_t fe = first_essential;
    const double rest = fe > 0 ? bound[fe - 1] : 0.0;  // the most the non-essential lists can add
    if (fe == n - 1 && threshold > 0) {
      // One list leads (the usual state once the threshold has grown): a
      // doc whose contribution from it cannot reach threshold - rest is
      // passed over without the division, by a test that errs towards
      // scoring (1e-6 covers the rounding of the exact contribution).
      const Posting* p = at[fe];
      if (p == nullptr) break;
      const PreparedQuery::Term& t = pq.terms[by_bound[fe]];
      const double need = (threshold - rest) / kBoundMargin;
      const double tf = p->tf;
      if (t.w * tf < need * (1.0 - 1e-6) * (tf + pq.base + pq.len_norm * p->dl)) {
        at[fe] = cursors_[fe].NextGeq(p->doc + 1);
        continue;
      }
    }
    int64_t doc = std::numeric_limits<int64_t>::max();
    for (size_t i = fe; i < n; ++i) {
      if (at[i] != nullptr && at[i]->doc < doc) doc = at[i]->doc;
    }
    if (doc == std::numeric_limits<int64_t>::max()) break;
    double partial = 0;
    int64_t page = 0;
    matched.clear();
    for (size_t i = fe; i < n; ++i) {
      if (at[i] == nullptr || at[i]->doc != doc) continue;
      const size_t term = by_bound[i];
      const float c = static_cast<float>(pq.Score(pq.terms[term], at[i]->tf, at[i]->dl));
      contribution[term] = c;
      matched.push_back(term);
      partial += c;
      page = at[i]->page;
      at[i] = cursors_[i].NextGeq(doc + 1);
    }
    bool reachable = !(partial * kBoundMargin + rest < threshold) &&
                     !(filtered && Out(dropped, query.allowed_pages, page));
    for (size_t i = fe; reachable && i-- > 0;) {
      if (partial * kBoundMargin + bound[i] < threshold) {
        reachable = false;
        break;
      }
      const Posting* p = cursors_[i].NextGeq(doc);
      if (p == nullptr || p->doc != doc) continue;
      const size_t term = by_bound[i];
      const float c = static_cast<float>(pq.Score(pq.terms[term], p->tf, p->dl));
      contribution[term] = c;
      matched.push_back(term);
      partial += c;
    }
    if (reachable) {
      float score = 0;
      for (size_t term = 0; term < n; ++term) score += contribution[term];
      // Below the threshold a doc can neither enter nor be a held page's
      // best (those score at least the threshold): no need to look it up.
      if (score >= threshold) top.Offer(page, doc, score);
      if (top.full() && top.threshold() > threshold) {
        threshold = top.threshold();
        while (first_essential < n && bound[first_essential] < threshold) ++first_essential;
      }
    }
    for (size_t term : matched) contribution[term] = 0.0f;
  }
  for (size_t i = 0; i < n; ++i) {
    ENGRAM_RETURN_IF_ERROR(cursors_[i].status().WithContext(ListContext(pq.terms[by_bound[i]].term)));
  }
  return top.Hits(titles);
}

Result<std::vector<KeywordHit>> Searcher::SearchExhaustive(const PreparedQuery& pq, const KeywordQuery& query,
                                                           bool titles, const std::unordered_set<int64_t>& dropped) {
  // Accumulators left by a query that failed half way are cleared first.
  acc_.Clear(touched_);
  touched_.clear();
  acc_.SetCap(DirectCap(pq.field_docs));
  page_counts_.SetCap(DirectCap(pq.field_docs));

  // Term at a time, in pq.terms order, into the accumulators (every
  // contribution is positive, so a zero score means "not touched yet").
  std::vector<Posting> list;
  for (const PreparedQuery::Term& t : pq.terms) {
    ENGRAM_RETURN_IF_ERROR(store::DecodePostings(t.blob, &list).WithContext(ListContext(t.term)));
    acc_.Grow(list.back().doc);
    for (const Posting& p : list) {
      Acc& a = acc_[p.doc];
      if (a.score == 0.0f) touched_.push_back(p.doc);
      a.score += static_cast<float>(pq.Score(t, p.tf, p.dl));
      a.page = p.page;
      a.required |= t.bit;
    }
  }

  // Collect (and reset the accumulators), then keep the best chunks of the
  // best pages.
  std::vector<KeywordHit> cand;
  cand.reserve(touched_.size());
  for (int64_t doc : touched_) {
    const Acc& a = acc_[doc];
    bool complete = (a.required & pq.all_required) == pq.all_required;
    if (!complete || Out(dropped, query.allowed_pages, a.page)) continue;
    cand.push_back(Hit(a.page, titles ? 0 : doc, a.score));
  }
  acc_.Clear(touched_);
  touched_.clear();
  // Sort only as much as the answer needs; sort the rest when many chunks of
  // the same pages crowd the head.
  size_t head = std::min(cand.size(), query.limit * std::max<size_t>(query.chunks_per_page, 1) * 2 + 32);
  std::nth_element(cand.begin(), cand.begin() + static_cast<long>(head), cand.end(), Better);
  std::sort(cand.begin(), cand.begin() + static_cast<long>(head), Better);
  // Chunks kept per page.
  std::vector<KeywordHit> hits;
  std::vector<int64_t> counted;
  size_t pages = 0;
  const size_t per_page_limit = std::max<size_t>(query.chunks_per_page, 1);
  for (size_t i = 0; i < cand.size(); ++i) {
    if (i == head) {
      if (pages == query.limit) break;
      std::sort(cand.begin() + static_cast<long>(head), cand.end(), Better);
    }
    const KeywordHit& h = cand[i];
    uint32_t& n = page_counts_[h.page_id.value()];
    if (n == 0) {
      if (pages == query.limit) continue;
      ++pages;
      counted.push_back(h.page_id.value());
    }
    if (n >= per_page_limit) continue;
    ++n;
    hits.push_back(h);
  }
  page_counts_.Clear(counted);
  return hits;
}

Result<std::vector<KeywordHit>> Searcher::ScorePages(const KeywordQuery& query, const std::vector<PageId>& page_ids,
                                                     PostingField field) {
  const bool titles = field == PostingField::kTitles;
  std::vector<KeywordHit> hits;
  if (page_ids.empty()) return hits;
  ENGRAM_ASSIGN_OR_RETURN(PreparedQuery pq, Prepare(*lists_, query, field));
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
  std::vector<PageId> kept;
  for (const PageId page_id : page_ids) {
    const int64_t page = page_id.value();
    if (Out(dropped, query.allowed_pages, page)) continue;
    if (titles) {
      docs.push_back({page, page});
    } else {
      kept.push_back(page_id);
    }
  }
  if (!kept.empty()) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<std::vector<ChunkId>> chunks, store_.PagesChunkIds(kept));
    if (chunks.size() != kept.size()) return Status::Internal("the store returned chunk ids per page asked");
    for (size_t i = 0; i < kept.size(); ++i) {
      for (const ChunkId chunk : chunks[i]) docs.push_back({chunk.value(), kept[i].value()});
    }
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
    auto [it, inserted] = best.try_emplace(d.page, Hit(d.page, titles ? 0 : d.doc, d.score));
    if (!inserted && (d.score > it->second.score || (d.score == it->second.score && d.doc < it->second.chunk_id.value()))) {
      it->second = Hit(d.page, titles ? 0 : d.doc, d.score);
    }
  }
  for (const PageId page : page_ids) {
    auto it = best.find(page.value());
    if (it != best.end()) hits.push_back(it->second);
  }
  return hits;
}

}  // namespace engram::bm25
