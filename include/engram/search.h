// Search requests and results, shared by the CLI, and later HTTP and MCP.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace engram {

struct SearchOptions {
  size_t limit = 10;
  bool include_private = false;  // false for remote callers, always
  bool explain = false;
  float bm25_k1 = 0.9f;
  float bm25_b = 0.4f;
  float title_weight = 0.5f;     // weight of the title/alias arm against the chunk arm
};

// Why a result ranked where it did (--explain).
struct SearchExplain {
  float chunk_score = 0;  // BM25 of the best chunk
  float title_score = 0;  // BM25 of title + aliases
  int chunk_rank = -1;    // 0-based rank in the chunk arm, -1 when absent
  int title_rank = -1;
  bool name_match = false;         // the query equals the title or an alias: ranked first
  std::vector<std::string> terms;  // analysed query terms
};

struct SearchHit {
  std::string slug;
  std::string title;
  std::string type;
  float score = 0;
  std::string chunk_source;  // "compiled_truth" or "timeline"
  std::string text;
  std::string path;
  int line_start = 0;
  int line_end = 0;
  SearchExplain explain;
};

struct SearchResponse {
  std::string query;
  std::string mode = "keyword";
  std::vector<SearchHit> results;
  double took_ms = 0;
  std::vector<std::string> notes;  // e.g. "vector arm off: no embedder configured"
};

}  // namespace engram
