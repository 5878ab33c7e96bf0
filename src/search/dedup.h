// The five dedup layers of hybrid search (MISSION.md §1, step 7), applied in
// order to candidates sorted best first:
//   1. at most 3 chunks per page;
//   2. a chunk whose word set is more than 0.85 Jaccard-similar to a kept
//      chunk of the same page is dropped;
//   3. no page type fills more than 60% of the results (the cap gives way
//      only when no other type is left to fill them);
//   4. at most 2 chunks per page;
//   5. every page shown keeps its best compiled-truth chunk, when it has one
//      among the candidates (it replaces the page's weakest chunk shown,
//      never the answer's best one).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace engram::search {

struct DedupCandidate {
  int64_t chunk_id = 0;
  int64_t page_id = 0;
  std::string page_type;
  bool compiled_truth = true;  // false for timeline chunks
  std::string text;
  double score = 0;
};

struct DedupLimits {
  size_t per_page_before = 3;
  double jaccard = 0.85;
  double type_share = 0.6;
  size_t per_page = 2;
};

// Word set similarity |A ∩ B| / |A ∪ B| over lower-cased words and CJK
// characters (1 for two empty texts).
double Jaccard(const std::string& a, const std::string& b);

// The chunks to show, at most limit, best first (by score; a chunk added by
// layer 5 takes its own score's place).
std::vector<DedupCandidate> Dedup(std::vector<DedupCandidate> candidates, size_t limit, const DedupLimits& l = {});

}  // namespace engram::search
