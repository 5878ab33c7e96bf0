#include "search/keyword_search.h"

#include "search/intent.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "bm25/searcher.h"
#include "common/utf8.h"
#include "search/dated.h"
#include "search/hits.h"
#include "search/intent.h"
#include "search/query_parser.h"
#include "text/analyzer.h"

namespace engram::search {

namespace {

using Clock = std::chrono::steady_clock;

bool IsCjkUnigram(const std::string& term) {
  size_t i = 0;
  char32_t cp = common::DecodeUtf8(term, &i);
  return i == term.size() && common::IsCjk(cp);
}

bool IsCjkBigram(const std::string& term) {
  size_t i = 0;
  char32_t a = common::DecodeUtf8(term, &i);
  if (i >= term.size() || !common::IsCjk(a)) return false;
  char32_t b = common::DecodeUtf8(term, &i);
  return i == term.size() && common::IsCjk(b);
}

// The terms that must all be present for a clause to match: words, CJK
// bigrams, and CJK characters that no bigram covers (one-character runs).
std::vector<text::Token> MatchingTokens(const std::vector<text::Token>& tokens) {
  std::set<uint32_t> bigram_positions;
  for (const auto& t : tokens) {
    if (IsCjkBigram(t.term)) bigram_positions.insert(t.position);
  }
  std::vector<text::Token> out;
  for (const auto& t : tokens) {
    if (IsCjkUnigram(t.term) &&
        (bigram_positions.count(t.position) || (t.position > 0 && bigram_positions.count(t.position - 1)))) {
      continue;
    }
    out.push_back(t);
  }
  return out;
}

// A text analysed once, so that several phrases are checked against it
// without analysing it again for each.
class PhraseIndex {
 public:
  explicit PhraseIndex(std::string_view text) {
    std::vector<text::Token> tokens;
    text::Analyze(text, &tokens);
    for (const auto& t : tokens) where_.emplace(t.term, t.position);
  }
  // True when every phrase token appears at the same offset from some start.
  bool Contains(const std::vector<text::Token>& phrase) const {
    if (phrase.empty()) return true;
    const uint32_t base = phrase.front().position;
    auto range = where_.equal_range(phrase.front().term);
    for (auto it = range.first; it != range.second; ++it) {
      const uint32_t start = it->second;
      bool all = true;
      for (size_t k = 1; k < phrase.size() && all; ++k) {
        const uint32_t want = start + (phrase[k].position - base);
        auto r = where_.equal_range(phrase[k].term);
        all = std::any_of(r.first, r.second, [&](const auto& p) { return p.second == want; });
      }
      if (all) return true;
    }
    return false;
  }

 private:
  std::multimap<std::string, uint32_t> where_;
};

bool SamePhrase(const std::vector<text::Token>& a, const std::vector<text::Token>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].term != b[i].term || a[i].position - a[0].position != b[i].position - b[0].position) return false;
  }
  return true;
}

// Adds phrase unless an equal one is there: a query repeating one phrase
// costs what the phrase once costs.
void AddPhrase(std::vector<std::vector<text::Token>>* phrases, std::vector<text::Token> phrase) {
  for (const auto& p : *phrases) {
    if (SamePhrase(p, phrase)) return;
  }
  phrases->push_back(std::move(phrase));
}

struct PageScore {
  PageId page_id;
  ChunkId chunk_id;
  float chunk_score = 0;
  float title_score = 0;
  int chunk_rank = -1;
  int title_rank = -1;
  bool name_match = false;  // the query is this page's title or an alias
  float score = 0;
};

void SortByScore(std::vector<PageScore>* pages) {
  std::sort(pages->begin(), pages->end(), [](const PageScore& a, const PageScore& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.page_id < b.page_id;
  });
}

// Weight of a question frame's terms (search/intent.h QuestionSubject)
// against the 1 of the terms of what the question asks about.
constexpr float kQuestionFrameWeight = 0.05f;

// Deepest an arm goes before the answer is accepted as it stands.
constexpr size_t kMaxArmDepth = 100000;

struct QueryPlan {
  const KeywordQuery* query;
  const std::vector<std::vector<text::Token>>* phrases;           // must appear in order
  const std::vector<std::vector<text::Token>>* excluded_phrases;  // must not appear
  bool constrained;                                                // +required words or phrases
  float title_weight;
};

