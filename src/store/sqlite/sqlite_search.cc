// BM25 over the per-term posting lists.
//
// Scores accumulate term-at-a-time in flat arrays indexed by doc id, strongest
// terms first, with safe pruning (see Search). ScorePages completes a fusion
// of two shallow arms by scoring given pages exactly.
#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "engram/search.h"
#include "store/sqlite/sqlite_engine.h"

namespace engram::store::sqlite {

namespace {
constexpr size_t kMaxRequiredTerms = 64;

// A page a query may not return: dropped (excluded words, private), or
// outside the filter's allowed pages (nullptr: none is).
bool Out(const std::unordered_set<int64_t>& dropped, const std::unordered_set<int64_t>* allowed, int64_t page) {
  return (!dropped.empty() && dropped.count(page) != 0) || (allowed != nullptr && allowed->count(page) == 0);
}
}  // namespace

Result<SqliteEngine::PreparedQuery> SqliteEngine::PrepareQuery(const KeywordQuery& query, bool titles) {
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

  ENGRAM_ASSIGN_OR_RETURN(Stmt * stats, S("SELECT chunks, chunk_tokens, titles, title_tokens FROM corpus_stats WHERE id = 1"));
  if (!stats->Step()) {
    ENGRAM_RETURN_IF_ERROR(stats->status());
    return Status::Corruption("corpus_stats row is missing");
  }
  double n_docs = static_cast<double>(titles ? stats->Int(2) : stats->Int(0));
  double tokens = static_cast<double>(titles ? stats->Int(3) : stats->Int(1));
  stats->Reset();
  const std::unordered_map<int64_t, int64_t>* private_df = nullptr;
  if (!query.include_private) {
    ENGRAM_RETURN_IF_ERROR(RefreshPrivateStats());
    const PrivateStats& p = private_stats_;
    n_docs -= static_cast<double>(titles ? p.titles : p.chunks);
    tokens -= static_cast<double>(titles ? p.title_tokens : p.chunk_tokens);
    private_df = titles ? &p.title_df : &p.chunk_df;
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
  // Sized once, before any view into it is taken: growing the pool would move
  // short strings (their bytes live inside the string object).
  if (blob_pool_.size() < terms.size()) blob_pool_.resize(terms.size());
  size_t required_bit = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const QueryTerm& t = terms[i];
    uint64_t bit = t.required ? uint64_t{1} << required_bit++ : 0;
    auto tid = LookupTermId(t.term);
    if (!tid.ok() && tid.status().code() != StatusCode::kNotFound) return tid.status();
    PreparedQuery::Term pt;
    std::string& buffer = blob_pool_[i];  // reused across queries: no allocation
    buffer.clear();
    if (tid.ok()) ENGRAM_RETURN_IF_ERROR(ReadPostingBlobCopy(*tid, titles, &buffer));
    pt.blob = buffer;
    auto info = ReadPostingInfo(pt.blob);
    if (!info.ok()) return info.status().WithContext("posting list of '" + t.term + "'");
    double df = static_cast<double>(info->count);
    if (private_df != nullptr && tid.ok()) {
      auto hidden = private_df->find(*tid);
      if (hidden != private_df->end()) df -= static_cast<double>(hidden->second);
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

Status SqliteEngine::RefreshPrivateStats() {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * version, S("PRAGMA data_version"));
  if (!version->Step()) return version->status();
  const std::pair<int64_t, int64_t> key{version->Int(0), sqlite3_total_changes64(db_.get())};
  version->Reset();
  if (key == private_stats_.key) return Status::Ok();
  PrivateStats p;
  p.key = key;
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT c.terms, c.term_length FROM pages p INDEXED BY pages_private "
                                        "JOIN chunks c ON c.page_id = p.id WHERE p.visibility = 'private'"));
    while (q->Step()) {
      ++p.chunks;
      p.chunk_tokens += q->Int(1);
      ENGRAM_ASSIGN_OR_RETURN(std::vector<int64_t> ids, TermIds(q->Blob(0), "a private chunk"));
      for (int64_t t : ids) ++p.chunk_df[t];
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
  }
  {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT title_terms, title_length FROM pages INDEXED BY pages_private "
                                        "WHERE visibility = 'private'"));
    while (q->Step()) {
      const int64_t length = q->Int(1);
      if (length <= 0) continue;
      ++p.titles;
      p.title_tokens += length;
      ENGRAM_ASSIGN_OR_RETURN(std::vector<int64_t> ids, TermIds(q->Blob(0), "a private page's title"));
      for (int64_t t : ids) ++p.title_df[t];
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
  }
  private_stats_ = std::move(p);
  return Status::Ok();
}

