#include "search/hybrid.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "bm25/searcher.h"
#include "common/utf8.h"
#include "search/dated.h"
#include "search/confidence.h"
#include "search/dedup.h"
#include "search/fusion.h"
#include "search/intent.h"
#include "search/keyword_search.h"
#include "search/hits.h"
#include "search/query_parser.h"
#include "text/analyzer.h"

namespace engram::search {

namespace {

using Clock = std::chrono::steady_clock;

// The entity-name list outweighs any two other arms at rank 0.
constexpr double kNameWeight = 3.0;

double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct Arms {
  std::vector<RankedList> lists;
  std::vector<std::pair<std::string, double>> stage_ms;
  std::unordered_map<PageId, ChunkId> page_chunk;  // page -> its best chunk in the keyword arm
  std::unordered_map<PageId, std::string> page_title;  // page -> its title, for pages of the keyword arm
  std::vector<std::pair<std::string, double>> confidence;
  std::vector<std::string> notes;
};

bool Allowed(const ChunkSelector* allowed, ChunkId chunk) {
  return allowed == nullptr || allowed->Contains(chunk);
}

Status KeywordArms(Engine& engine, std::string_view query, const SearchOptions& options, size_t depth,
                   Intent intent, const ArmWeights& w, const ChunkSelector* allowed, bool vector_on,
                   Arms* arms) {
  auto t0 = Clock::now();
  SearchOptions ko = options;
  ko.limit = depth;
  // The keyword arm ranks as keyword mode does (chunks and titles/aliases by
  // BM25): with no other arm confident, hybrid search is keyword search.
  ko.explain = false;
  ko.exact_keyword = false;
  auto kr = KeywordSearch(engine, query, ko);
  arms->stage_ms.push_back({"keyword", MsSince(t0)});
  t0 = Clock::now();
  if (!kr.ok()) {
    // A query of stop words or punctuation still has a meaning to embed.
    if (kr.status().code() != StatusCode::kInvalidArgument || !vector_on) return kr.status();
    arms->notes.push_back("keyword arm off: " + kr.status().message());
    return Status::Ok();
  }
  // An entity question naming a page's title or alias ("who is Zhang San")
  // puts that page on a list of its own, weighted above the others.
  if (intent == Intent::kEntity) {
    const std::string name = EntityName(query);
    if (!name.empty()) {
      ENGRAM_ASSIGN_OR_RETURN(std::vector<PageId> named, engine.PagesNamed(options.Reading(), name));
      RankedList list{"name", kNameWeight, {}, {}};
      for (const PageId page : named) {
        ENGRAM_ASSIGN_OR_RETURN(std::vector<ChunkRecord> chunks, engine.GetPageChunks(page));
        if (!chunks.empty() && Allowed(allowed, chunks.front().chunk_id)) list.ids.push_back(chunks.front().chunk_id.value());
      }
      if (!list.ids.empty()) arms->lists.push_back(std::move(list));
    }
  }
  RankedList keyword{"keyword", w.keyword, {}, {}};
  for (const SearchHit& h : kr->results) {
    if (!Allowed(allowed, h.chunk_id)) continue;
    keyword.ids.push_back(h.chunk_id.value());
    arms->page_chunk.emplace(h.page_id, h.chunk_id);
    arms->page_title.emplace(h.page_id, h.title);
  }
  arms->lists.push_back(std::move(keyword));
  // Title/alias arm: the query's words (without the query syntax) against
  // titles and aliases; a page stands in with its best keyword chunk, else
  // its first chunk, and counts by the share of the query its title holds.
  KeywordQuery tq;
  tq.include_private = options.include_private;
  tq.k1 = options.bm25_k1;
  tq.b = options.bm25_b;
  tq.limit = depth;
  for (const QueryClause& c : ParseQuery(query)) {
    if (c.kind == QueryClause::Kind::kExcluded) continue;
    for (std::string& t : text::AnalyzeTerms(c.text)) tq.terms.push_back({std::move(t), 1.0f, false});
  }
  if (tq.terms.empty()) return Status::Ok();
  ENGRAM_ASSIGN_OR_RETURN(std::vector<KeywordHit> titles, bm25::Searcher(engine.Postings()).SearchTitles(tq));
  RankedList title{"title", w.title, {}, {}};
  std::vector<std::string> query_terms;
  for (const QueryTerm& t : tq.terms) query_terms.push_back(t.term);
  for (const KeywordHit& h : titles) {
    ChunkId chunk;
    std::string page_title;
    if (auto it = arms->page_chunk.find(h.page_id); it != arms->page_chunk.end()) {
      chunk = it->second;
      page_title = arms->page_title[h.page_id];
    } else {
      ENGRAM_ASSIGN_OR_RETURN(std::vector<ChunkRecord> chunks, engine.GetPageChunks(h.page_id));
      if (chunks.empty()) continue;
      chunk = chunks.front().chunk_id;
      page_title = chunks.front().title;
    }
    if (!Allowed(allowed, chunk)) continue;
    std::vector<std::vector<std::string>> names{text::AnalyzeTerms(page_title)};
    ENGRAM_ASSIGN_OR_RETURN(std::vector<std::string> aliases, engine.PageAliases(h.page_id));
    for (const std::string& alias : aliases) names.push_back(text::AnalyzeTerms(alias));
    const double confidence = TitleConfidence(query_terms, names);
    if (confidence <= 0) continue;  // the query does not name this page
    title.ids.push_back(chunk.value());
    title.confidence.push_back(confidence);
  }
  arms->lists.push_back(std::move(title));
  arms->stage_ms.push_back({"title", MsSince(t0)});
  return Status::Ok();
}

}  // namespace

namespace {

// One vector arm per query vector (the query, then its LLM rewrites), each
// weighted by its confidence when keyword arms run beside it.
void AddVectorArms(const VectorQuery& vq, size_t depth, double weight, bool keyword_on,
                   const ChunkSelector* allowed, const IdNotInSelector<ChunkId>* hidden, Arms* out) {
  const IdAndSelector<ChunkId> visible_allowed(allowed, hidden);
  Arms& arms = *out;
  const auto tv = Clock::now();
  for (size_t i = 0; i < vq.vectors.size(); ++i) {
    RankedList list{i == 0 ? "vector" : "vector:" + std::to_string(i), weight, {}, {}};
    const float* q = vq.vectors[i].data();
    const auto neighbors = vq.arm->Search(q, depth, allowed == nullptr && hidden == nullptr ? nullptr : &visible_allowed);
    for (const auto& n : neighbors) list.ids.push_back(n.label);
    const double confidence =
        neighbors.empty() ? 0.0
                          : VectorConfidence(neighbors.front().score,
                                             vq.arm->SampleCosines(q, kBackgroundSample, hidden),
                                             vq.arm->VisibleSize(hidden));
    // Alone (vector mode) the arm ranks whatever its confidence.
    if (keyword_on) list.weight *= confidence;
    arms.confidence.push_back({list.arm, confidence});
    arms.lists.push_back(std::move(list));
  }
  arms.stage_ms.push_back({"vector", MsSince(tv)});
}

// A fused chunk with what --explain shows about it.
struct Scored {
  const Fused* fused;
  const ChunkRecord* record;
  SearchExplain explain;
};

// The arms fused (RRF), rescored by cosine, deduplicated, boosted by
// backlinks and cut to the limit; Scored points into fused and records.
struct Ranking {
  std::vector<Fused> fused;
  std::vector<ChunkRecord> records;
  std::unordered_map<int64_t, Scored> scored;
  std::vector<DedupCandidate> shown;
};

Status RankChunks(Engine& engine, const SearchOptions& options, const VectorQuery& vq, Intent intent,
                  bool vector_on, bool keyword_on, const Arms& arms, size_t limit, Ranking* out) {
  out->fused = ReciprocalRankFusion(arms.lists);
  const std::vector<Fused>& fused = out->fused;
  std::vector<ChunkId> ids;
  for (const Fused& f : fused) ids.emplace_back(f.id);
  ENGRAM_ASSIGN_OR_RETURN(out->records, engine.GetChunks(options.Reading(), ids));
  const std::vector<ChunkRecord>& records = out->records;
  std::unordered_map<int64_t, const ChunkRecord*> by_id;
  for (const ChunkRecord& r : records) by_id[r.chunk_id.value()] = &r;

  std::unordered_map<int64_t, Scored>& scored = out->scored;
  std::vector<DedupCandidate> candidates;
  for (const Fused& f : fused) {
    // Found only by arms that carry no weight (a vector arm without signal
    // beside the keyword arms): no arm vouches for it, so it is no hit.
    if (f.rrf <= 0) continue;
    auto it = by_id.find(f.id);
    if (it == by_id.end()) continue;  // deleted since the index saw it
    const ChunkRecord& r = *it->second;
    SearchExplain e;
    for (size_t li = 0; li < arms.lists.size(); ++li) e.arms.push_back({arms.lists[li].arm, f.rank[li], f.contribution[li]});
    e.rrf = f.rrf;
    e.boost = intent == Intent::kEntity && r.chunk_source == ChunkSource::kCompiledTruth ? kCompiledTruthBoost : 1.0;
    // A question about time: a chunk that writes a date (search/dated.h).
    if (intent == Intent::kTemporal && !ChunkDates(r.text).empty()) e.boost *= kDatedBoost;
    double score = f.rrf * e.boost;
    if (vector_on) {
      e.cosine_share = keyword_on ? kCosineWeight * arms.confidence.front().second : kCosineWeight;
      if (auto cos = vq.arm->Cosine(vq.vectors[0].data(), r.chunk_id)) {
        e.cosine = *cos;
        e.has_cosine = true;
      }
      score = Rescore(score, e.cosine, e.cosine_share);  // a chunk without a vector yet counts cosine 0
    }
    candidates.push_back({r.chunk_id.value(), r.page_id.value(), r.type, r.chunk_source == ChunkSource::kCompiledTruth, r.text, score});
    scored.emplace(r.chunk_id.value(), Scored{&f, &r, std::move(e)});
  }
  std::vector<DedupCandidate>& shown = out->shown;
  shown = Dedup(std::move(candidates), limit);
  std::vector<PageId> pages;
  for (const auto& c : shown) pages.emplace_back(c.page_id);
  ENGRAM_ASSIGN_OR_RETURN(auto backlinks, engine.BacklinkCounts(options.Reading(), pages));
  for (auto& c : shown) {
    auto it = backlinks.find(PageId(c.page_id));
    const int64_t n = it == backlinks.end() ? 0 : it->second;
    const double boosted = BacklinkBoost(c.score, n);
    SearchExplain& e = scored.at(c.chunk_id).explain;
    e.backlinks = n;
    e.backlink_factor = c.score > 0 ? boosted / c.score : 1.0;
    c.score = boosted;
  }
  std::stable_sort(shown.begin(), shown.end(), [](const DedupCandidate& a, const DedupCandidate& b) {
    return a.score > b.score;
  });
  if (shown.size() > limit) shown.resize(limit);
  return Status::Ok();
}

}  // namespace

Result<SearchResponse> HybridSearch(Engine& engine, std::string_view query, const SearchOptions& options,
                                    const VectorQuery& vq) {
  const auto start = Clock::now();
  SearchResponse response;
  response.query = std::string(query);
  response.mode = options.mode;
  if (!common::IsValidUtf8(query)) return Status::InvalidArgument("query is not valid UTF-8");
  if (query.find_first_not_of(" \t\r\n") == std::string_view::npos) return Status::InvalidArgument("query is empty");
  const bool vector_on = vq.arm != nullptr && !vq.vectors.empty();
  const bool keyword_on = options.mode != SearchMode::kVector;
  if (!vector_on && !keyword_on) {
    return Status::FailedPrecondition("vector search needs embeddings: " + vq.off_reason);
  }
  const Intent intent = ClassifyIntent(query);
  response.intent = IntentName(intent);
  const ArmWeights w = WeightsFor(intent);
  const size_t limit = std::max<size_t>(options.limit, 1);
  // Keyword arms stop at twice the limit (their cost grows with depth; a
  // rank past 20 adds under 1/80 to a fused score); the vector arm, cheap
  // per result, looks deeper.
  const size_t depth = std::max<size_t>(limit * 2, 20);
  const size_t vector_depth = std::max<size_t>(limit * 5, 50);

  std::optional<IdListSelector<ChunkId>> allowed;
  if (!options.filter.Unrestricted()) {
    ChunkFilter f = options.filter;
    f.include_private = f.include_private && options.include_private;
    ENGRAM_ASSIGN_OR_RETURN(std::vector<ChunkId> ids, engine.FilterChunks(f));
    allowed.emplace(std::move(ids));
  }

  // A caller who may not see private pages gets a vector arm, a chance
  // sample and a collection size without them: nothing it can observe
  // depends on private content.
  std::optional<IdNotInSelector<ChunkId>> hidden;
  if (vector_on && !options.include_private) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<ChunkId> ids, engine.PrivateChunkIds());
    hidden.emplace(std::move(ids));
  }

  Arms arms;
  if (keyword_on) ENGRAM_RETURN_IF_ERROR(KeywordArms(engine, query, options, depth, intent, w, allowed ? &*allowed : nullptr, vector_on, &arms));
  if (vector_on) {
    AddVectorArms(vq, vector_depth, w.vector, keyword_on, allowed ? &*allowed : nullptr, hidden ? &*hidden : nullptr,
                  &arms);
  } else {
    arms.notes.push_back("vector arm off: " + vq.off_reason);
  }

  const auto tf = Clock::now();
  Ranking ranking;
  ENGRAM_RETURN_IF_ERROR(RankChunks(engine, options, vq, intent, vector_on, keyword_on, arms, limit, &ranking));
  for (const auto& c : ranking.shown) {
    Scored& s = ranking.scored.at(c.chunk_id);
    const ChunkRecord& r = *s.record;
    SearchHit hit = HitFromChunk(r, static_cast<float>(c.score));
    // The page an entity question names shows its timeline too.
    const auto& lists = arms.lists;
    for (size_t li = 0; li < lists.size(); ++li) {
      if (lists[li].arm == "name" && s.fused->rank[li] >= 0) {
        ENGRAM_ASSIGN_OR_RETURN(hit.timeline, engine.Timeline(options.source, r.slug));
      }
    }
    if (options.explain) hit.explain = std::move(s.explain);
    response.results.push_back(std::move(hit));
  }
  arms.stage_ms.push_back({"fusion", MsSince(tf)});
  response.stage_ms = std::move(arms.stage_ms);
  response.notes = std::move(arms.notes);
  response.confidence = std::move(arms.confidence);
  response.took_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return response;
}

}  // namespace engram::search