struct FusedArms {
  std::vector<PageScore> ranked;  // by fused score, best first
  bool truncated = false;         // an arm stopped at its depth
  float unseen_bound = 0;         // no page outside both arms can score above this
};

// The hits whose chunk text holds every phrase, words in order.
Result<std::vector<KeywordHit>> WithEveryPhrase(Engine& engine, const ReadScope& scope,
                                                const std::vector<std::vector<text::Token>>& phrases,
                                                std::vector<KeywordHit> hits) {
  std::vector<ChunkId> ids;
  for (const auto& h : hits) ids.push_back(h.chunk_id);
  ENGRAM_ASSIGN_OR_RETURN(std::vector<ChunkRecord> records, engine.GetChunks(scope, ids));
  std::unordered_map<ChunkId, const ChunkRecord*> by_id;
  for (const auto& r : records) by_id[r.chunk_id] = &r;
  std::vector<KeywordHit> kept;
  for (const auto& h : hits) {
    auto it = by_id.find(h.chunk_id);
    if (it == by_id.end()) continue;
    const PhraseIndex text(it->second->text);
    if (std::all_of(phrases.begin(), phrases.end(), [&](const auto& p) { return text.Contains(p); })) kept.push_back(h);
  }
  return kept;
}

// Whether any chunk of the page holds one of the phrases.
Result<bool> HasAnyPhrase(Engine& engine, const std::vector<std::vector<text::Token>>& phrases, PageId page_id) {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<ChunkRecord> chunks, engine.GetPageChunks(page_id));
  return std::any_of(chunks.begin(), chunks.end(), [&](const ChunkRecord& c) {
    const PhraseIndex text(c.text);
    return std::any_of(phrases.begin(), phrases.end(), [&](const auto& phrase) { return text.Contains(phrase); });
  });
}

// The chunk arm and the title/alias arm, each cut at `depth` pages, fused as
// chunk + title_weight * title. A page found by one arm only gets its exact
// score in the other from bm25::Searcher::ScorePages, so every fused score is exact;
// pages found by neither score at most unseen_bound.
Result<FusedArms> FuseArms(Engine& engine, bm25::Searcher& bm25, const QueryPlan& plan, size_t depth) {
  FusedArms out;
  KeywordQuery kq = *plan.query;
  const bool check_order = !plan.phrases->empty() || !plan.excluded_phrases->empty();
  kq.limit = check_order ? depth * 3 : depth;
  kq.chunks_per_page = plan.phrases->empty() ? 1 : 3;
  ENGRAM_ASSIGN_OR_RETURN(std::vector<KeywordHit> chunk_hits, bm25.SearchChunks(kq));
  std::set<PageId> chunk_pages_seen;
  for (const auto& h : chunk_hits) chunk_pages_seen.insert(h.page_id);
  float chunk_floor = 0;
  if (chunk_pages_seen.size() >= kq.limit && !chunk_hits.empty()) {
    out.truncated = true;
    chunk_floor = chunk_hits.back().score;
  }
  if (!plan.phrases->empty()) {
    ENGRAM_ASSIGN_OR_RETURN(chunk_hits, WithEveryPhrase(engine, ReadScope{"", kq.include_private}, *plan.phrases, std::move(chunk_hits)));
  }
  std::unordered_map<PageId, PageScore> pages;
  pages.reserve(chunk_hits.size() * 2 + 16);
  std::vector<PageId> order;
  int rank = 0;
  for (const auto& h : chunk_hits) {
    auto [it, inserted] = pages.try_emplace(h.page_id);
    if (!inserted) continue;  // keep the best chunk of a page
    it->second.page_id = h.page_id;
    it->second.chunk_id = h.chunk_id;
    it->second.chunk_score = h.score;
    it->second.chunk_rank = rank++;
    order.push_back(h.page_id);
  }
  const size_t chunk_pages = order.size();

  // Title/alias arm. It may add pages only when nothing is required: with
  // +words or phrases a page must match in its text.
  float title_floor = 0;
  if (plan.title_weight > 0) {
    KeywordQuery tq = kq;
    for (auto& t : tq.terms) t.required = false;
    tq.limit = depth;
    tq.chunks_per_page = 1;
    ENGRAM_ASSIGN_OR_RETURN(std::vector<KeywordHit> title_hits, bm25.SearchTitles(tq));
    if (title_hits.size() >= depth && !title_hits.empty()) {
      out.truncated = true;
      title_floor = title_hits.back().score;
    }
    std::vector<PageId> title_only;
    int trank = 0;
    for (const auto& h : title_hits) {
      auto it = pages.find(h.page_id);
      if (it == pages.end()) {
        if (plan.constrained) continue;
        it = pages.try_emplace(h.page_id).first;
        it->second.page_id = h.page_id;
        order.push_back(h.page_id);
        title_only.push_back(h.page_id);
      }
      it->second.title_score = h.score;
      it->second.title_rank = trank++;
    }
    // Complete each page's missing arm.
    ENGRAM_ASSIGN_OR_RETURN(std::vector<KeywordHit> text_scores,
                            bm25.ScorePages(kq, title_only, PostingField::kChunks));
    for (const auto& h : text_scores) {
      pages[h.page_id].chunk_id = h.chunk_id;
      pages[h.page_id].chunk_score = h.score;
    }
    if (title_floor > 0) {
      std::vector<PageId> text_only;
      for (size_t i = 0; i < chunk_pages; ++i) {
        if (pages[order[i]].title_rank < 0) text_only.push_back(order[i]);
      }
      ENGRAM_ASSIGN_OR_RETURN(std::vector<KeywordHit> title_scores,
                              bm25.ScorePages(tq, text_only, PostingField::kTitles));
      for (const auto& h : title_scores) pages[h.page_id].title_score = h.score;
    }
  }
  out.unseen_bound = chunk_floor + plan.title_weight * title_floor;

  for (const PageId id : order) {
    PageScore p = pages[id];
    p.score = p.chunk_score + plan.title_weight * p.title_score;
    if (!plan.excluded_phrases->empty()) {
      ENGRAM_ASSIGN_OR_RETURN(bool excluded, HasAnyPhrase(engine, *plan.excluded_phrases, id));
      if (excluded) continue;
    }
    out.ranked.push_back(p);
  }
  SortByScore(&out.ranked);
  return out;
}

}  // namespace

