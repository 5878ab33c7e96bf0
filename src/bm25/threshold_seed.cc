#include "bm25/threshold_seed.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "store/postings_codec.h"

namespace engram::bm25 {

namespace {

// The lists candidates come from (strongest first), the blocks read from
// each, and the postings each contributes: ~100 candidates, a few hundred
// postings read, against the thousands a query walks.
constexpr size_t kSeedLists = 3;
constexpr size_t kSeedBlocks = 8;
constexpr size_t kSeedPerList = 32;

struct Candidate {
  int64_t doc;
  int64_t page;
  double contribution;  // from the list that proposed it (to choose among them)
};

// The best postings of term t, from the blocks whose bounds are highest.
bool Propose(const PreparedQuery& pq, const PreparedQuery::Term& t, std::vector<Candidate>* out) {
  store::PostingCursor c;
  if (!c.Open(t.blob).ok()) return false;
  std::vector<std::pair<double, size_t>> blocks;  // (bound, block)
  blocks.reserve(c.blocks());
  int64_t last = 0;
  uint32_t max_tf = 0, min_dl = 0;
  for (size_t b = 0; b < c.blocks(); ++b) {
    c.BlockEntry(b, &last, &max_tf, &min_dl);
    blocks.emplace_back(pq.Score(t, max_tf, min_dl), b);
  }
  if (blocks.size() > kSeedBlocks) {
    std::nth_element(blocks.begin(), blocks.begin() + kSeedBlocks, blocks.end(),
                     [](const auto& x, const auto& y) { return x.first > y.first; });
    blocks.resize(kSeedBlocks);
  }
  std::sort(blocks.begin(), blocks.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
  std::vector<Candidate> mine;
  for (const auto& [bound, b] : blocks) {
    int64_t from = 0;
    if (b > 0) {
      c.BlockEntry(b - 1, &from, &max_tf, &min_dl);
      ++from;
    }
    c.BlockEntry(b, &last, &max_tf, &min_dl);
    for (const store::Posting* p = c.NextGeq(from); p != nullptr && p->doc <= last; p = c.NextGeq(p->doc + 1)) {
      mine.push_back({p->doc, p->page, pq.Score(t, p->tf, p->dl)});
    }
  }
  if (!c.status().ok()) return false;
  if (mine.size() > kSeedPerList) {
    std::nth_element(mine.begin(), mine.begin() + kSeedPerList, mine.end(),
                     [](const Candidate& x, const Candidate& y) { return x.contribution > y.contribution; });
    mine.resize(kSeedPerList);
  }
  out->insert(out->end(), mine.begin(), mine.end());
  return true;
}

}  // namespace

float SeedThreshold(const PreparedQuery& pq, size_t limit, const std::function<bool(int64_t page)>& out) {
  const size_t n = pq.terms.size();
  if (limit == 0 || n == 0) return 0;
  std::vector<Candidate> cands;
  for (size_t t = 0; t < std::min(kSeedLists, n); ++t) {
    if (!Propose(pq, pq.terms[t], &cands)) return 0;
  }
  std::sort(cands.begin(), cands.end(), [](const Candidate& x, const Candidate& y) { return x.doc < y.doc; });
  cands.erase(std::unique(cands.begin(), cands.end(),
                          [](const Candidate& x, const Candidate& y) { return x.doc == y.doc; }),
              cands.end());
  std::erase_if(cands, [&](const Candidate& c) { return out(c.page); });
  // Exact scores: every list probed for the candidates, in doc order; the
  // float contributions summed in pq.terms order, as the searcher does.
  std::vector<float> contribution(cands.size() * n, 0.0f);
  for (size_t t = 0; t < n; ++t) {
    store::PostingCursor c;
    if (!c.Open(pq.terms[t].blob).ok()) return 0;
    for (size_t i = 0; i < cands.size(); ++i) {
      const store::Posting* p = c.NextGeq(cands[i].doc);
      if (p == nullptr) break;
      if (p->doc == cands[i].doc) contribution[i * n + t] = static_cast<float>(pq.Score(pq.terms[t], p->tf, p->dl));
    }
    if (!c.status().ok()) return 0;
  }
  std::unordered_map<int64_t, float> best;  // page -> the best score of its candidates
  for (size_t i = 0; i < cands.size(); ++i) {
    float score = 0;
    for (size_t t = 0; t < n; ++t) score += contribution[i * n + t];
    float& b = best[cands[i].page];
    b = std::max(b, score);
  }
  if (best.size() < limit) return 0;
  std::vector<float> scores;
  scores.reserve(best.size());
  for (const auto& [page, score] : best) scores.push_back(score);
  std::nth_element(scores.begin(), scores.begin() + static_cast<long>(limit - 1), scores.end(), std::greater<>());
  return scores[limit - 1];
}

}  // namespace engram::bm25