// Pages a query must not return: those with a chunk holding every term of an
// excluded group, and private pages unless allowed.
Status SqliteEngine::DroppedPages(const KeywordQuery& query, bool titles, std::unordered_set<int64_t>* dropped) {
  std::vector<Posting> list;
  for (const auto& group : query.excluded_groups) {
    std::unordered_map<int64_t, std::pair<size_t, int64_t>> seen;  // doc -> (terms matched, page)
    size_t group_terms = 0;
    bool missing = false;
    for (const std::string& term : group) {
      auto tid = LookupTermId(term);
      if (!tid.ok()) {
        missing = true;
        break;
      }
      ++group_terms;
      ENGRAM_RETURN_IF_ERROR(ReadPostings(*tid, titles, &list));
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
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT id FROM pages INDEXED BY pages_private WHERE visibility = 'private'"));
    while (q->Step()) dropped->insert(q->Int(0));
    ENGRAM_RETURN_IF_ERROR(q->status());
  }
  return Status::Ok();
}

// A lower bound of the limit-th highest page score (best chunk per page) once
// every list is read: the limit-th best among pages of `docs` whose current
// best chunk scores above `floor`, skipping dropped pages. Scores only grow, and a
// subset of pages can only give a lower value, so the bound is safe; 0 when
// fewer than `limit` such pages exist.
float SqliteEngine::PageScoreThreshold(const std::vector<int64_t>& docs, size_t limit, float floor,
                                       const std::unordered_set<int64_t>& dropped,
                                       const std::unordered_set<int64_t>* allowed) {
  std::vector<float>& best = page_best_;
  std::vector<int64_t> pages;
  for (int64_t doc : docs) {
    float score = acc_score_[doc];
    if (score <= floor) continue;
    int64_t page = acc_page_[doc];
    if (Out(dropped, allowed, page)) continue;
    if (static_cast<size_t>(page) >= best.size()) best.resize(static_cast<size_t>(page) * 5 / 4 + 1, 0.0f);
    if (best[page] == 0.0f) pages.push_back(page);
    best[page] = std::max(best[page], score);
  }
  std::vector<float> scores;
  scores.reserve(pages.size());
  for (int64_t page : pages) {
    scores.push_back(best[page]);
    best[page] = 0.0f;
  }
  if (scores.size() < limit) return 0.0f;
  std::nth_element(scores.begin(), scores.begin() + static_cast<long>(limit - 1), scores.end(), std::greater<>());
  return scores[limit - 1];
}

Result<std::vector<KeywordHit>> SqliteEngine::Search(const KeywordQuery& query, bool titles) {
  std::vector<KeywordHit> hits;
  ENGRAM_ASSIGN_OR_RETURN(PreparedQuery pq, PrepareQuery(query, titles));
  if (pq.impossible || pq.terms.empty()) return hits;
  std::unordered_set<int64_t> dropped;
  ENGRAM_RETURN_IF_ERROR(DroppedPages(query, titles, &dropped));

  // Term-at-a-time scoring into flat arrays (doc ids are dense; every
  // contribution is positive, so a zero score means "not touched yet").
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
  touched_.clear();
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
          if (acc_score_[doc] + remaining >= threshold) seen_docs.push_back(doc);
        }
        std::sort(seen_docs.begin(), seen_docs.end());
      }
    }
    if (probing) {
      ENGRAM_RETURN_IF_ERROR(cursor.Open(t.blob).WithContext("posting list of '" + t.term + "'"));
      for (int64_t doc : seen_docs) {
        const Posting* p = cursor.NextGeq(doc);
        if (p == nullptr) break;
        if (p->doc != doc) continue;
        acc_score_[doc] += static_cast<float>(pq.Score(t, p->tf, p->dl));
      }
      ENGRAM_RETURN_IF_ERROR(cursor.status().WithContext("posting list of '" + t.term + "'"));
      // With fewer terms left, fewer candidates can still reach the answer.
      double remaining = 0;
      for (size_t j = i + 1; j < pq.terms.size(); ++j) remaining += pq.terms[j].ub;
      if (i + 1 < pq.terms.size()) {
        float threshold = PageScoreThreshold(seen_docs, query.limit, static_cast<float>(remaining), dropped,
                                             query.allowed_pages);
        seen_docs.erase(std::remove_if(seen_docs.begin(), seen_docs.end(),
                                       [&](int64_t doc) { return acc_score_[doc] + remaining < threshold; }),
                        seen_docs.end());
      }
      continue;
    }
    ENGRAM_RETURN_IF_ERROR(DecodePostings(t.blob, &list).WithContext("posting list of '" + t.term + "'"));
    if (static_cast<size_t>(list.back().doc) >= acc_score_.size()) {
      size_t n = static_cast<size_t>(list.back().doc) + 1;
      n += n / 4;
      acc_score_.resize(n, 0.0f);
      acc_page_.resize(n, 0);
      acc_required_.resize(n, 0);
    }
    for (const Posting& p : list) {
      float& score = acc_score_[p.doc];
      if (score == 0.0f) touched_.push_back(p.doc);
      score += static_cast<float>(pq.Score(t, p.tf, p.dl));
      top_score = std::max(top_score, score);
      acc_page_[p.doc] = p.page;
      acc_required_[p.doc] |= t.bit;
    }
  }

  // Collect (and reset the accumulators), then keep the best chunks of the
  // best pages. Ties break on ids so that the same query always gives the
  // same order.
  std::vector<KeywordHit> cand;
  cand.reserve(touched_.size());
  for (int64_t doc : touched_) {
    float score = acc_score_[doc];
    int64_t page = acc_page_[doc];
    bool complete = (acc_required_[doc] & pq.all_required) == pq.all_required;
    acc_score_[doc] = 0;
    acc_required_[doc] = 0;
    if (!complete || Out(dropped, query.allowed_pages, page)) continue;
    cand.push_back({page, titles ? 0 : doc, score});
  }
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
  // Chunks kept per page, counted in a flat array (page ids are dense).
  std::vector<uint32_t>& per_page = page_counts_;
  std::vector<int64_t> counted;
  size_t pages = 0;
  const size_t per_page_limit = std::max<size_t>(query.chunks_per_page, 1);
  for (size_t i = 0; i < cand.size(); ++i) {
    if (i == head) {
      if (pages == query.limit) break;
      std::sort(cand.begin() + static_cast<long>(head), cand.end(), better);
    }
    const KeywordHit& h = cand[i];
    if (static_cast<size_t>(h.page_id) >= per_page.size()) per_page.resize(static_cast<size_t>(h.page_id) * 5 / 4 + 1, 0);
    uint32_t& n = per_page[h.page_id];
    if (n == 0) {
      if (pages == query.limit) continue;
      ++pages;
      counted.push_back(h.page_id);
    }
    if (n >= per_page_limit) continue;
    ++n;
    hits.push_back(h);
  }
  for (int64_t page : counted) per_page[page] = 0;
  return hits;
}

