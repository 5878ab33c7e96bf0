// Hybrid search (MISSION.md §1, "Hybrid search"): intent → the keyword arm on
// the original query, the title/alias arm, one vector arm per query variant
// (and, for an entity question that names a page, that page: "name") →
// reciprocal rank fusion with per-intent weights → compiled-truth boost for
// entity questions → 0.7 · rrf + 0.3 · cosine → the five dedup layers →
// backlink boost → limit. Mode "vector" runs the vector arms alone.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engram/engine.h"
#include "engram/search.h"
#include "engram/status.h"
#include "search/vector_arm.h"

namespace engram::search {

struct VectorQuery {
  const VectorArm* arm = nullptr;           // nullptr: the vector arm is off
  std::vector<std::vector<float>> vectors;  // the query's embedding, then its variants'
  std::string off_reason;                   // why the arm is off (a note on every response)
};

// options.mode is kHybrid or kVector. Without a vector arm, hybrid runs on
// the keyword and title arms and says so; vector mode is then an error.
Result<SearchResponse> HybridSearch(Engine& engine, std::string_view query, const SearchOptions& options,
                                    const VectorQuery& vq);

}  // namespace engram::search
