// Search requests and results, shared by the CLI, and later HTTP and MCP.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "engram/page.h"
#include "engram/store/id_selector.h"
#include "engram/store/read_scope.h"

namespace engram {

// Which chunks a search may return, by their page.
struct ChunkFilter {
  std::vector<std::string> types;  // any of these page types (empty: any)
  std::vector<std::string> tags;   // pages with any of these tags (empty: any)
  std::string source;              // source name ("" = any)
  std::string folder;              // page path prefix, e.g. "people/" ("" = any)
  // Pages whose date (StoredPage::updated_at: the note's) is in [since,
  // until], ISO dates or times compared as text; until covers its whole
  // day ("" = open).
  std::string since, until;
  bool include_private = false;
  // True when only visibility restricts.
  bool Unrestricted() const {
    return types.empty() && tags.empty() && source.empty() && folder.empty() && since.empty() && until.empty();
  }
};

// How a search ranks: keyword (BM25 arms), vector (the embedding arm
// alone), hybrid (all arms fused). kDefault: the brain's search.mode, else
// hybrid when the brain has an embedding model, else keyword.
enum class SearchMode { kDefault, kKeyword, kVector, kHybrid };

// "keyword", "vector", "hybrid" ("" for kDefault), as config.toml, the CLI
// and JSON write them.
inline const char* SearchModeName(SearchMode mode) {
  switch (mode) {
    case SearchMode::kKeyword: return "keyword";
    case SearchMode::kVector: return "vector";
    case SearchMode::kHybrid: return "hybrid";
    case SearchMode::kDefault: break;
  }
  return "";
}
// The mode a name gives ("" is kDefault); nothing for another name.
inline std::optional<SearchMode> ParseSearchMode(std::string_view name) {
  if (name.empty()) return SearchMode::kDefault;
  if (name == "keyword") return SearchMode::kKeyword;
  if (name == "vector") return SearchMode::kVector;
  if (name == "hybrid") return SearchMode::kHybrid;
  return std::nullopt;
}

struct SearchOptions {
  size_t limit = 10;
  bool include_private = false;  // false for remote callers, always
  // What the search reads: every source; private pages only with include_private.
  ReadScope Reading() const { return ReadScope{"", include_private}; }
  bool explain = false;
  float bm25_k1 = 0.9f;
  float bm25_b = 0.4f;
  float title_weight = 0.5f;     // weight of the title/alias arm against the chunk arm (keyword mode)
  SearchMode mode = SearchMode::kDefault;
  ChunkFilter filter;            // every mode
  std::string source = "default";  // the source of the pages (entity timelines)
  // Keyword ranking deepens its arms until the top `limit` is provably
  // exact; hybrid's keyword arm, one list of several, takes the first pass.
  bool exact_keyword = true;
  // Wall-clock budget of one query in milliseconds (0: none). Past it the
  // ranking found so far is returned with a note instead of deepening
  // further, so no query holds a worker for long.
  int time_budget_ms = 2000;
};

// Limits on one keyword query, checked before any list is scored: more
// phrases or exclusions are refused with InvalidArgument naming the limit;
// of more than kMaxQueryTerms distinct terms found in the index, only the
// strongest (rarest) kMaxQueryTerms are scored, required ones always.
constexpr size_t kMaxQueryTerms = 256;
constexpr size_t kMaxQueryPhrases = 16;  // distinct quoted phrases, required or excluded
constexpr size_t kMaxExcludedGroups = 16;

// A query of the BM25 module (src/bm25) over one field: analysed terms,
// with the page-level rules of a keyword search.
struct QueryTerm {
  std::string term;
  float weight = 1.0f;    // multiplies the term's BM25 contribution
  bool required = false;  // a matching chunk must contain every required term
};

struct KeywordQuery {
  std::vector<QueryTerm> terms;
  // A page is dropped when one of its chunks contains every term of a group.
  std::vector<std::vector<std::string>> excluded_groups;
  size_t limit = 10;            // pages returned
  size_t chunks_per_page = 1;   // best chunks kept per page
  bool include_private = false;
  // Only pages it contains may be returned (nullptr: any); owned by the caller.
  const PageSelector* allowed_pages = nullptr;
  float k1 = 0.9f;
  float b = 0.4f;
};

struct KeywordHit {
  PageId page_id;
  ChunkId chunk_id;  // 0 for title hits
  float score = 0;
};

// Why a result ranked where it did (--explain).
struct SearchExplain {
  float chunk_score = 0;  // BM25 of the best chunk
  float title_score = 0;  // BM25 of title + aliases
  int chunk_rank = -1;    // 0-based rank in the chunk arm, -1 when absent
  int title_rank = -1;
  bool name_match = false;         // the query equals the title or an alias: ranked first
  std::vector<std::string> terms;  // analysed query terms
  // Hybrid and vector modes: each stage's part.
  struct Arm {
    std::string name;  // "keyword", "title", "vector", "vector:1"…
    int rank = -1;     // 0-based rank in the arm, -1 when absent
    double rrf = 0;    // weight / (60 + rank)
  };
  std::vector<Arm> arms;
  double rrf = 0;               // fused, normalised by the maximum
  double boost = 1;             // compiled-truth boost (entity questions)
  double cosine = 0;            // cos(query, chunk); meaningful when has_cosine
  bool has_cosine = false;
  double cosine_share = 0;      // its share of the final score: 0.3 × the vector arm's confidence
  int64_t backlinks = 0;        // inbound links of the page
  double backlink_factor = 1;
};

struct SearchHit {
  ChunkId chunk_id;
  PageId page_id;
  std::string slug;
  std::string title;
  std::string type;
  float score = 0;
  ChunkSource chunk_source = ChunkSource::kCompiledTruth;
  std::string text;
  std::string path;
  int line_start = 0;
  int line_end = 0;
  std::string date;  // the page's last update, YYYY-MM-DD
  // The dates written in the chunk itself: a timeline entry's, a dated
  // heading's or line's (search/dated.h), in order; empty when none.
  std::vector<std::string> chunk_dates;
  // Entity questions: the named page's timeline, newest last (the text is
  // its compiled truth).
  std::vector<TimelineEntry> timeline;
  SearchExplain explain;
};

struct SearchResponse {
  std::string query;
  SearchMode mode = SearchMode::kKeyword;  // the mode that ran (never kDefault)
  std::string intent;  // hybrid and vector modes
  // Hybrid and vector modes: milliseconds per stage ("keyword", "title",
  // "vector", "fusion" — fusion covers rescoring, dedup and boosts).
  std::vector<std::pair<std::string, double>> stage_ms;
  // Hybrid and vector modes: each vector arm's confidence in [0, 1] (how far
  // its best cosine stands above chance; search/confidence.h).
  std::vector<std::pair<std::string, double>> confidence;
  std::vector<SearchHit> results;
  double took_ms = 0;
  std::vector<std::string> notes;  // e.g. "vector arm off: no embedder configured"
};

}  // namespace engram