Result<std::vector<KeywordHit>> SqliteEngine::SearchChunks(const KeywordQuery& query) { return Search(query, false); }

Result<std::vector<KeywordHit>> SqliteEngine::SearchTitles(const KeywordQuery& query) { return Search(query, true); }

Result<std::vector<KeywordHit>> SqliteEngine::ScorePages(const KeywordQuery& query,
                                                         const std::vector<int64_t>& page_ids, bool titles) {
  std::vector<KeywordHit> hits;
  if (page_ids.empty()) return hits;
  ENGRAM_ASSIGN_OR_RETURN(PreparedQuery pq, PrepareQuery(query, titles));
  if (pq.impossible || pq.terms.empty()) return hits;
  std::unordered_set<int64_t> dropped;
  ENGRAM_RETURN_IF_ERROR(DroppedPages(query, titles, &dropped));

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
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT id FROM chunks WHERE page_id = ?"));
    q->Bind(1, page);
    while (q->Step()) docs.push_back({q->Int(0), page});
    ENGRAM_RETURN_IF_ERROR(q->status());
  }
  std::sort(docs.begin(), docs.end(), [](const Doc& a, const Doc& b) { return a.doc < b.doc; });
  PostingCursor cursor;
  for (const PreparedQuery::Term& t : pq.terms) {
    ENGRAM_RETURN_IF_ERROR(cursor.Open(t.blob).WithContext("posting list of '" + t.term + "'"));
    for (Doc& d : docs) {
      const Posting* p = cursor.NextGeq(d.doc);
      if (p == nullptr) break;
      if (p->doc != d.doc) continue;
      d.score += static_cast<float>(pq.Score(t, p->tf, p->dl));
      d.required |= t.bit;
    }
    ENGRAM_RETURN_IF_ERROR(cursor.status().WithContext("posting list of '" + t.term + "'"));
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

Result<std::vector<std::string>> SqliteEngine::PageAliases(int64_t page_id) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT alias FROM aliases WHERE page_id = ?1 ORDER BY alias"));
  q->Bind(1, page_id);
  std::vector<std::string> out;
  while (q->Step()) out.push_back(q->Text(0));
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

Result<std::vector<int64_t>> SqliteEngine::PagesNamed(std::string_view name, bool include_private) {
  ENGRAM_ASSIGN_OR_RETURN(
      Stmt * q, S("SELECT id FROM pages WHERE title = ?1 COLLATE NOCASE AND (?2 OR visibility = 'public') "
                  "UNION SELECT a.page_id FROM aliases a JOIN pages p ON p.id = a.page_id "
                  "WHERE a.alias = ?1 COLLATE NOCASE AND (?2 OR p.visibility = 'public') ORDER BY 1"));
  q->Bind(1, name).Bind(2, int64_t{include_private ? 1 : 0});
  std::vector<int64_t> out;
  while (q->Step()) out.push_back(q->Int(0));
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

Result<std::vector<PageNames>> SqliteEngine::AllPageNames(std::string_view source, bool include_private) {
  ENGRAM_ASSIGN_OR_RETURN(
      Stmt * q, S("SELECT p.slug, p.path, p.title, p.visibility, a.alias FROM pages p "
                  "JOIN sources s ON s.id = p.source_id LEFT JOIN aliases a ON a.page_id = p.id "
                  "WHERE s.name = ?1 AND (?2 OR p.visibility = 'public') ORDER BY p.slug, a.alias"));
  q->Bind(1, source).Bind(2, int64_t{include_private ? 1 : 0});
  std::vector<PageNames> out;
  while (q->Step()) {
    if (out.empty() || out.back().slug != q->Text(0)) {
      out.push_back({q->Text(0), q->Text(1), q->Text(2), {}, q->Text(3) == "private"});
    }
    if (!q->IsNull(4)) out.back().aliases.push_back(q->Text(4));
  }
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

namespace {
constexpr const char* kChunkColumns =
    "SELECT c.id, c.page_id, p.slug, p.title, p.type, p.path, c.source, c.text, c.line_start, c.line_end, "
    "p.visibility, p.updated_at FROM chunks c JOIN pages p ON p.id = c.page_id ";

ChunkRecord ReadChunk(const Stmt& q) {
  ChunkRecord r;
  r.chunk_id = q.Int(0);
  r.page_id = q.Int(1);
  r.slug = q.Text(2);
  r.title = q.Text(3);
  r.type = q.Text(4);
  r.path = q.Text(5);
  r.chunk_source = q.Text(6);
  r.text = q.Text(7);
  r.line_start = static_cast<int>(q.Int(8));
  r.line_end = static_cast<int>(q.Int(9));
  r.is_private = q.Text(10) == "private";
  r.updated_at = q.Text(11);
  return r;
}
}  // namespace

Result<std::vector<ChunkRecord>> SqliteEngine::GetChunks(const std::vector<int64_t>& chunk_ids) {
  static const std::string sql = std::string(kChunkColumns) + "WHERE c.id = ?";
  std::vector<ChunkRecord> out;
  out.reserve(chunk_ids.size());
  for (int64_t id : chunk_ids) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(sql.c_str()));
    q->Bind(1, id);
    if (q->Step()) out.push_back(ReadChunk(*q));
    ENGRAM_RETURN_IF_ERROR(q->status());
  }
  return out;
}

Result<std::vector<ChunkRecord>> SqliteEngine::GetPageChunks(int64_t page_id) {
  static const std::string sql = std::string(kChunkColumns) + "WHERE c.page_id = ? ORDER BY c.ordinal";
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(sql.c_str()));
  q->Bind(1, page_id);
  std::vector<ChunkRecord> out;
  while (q->Step()) out.push_back(ReadChunk(*q));
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

}  // namespace engram::store::sqlite