namespace {

// A keyword query as the arms take it: terms with weights, required and
// excluded words, phrases checked on the results, and the terms --explain shows.
struct ParsedQuery {
  KeywordQuery kq;
  std::vector<std::vector<text::Token>> phrases;
  std::vector<std::vector<text::Token>> excluded_phrases;
  std::vector<std::string> explain_terms;
  bool constrained = false;
};

Result<ParsedQuery> ParseKeywordQuery(std::string_view query, const SearchOptions& options) {
  ParsedQuery out;
  KeywordQuery& kq = out.kq;
  kq.include_private = options.include_private;
  kq.k1 = options.bm25_k1;
  kq.b = options.bm25_b;
  auto& phrases = out.phrases;
  auto& excluded_phrases = out.excluded_phrases;
  auto& explain_terms = out.explain_terms;
  bool& constrained = out.constrained;
  // The question frame ("是什么", "what is") weighs little, so that it never
  // outweighs what the question is about ("MCP 是什么" finds the MCP notes).
  std::set<std::string> subject_terms;
  {
    std::vector<text::Token> subject;
    text::Analyze(QuestionSubject(query), &subject);
    for (const auto& t : subject) subject_terms.insert(t.term);
  }
  auto weight_of = [&](const std::string& term) {
    return subject_terms.empty() || subject_terms.count(term) ? 1.0f : kQuestionFrameWeight;
  };
  for (const QueryClause& c : ParseQuery(query)) {
    std::vector<text::Token> tokens;
    text::Analyze(c.text, &tokens);
    if (tokens.empty()) continue;
    switch (c.kind) {
      case QueryClause::Kind::kShould:
        for (auto& t : tokens) {
          explain_terms.push_back(t.term);
          kq.terms.push_back({t.term, c.phrase ? 1.0f : weight_of(t.term), false});
        }
        break;
      case QueryClause::Kind::kRequired: {
        constrained = true;
        std::vector<text::Token> must = MatchingTokens(tokens);
        for (auto& t : tokens) {
          bool req = std::any_of(must.begin(), must.end(), [&](const text::Token& m) { return m.term == t.term; });
          explain_terms.push_back(req ? "+" + t.term : t.term);
          kq.terms.push_back({t.term, 1.0f, req});
        }
        if (c.phrase && must.size() > 1) AddPhrase(&phrases, std::move(must));
        break;
      }
      case QueryClause::Kind::kExcluded: {
        std::vector<text::Token> must = MatchingTokens(tokens);
        for (auto& t : must) explain_terms.push_back("-" + t.term);
        if (c.phrase && must.size() > 1) {
          AddPhrase(&excluded_phrases, std::move(must));  // word order is checked on the results
        } else {
          std::vector<std::string> group;
          for (auto& t : must) group.push_back(t.term);
          kq.excluded_groups.push_back(std::move(group));
        }
        break;
      }
    }
  }
  // Bounded cost: limits checked before any list is read.
  if (phrases.size() + excluded_phrases.size() > kMaxQueryPhrases) {
    return Status::InvalidArgument("query has " + std::to_string(phrases.size() + excluded_phrases.size()) +
                                   " distinct quoted phrases; at most " + std::to_string(kMaxQueryPhrases));
  }
  if (kq.excluded_groups.size() > kMaxExcludedGroups) {
    return Status::InvalidArgument("query excludes " + std::to_string(kq.excluded_groups.size()) +
                                   " words or groups; at most " + std::to_string(kMaxExcludedGroups));
  }
  if (kq.terms.empty()) {
    if (query.find_first_not_of(" \t\r\n") == std::string_view::npos) return Status::InvalidArgument("query is empty");
    const bool only_exclusions = !kq.excluded_groups.empty() || !excluded_phrases.empty();
    return Status::InvalidArgument(only_exclusions
                                       ? "query only excludes words ('-word'); add a word to look for, or quote it "
                                         "(\"-word\") to search for the word itself"
                                       : "query has no searchable words (only punctuation, stop words or exclusions)");
  }
  return out;
}

// A query that is exactly a page's title or alias ("Zhang San", "RRF"), or
// an entity question naming one ("who is Zhang San", "谁是张三"), puts that
// page first: a person asking for a name wants that page.
Status BoostNamedPages(Engine& engine, std::string_view query, const SearchOptions& options,
                       const PageSelector* allowed, std::vector<PageScore>* ranked_out) {
  std::vector<PageScore>& ranked = *ranked_out;
  std::string trimmed(query.substr(std::min(query.find_first_not_of(" \t\r\n"), query.size())));
  trimmed.erase(trimmed.find_last_not_of(" \t\r\n") + 1);
  // Query syntax (a quote, a word starting with + or -) is no name; a '+' or
  // '-' inside or after a word is ("C++", "2024-03-01").
  bool syntax = trimmed.find('"') != std::string::npos;
  for (size_t i = 0; i < trimmed.size() && !syntax; ++i) {
    syntax = (trimmed[i] == '+' || trimmed[i] == '-') && (i == 0 || trimmed[i - 1] == ' ' || trimmed[i - 1] == '\t');
  }
  if (!trimmed.empty() && !syntax) {
    // "<name>是什么" / "what is <name>" names the page as much as "<name>" does.
    const std::string name = ClassifyIntent(trimmed) == Intent::kEntity ? EntityName(trimmed) : QuestionSubject(trimmed);
    ENGRAM_ASSIGN_OR_RETURN(std::vector<PageId> named,
                            engine.PagesNamed(options.Reading(), name.empty() ? trimmed : name));
    float best = ranked.empty() ? 0.0f : ranked.front().score;
    for (const PageId id : named) {
      if (allowed != nullptr && !allowed->Contains(id)) continue;
      auto it = std::find_if(ranked.begin(), ranked.end(), [&](const PageScore& p) { return p.page_id == id; });
      if (it == ranked.end()) {
        ranked.push_back({});
        it = ranked.end() - 1;
        it->page_id = id;
      }
      it->name_match = true;
      it->score += best;
    }
    SortByScore(&ranked);
  }
  return Status::Ok();
}

// The hits to show: the best chunk of each page, or a title-only page's first chunk.
Result<std::vector<SearchHit>> HitsOf(Engine& engine, std::vector<PageScore>& ranked, const SearchOptions& options,
                                      const std::vector<std::string>& explain_terms) {
  std::vector<SearchHit> out;
  std::vector<ChunkId> chunk_ids;
  for (auto& p : ranked) {
    if (!p.chunk_id.valid()) {
      ENGRAM_ASSIGN_OR_RETURN(std::vector<ChunkRecord> first, engine.GetPageChunks(p.page_id));
      if (!first.empty()) p.chunk_id = first.front().chunk_id;
    }
    if (p.chunk_id.valid()) chunk_ids.push_back(p.chunk_id);
  }
  ENGRAM_ASSIGN_OR_RETURN(std::vector<ChunkRecord> records, engine.GetChunks(options.Reading(), chunk_ids));
  std::unordered_map<ChunkId, const ChunkRecord*> by_id;
  for (const auto& r : records) by_id[r.chunk_id] = &r;
  for (const auto& p : ranked) {
    auto it = by_id.find(p.chunk_id);
    if (it == by_id.end()) continue;  // a page without chunks (empty body) and no text to show
    const ChunkRecord& r = *it->second;
    SearchHit hit = HitFromChunk(r, p.score);
    if (options.explain) {
      hit.explain.chunk_score = p.chunk_score;
      hit.explain.title_score = p.title_score;
      hit.explain.chunk_rank = p.chunk_rank;
      hit.explain.title_rank = p.title_rank;
      hit.explain.name_match = p.name_match;
      hit.explain.terms = explain_terms;
    }
    out.push_back(std::move(hit));
  }
  return out;
}

}  // namespace

