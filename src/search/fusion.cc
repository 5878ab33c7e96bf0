#include "search/fusion.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace engram::search {

std::vector<Fused> ReciprocalRankFusion(const std::vector<RankedList>& lists, double k) {
  std::vector<Fused> out;
  std::unordered_map<int64_t, size_t> at;
  for (size_t li = 0; li < lists.size(); ++li) {
    const RankedList& list = lists[li];
    for (size_t r = 0; r < list.ids.size(); ++r) {
      auto [it, inserted] = at.try_emplace(list.ids[r], out.size());
      if (inserted) {
        Fused f;
        f.id = list.ids[r];
        f.contribution.assign(lists.size(), 0.0);
        f.rank.assign(lists.size(), -1);
        out.push_back(std::move(f));
      }
      Fused& f = out[it->second];
      if (f.rank[li] >= 0) continue;  // repeated within the list: its best rank counts
      f.rank[li] = static_cast<int>(r);
      const double confidence = r < list.confidence.size() ? list.confidence[r] : 1.0;
      f.contribution[li] = list.weight * confidence / (k + static_cast<double>(r));
      f.rrf += f.contribution[li];
    }
  }
  double best = 0;
  for (const Fused& f : out) best = std::max(best, f.rrf);
  if (best > 0) {
    for (Fused& f : out) f.rrf /= best;
  }
  std::stable_sort(out.begin(), out.end(), [](const Fused& a, const Fused& b) { return a.rrf > b.rrf; });
  return out;
}

ArmWeights WeightsFor(Intent intent) {
  switch (intent) {
    case Intent::kEntity: return {1.0, 1.5, 0.8};
    case Intent::kTemporal: return {1.2, 0.8, 1.0};
    case Intent::kEvent: return {1.2, 0.8, 1.0};
    case Intent::kConcept: return {0.9, 1.0, 1.2};
    case Intent::kGeneral: return {1.0, 1.0, 1.0};
  }
  return {};
}

double BacklinkBoost(double score, int64_t backlinks) {
  if (backlinks <= 0) return score;
  return score * (1.0 + kBacklinkWeight * std::log1p(static_cast<double>(backlinks)));
}

}  // namespace engram::search
