// The fusion stages of hybrid search (MISSION.md §1, steps 5–6), as small
// pure functions over chunk ids and scores:
//   RRF:      rrf(c) = Σ_lists w_list · conf_list(c) / (k + rank_list(c)),
//             0-based ranks, k = 60, then divided by the largest rrf (the
//             best is 1); conf is the list's per-id confidence (1 unless
//             given, see confidence.h);
//   boost:    compiled-truth chunks × kCompiledTruthBoost for entity queries;
//   rescore:  final = 0.7 · rrf + 0.3 · cosine(query, chunk), the cosine's
//             share scaled by the vector arm's confidence;
//   backlinks: final × (1 + kBacklinkWeight · ln(1 + backlinks of the page)).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "search/intent.h"

namespace engram::search {

constexpr double kRrfK = 60.0;
constexpr double kCosineWeight = 0.3;
constexpr double kCompiledTruthBoost = 1.2;
constexpr double kBacklinkWeight = 0.05;

// One ranked list of an arm, best first.
struct RankedList {
  std::string arm;  // "keyword", "title", "vector", "vector:1" (an expansion)…
  double weight = 1.0;
  std::vector<int64_t> ids;
  std::vector<double> confidence;  // per id, multiplies its contribution; empty: 1 each
};

struct Fused {
  int64_t id = 0;
  double rrf = 0;                   // normalised: the best is 1
  std::vector<double> contribution;  // per list, before normalisation (0 when absent)
  std::vector<int> rank;             // per list, 0-based; -1 when absent
};

// Best first; ties by first appearance across the lists in order. An id
// repeated within one list counts at its best rank only. Empty when every
// list is empty.
std::vector<Fused> ReciprocalRankFusion(const std::vector<RankedList>& lists, double k = kRrfK);

// Weights of the arms for an intent: entity questions lean on titles and
// keywords (names), concept questions on meaning.
struct ArmWeights {
  double keyword = 1.0;
  double title = 1.0;
  double vector = 1.0;
};
ArmWeights WeightsFor(Intent intent);

// cosine_share: kCosineWeight scaled by the vector arm's confidence; the rrf
// takes the rest.
inline double Rescore(double rrf, double cosine, double cosine_share = kCosineWeight) {
  return (1.0 - cosine_share) * rrf + cosine_share * cosine;
}
double BacklinkBoost(double score, int64_t backlinks);

}  // namespace engram::search