Result<SearchResponse> KeywordSearch(Engine& engine, std::string_view query, const SearchOptions& options) {
  auto start = Clock::now();
  SearchResponse response;
  response.query = std::string(query);
  if (!common::IsValidUtf8(query)) return Status::InvalidArgument("query is not valid UTF-8");
  bm25::Searcher bm25(engine.Postings());  // one per search: its buffers serve every deepening
  ENGRAM_ASSIGN_OR_RETURN(ParsedQuery parsed, ParseKeywordQuery(query, options));
  KeywordQuery& kq = parsed.kq;

  // Filters (folder, tag, type, dates, source) narrow the pages every arm may return.
  std::optional<IdListSelector<PageId>> allowed;
  if (!options.filter.Unrestricted()) {
    ChunkFilter f = options.filter;
    f.include_private = options.include_private;
    ENGRAM_ASSIGN_OR_RETURN(std::vector<PageId> pages, engine.FilterPages(f));
    allowed.emplace(std::move(pages));
    kq.allowed_pages = &*allowed;
  }

  const size_t limit = std::max<size_t>(options.limit, 1);
  QueryPlan plan{&kq, &parsed.phrases, &parsed.excluded_phrases, parsed.constrained, options.title_weight};
  // Shallow arms first; deeper only when pages neither arm reached could
  // still outrank the limit-th result.
  std::vector<PageScore> ranked;
  const auto deadline = start + std::chrono::milliseconds(options.time_budget_ms);
  for (size_t depth = limit * 3 + 10;; depth *= 4) {
    ENGRAM_ASSIGN_OR_RETURN(FusedArms fused, FuseArms(engine, bm25, plan, depth));
    ranked = std::move(fused.ranked);
    bool exact = !fused.truncated || (ranked.size() >= limit && ranked[limit - 1].score >= fused.unseen_bound);
    if (exact || depth >= kMaxArmDepth || !options.exact_keyword) break;
    if (options.time_budget_ms > 0 && Clock::now() >= deadline) {
      response.notes.push_back("time budget of " + std::to_string(options.time_budget_ms) +
                               " ms reached: the ranking may miss pages a deeper search would find");
      break;
    }
  }

  ENGRAM_RETURN_IF_ERROR(BoostNamedPages(engine, query, options, kq.allowed_pages, &ranked));
  // A question about time ("when did…", "……是什么时候"): of every page ranked,
  // those whose best chunk writes a date are worth more (search/dated.h).
  const bool temporal = ClassifyIntent(query) == Intent::kTemporal;
  if (!temporal && ranked.size() > limit) ranked.resize(limit);
  ENGRAM_ASSIGN_OR_RETURN(response.results, HitsOf(engine, ranked, options, parsed.explain_terms));
  if (temporal) {
    PreferDatedHits(&response.results);
    if (response.results.size() > limit) response.results.resize(limit);
  }
  response.took_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return response;
}

}  // namespace engram::search
