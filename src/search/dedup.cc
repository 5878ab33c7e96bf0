#include "search/dedup.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "text/analyzer.h"

namespace engram::search {

namespace {

std::set<std::string> Words(const std::string& text) {
  std::vector<text::Token> tokens;
  text::Analyze(text, &tokens);
  std::set<std::string> out;
  for (const auto& t : tokens) out.insert(t.term);
  return out;
}

double JaccardSets(const std::set<std::string>& a, const std::set<std::string>& b) {
  if (a.empty() && b.empty()) return 1.0;
  size_t common = 0;
  for (const auto& w : a) common += b.count(w);
  return static_cast<double>(common) / static_cast<double>(a.size() + b.size() - common);
}

bool ByScore(const DedupCandidate& a, const DedupCandidate& b) {
  return a.score != b.score ? a.score > b.score : a.chunk_id < b.chunk_id;
}

}  // namespace

double Jaccard(const std::string& a, const std::string& b) { return JaccardSets(Words(a), Words(b)); }

std::vector<DedupCandidate> Dedup(std::vector<DedupCandidate> candidates, size_t limit, const DedupLimits& l) {
  std::stable_sort(candidates.begin(), candidates.end(), ByScore);
  // Layers 1 and 2: per page, at most per_page_before chunks, none a near
  // duplicate of a kept one.
  std::vector<DedupCandidate> kept;
  // Word sets are compared within a page only: a page's first chunk needs
  // none until a second one arrives (so most candidates are never analysed).
  struct PageSeen {
    std::vector<size_t> kept;                   // indexes into kept
    std::vector<std::set<std::string>> words;   // filled lazily, parallel to kept
  };
  std::unordered_map<int64_t, PageSeen> pages;
  // Three times the limit is more than the later layers can use (each takes
  // at most 2 per page and fills from the kept ones in order): stop there.
  for (auto& c : candidates) {
    if (kept.size() >= 3 * limit) break;
    PageSeen& seen = pages[c.page_id];
    if (seen.kept.size() >= l.per_page_before) continue;
    if (!seen.kept.empty()) {
      while (seen.words.size() < seen.kept.size()) seen.words.push_back(Words(kept[seen.kept[seen.words.size()]].text));
      const std::set<std::string> words = Words(c.text);
      bool duplicate = std::any_of(seen.words.begin(), seen.words.end(),
                                   [&](const std::set<std::string>& w) { return JaccardSets(words, w) > l.jaccard; });
      if (duplicate) continue;
      seen.words.push_back(words);
    }
    seen.kept.push_back(kept.size());
    kept.push_back(c);
  }
  // Layers 3 and 4 together: walk best first under both caps; then, if the
  // type cap left places empty, fill them in order under the page cap only.
  const size_t type_cap = std::max<size_t>(1, static_cast<size_t>(std::floor(l.type_share * static_cast<double>(limit))));
  std::vector<DedupCandidate> shown;
  std::vector<bool> taken(kept.size(), false);
  std::map<std::string, size_t> per_type;
  std::unordered_map<int64_t, size_t> per_page;
  for (size_t i = 0; i < kept.size() && shown.size() < limit; ++i) {
    const auto& c = kept[i];
    if (per_page[c.page_id] >= l.per_page || per_type[c.page_type] >= type_cap) continue;
    ++per_page[c.page_id];
    ++per_type[c.page_type];
    taken[i] = true;
    shown.push_back(c);
  }
  for (size_t i = 0; i < kept.size() && shown.size() < limit; ++i) {
    if (taken[i] || per_page[kept[i].page_id] >= l.per_page) continue;
    ++per_page[kept[i].page_id];
    taken[i] = true;
    shown.push_back(kept[i]);
  }
  // Layer 5: a page shown with timeline chunks only gets its best
  // compiled-truth candidate in place of its weakest chunk — never in place
  // of the answer's best chunk, which is what the query asked for (with one
  // result, that is the only one).
  int64_t best_shown = 0;
  double best_score = -1;
  for (const auto& c : shown) {
    if (c.score > best_score) best_score = c.score, best_shown = c.chunk_id;
  }
  for (auto& [page, n] : per_page) {
    if (n == 0) continue;
    const bool has_truth = std::any_of(shown.begin(), shown.end(),
                                       [&](const DedupCandidate& c) { return c.page_id == page && c.compiled_truth; });
    if (has_truth) continue;
    auto best = std::find_if(candidates.begin(), candidates.end(),
                             [&](const DedupCandidate& c) { return c.page_id == page && c.compiled_truth; });
    if (best == candidates.end()) continue;
    size_t weakest = shown.size();
    for (size_t i = 0; i < shown.size(); ++i) {
      if (shown[i].page_id == page) weakest = i;  // shown is best first: the last is the weakest
    }
    if (shown[weakest].chunk_id == best_shown) continue;
    shown[weakest] = *best;
  }
  std::stable_sort(shown.begin(), shown.end(), ByScore);
  return shown;
}

}  // namespace engram::search
