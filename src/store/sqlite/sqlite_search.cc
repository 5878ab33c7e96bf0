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

struct Accumulator {
  float score = 0;
  int64_t page_id = 0;
  uint64_t required_seen = 0;
};

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

  const char* postings_sql = titles ? "SELECT page_id, page_id, tf, dl FROM title_postings WHERE term_id = ?"
                                    : "SELECT chunk_id, page_id, tf, dl FROM postings WHERE term_id = ?";
  std::unordered_map<int64_t, Accumulator> acc;
  acc.reserve(4096);
  const double k1 = query.k1, b = query.b;
  size_t required_bit = 0;
  for (const QueryTerm& t : terms) {
    uint64_t bit = 0;
    if (t.required) bit = uint64_t{1} << required_bit++;
    auto tid = LookupTermId(t.term);
    if (!tid.ok()) {
      if (tid.status().code() != StatusCode::kNotFound) return tid.status();
      if (t.required) return hits;  // a required term that never occurs: nothing matches
      continue;
    }
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(postings_sql));
    q->Bind(1, *tid);
    struct Row {
      int64_t doc, page;
      int64_t tf, dl;
    };
    std::vector<Row> rows;
    while (q->Step()) rows.push_back({q->Int(0), q->Int(1), q->Int(2), q->Int(3)});
    ENGRAM_RETURN_IF_ERROR(q->status());
    if (rows.empty()) {
      if (t.required) return hits;
      continue;
    }
    double df = static_cast<double>(rows.size());
    double idf = std::log(1.0 + (n_docs - df + 0.5) / (df + 0.5));
    double w = idf * t.weight;
    for (const Row& r : rows) {
      double tf = static_cast<double>(r.tf);
      double norm = k1 * (1.0 - b + b * static_cast<double>(r.dl) / avgdl);
      Accumulator& a = acc[r.doc];
      a.score += static_cast<float>(w * tf * (k1 + 1.0) / (tf + norm));
      a.page_id = r.page;
      a.required_seen |= bit;
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
      ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(postings_sql));
      q->Bind(1, *tid);
      while (q->Step()) {
        auto& s = seen[q->Int(0)];
        s.first++;
        s.second = q->Int(1);
      }
      ENGRAM_RETURN_IF_ERROR(q->status());
    }
    if (missing || group_terms == 0) continue;
    for (const auto& [doc, s] : seen) {
      if (s.first == group_terms) dropped.insert(s.second);
    }
  }
  if (!query.include_private) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT id FROM pages WHERE visibility = 'private'"));
    while (q->Step()) dropped.insert(q->Int(0));
    ENGRAM_RETURN_IF_ERROR(q->status());
  }

  // Best chunks per page, then the best pages. Ties break on ids so that the
  // same query always gives the same order.
  std::vector<KeywordHit> cand;
  cand.reserve(acc.size());
  for (const auto& [doc, a] : acc) {
    if ((a.required_seen & all_required) != all_required) continue;
    if (dropped.count(a.page_id)) continue;
    cand.push_back({a.page_id, titles ? 0 : doc, a.score});
  }
  auto better = [](const KeywordHit& x, const KeywordHit& y) {
    if (x.score != y.score) return x.score > y.score;
    if (x.page_id != y.page_id) return x.page_id < y.page_id;
    return x.chunk_id < y.chunk_id;
  };
  std::sort(cand.begin(), cand.end(), better);
  std::unordered_map<int64_t, size_t> per_page;
  size_t pages = 0;
  const size_t per_page_limit = std::max<size_t>(query.chunks_per_page, 1);
  for (const KeywordHit& h : cand) {
    size_t& n = per_page[h.page_id];
    if (n == 0) {
      if (pages == query.limit) continue;
      ++pages;
    }
    if (n >= per_page_limit) continue;
    ++n;
    hits.push_back(h);
  }
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
