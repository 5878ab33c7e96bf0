// BM25 over the postings tables.
//
// Each query term's postings are read in one clustered range scan; the
// document frequency is the number of postings read. Scores accumulate per
// chunk (term-at-a-time), then the best chunks of the best pages are kept.
#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "store/sqlite/sqlite_engine.h"

namespace engram::store::sqlite {

namespace {

constexpr size_t kMaxRequiredTerms = 64;

}  // namespace

Result<std::vector<KeywordHit>> SqliteEngine::Search(const KeywordQuery& query, bool titles) {
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
  std::vector<KeywordHit> hits;
  if (terms.empty()) return hits;

  ENGRAM_ASSIGN_OR_RETURN(Stmt * stats, S("SELECT chunks, chunk_tokens, titles, title_tokens FROM corpus_stats WHERE id = 1"));
  if (!stats->Step()) {
    ENGRAM_RETURN_IF_ERROR(stats->status());
    return Status::Corruption("corpus_stats row is missing");
  }
  double n_docs = static_cast<double>(titles ? stats->Int(2) : stats->Int(0));
  double tokens = static_cast<double>(titles ? stats->Int(3) : stats->Int(1));
  stats->Reset();
  if (n_docs <= 0) return hits;
  double avgdl = std::max(tokens / n_docs, 1.0);

  // Doc ids are dense (chunk and page ids from SQLite), so scores accumulate
  // in flat arrays instead of a hash map. Every contribution is positive
  // (idf > 0, tf >= 1, weight > 0), so a zero score means "not touched yet".
  const double k1 = query.k1, b = query.b;
  size_t required_bit = 0;
  std::vector<Posting> list;
  touched_.clear();
  for (const QueryTerm& t : terms) {
    uint64_t bit = 0;
    if (t.required) bit = uint64_t{1} << required_bit++;
    auto tid = LookupTermId(t.term);
    if (!tid.ok() && tid.status().code() != StatusCode::kNotFound) return tid.status();
    list.clear();
    if (tid.ok()) {
      ENGRAM_RETURN_IF_ERROR(ReadPostings(*tid, titles, &list).WithContext("posting list of '" + t.term + "'"));
    }
    if (list.empty()) {
      if (t.required) {
        for (int64_t d : touched_) acc_score_[d] = 0, acc_required_[d] = 0;
        return hits;  // a required term that never occurs: nothing matches
      }
      continue;
    }
    if (static_cast<size_t>(list.back().doc) >= acc_score_.size()) {
      size_t n = static_cast<size_t>(list.back().doc) + 1;
      n += n / 4;
      acc_score_.resize(n, 0.0f);
      acc_page_.resize(n, 0);
      acc_required_.resize(n, 0);
    }
    double df = static_cast<double>(list.size());
    double idf = std::log(1.0 + (n_docs - df + 0.5) / (df + 0.5));
    double w = idf * t.weight * (k1 + 1.0);
    double len_norm = k1 * b / avgdl;
    double base = k1 * (1.0 - b);
    for (const Posting& p : list) {
      double tf = static_cast<double>(p.tf);
      float& score = acc_score_[p.doc];
      if (score == 0.0f) touched_.push_back(p.doc);
      score += static_cast<float>(w * tf / (tf + base + len_norm * static_cast<double>(p.dl)));
      acc_page_[p.doc] = p.page;
      acc_required_[p.doc] |= bit;
    }
  }
  const uint64_t all_required = required_count == 64 ? ~uint64_t{0} : (uint64_t{1} << required_count) - 1;

  // Pages to drop: excluded groups, and private pages unless allowed.
  std::unordered_set<int64_t> dropped;
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
      if (s.first == group_terms) dropped.insert(s.second);
    }
  }
  if (!query.include_private) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT id FROM pages INDEXED BY pages_private WHERE visibility = 'private'"));
    while (q->Step()) dropped.insert(q->Int(0));
    ENGRAM_RETURN_IF_ERROR(q->status());
  }

  // Best chunks per page, then the best pages. Ties break on ids so that the
  // same query always gives the same order.
  std::vector<KeywordHit> cand;
  cand.reserve(touched_.size());
  for (int64_t doc : touched_) {
    float score = acc_score_[doc];
    int64_t page = acc_page_[doc];
    bool complete = (acc_required_[doc] & all_required) == all_required;
    acc_score_[doc] = 0;
    acc_required_[doc] = 0;
    if (!complete || dropped.count(page)) continue;
    cand.push_back({page, titles ? 0 : doc, score});
  }
  auto better = [](const KeywordHit& x, const KeywordHit& y) {
    if (x.score != y.score) return x.score > y.score;
    if (x.page_id != y.page_id) return x.page_id < y.page_id;
    return x.chunk_id < y.chunk_id;
  };
  // Sort only as much as the answer needs; fall back to a full sort when
  // many chunks of the same pages crowd the head.
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
    if (n == 0) counted.push_back(h.page_id);
    if (n == 0) {
      if (pages == query.limit) continue;
      ++pages;
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

namespace {
constexpr const char* kChunkColumns =
    "SELECT c.id, c.page_id, p.slug, p.title, p.type, p.path, c.source, c.text, c.line_start, c.line_end, "
    "p.visibility FROM chunks c JOIN pages p ON p.id = c.page_id ";

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
