// The lexical similarity of knowledge entries: TF-IDF cosine over the
// analyzer's terms (text/analyzer.h), in [0, 1], needing no model.
//
// For a text, each distinct term t with count tf weighs (1 + ln tf) * idf(t),
// idf(t) = ln((N + 1) / (df(t) + 1)) + 1, where N is the number of entries in
// the index and df(t) the number holding t (the query is not counted). The
// similarity of a query q and an entry d is the cosine of their weight
// vectors: sum over shared terms of w_q(t) * w_d(t) / (|w_q| |w_d|). A
// Chinese word contributes its characters and its character pairs, an
// English word its stem, so paraphrases that share words score high with
// no model at all; a query term no entry holds weighs the most (it is what
// the query says that no entry does) and lowers every score.
//
// The score is that cosine raised to kLexicalExponent (0.4368): a monotone
// calibration, so the ranking is the cosine's, 0 and 1 stay put, and the
// service's thresholds — chosen for embedding cosines (0.8 a hit, 0.9 a
// direct answer) — mean what they mean there. It is tuned on
// tests/data/kb_paraphrase (290 zh + en queries): a cosine of 0.6 is where
// precision reaches 0.89 with the best recall, and 0.6^0.4368 = 0.8. The
// figures are in docs/PERFORMANCE.md (bench/kb_paraphrase_bench).
//
// The index keeps one posting list per term and each entry's weights
// without idf; idf and the entries' norms are recomputed lazily, once after
// a batch of changes (O(total postings)), so a change costs O(terms of the
// entry). Removed entries are skipped until they are a third of the index,
// then the lists are compacted.
//
// Thread safety: none; the owner serialises calls.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace engram::kb {

// The calibration exponent: score = cosine ^ kLexicalExponent = ln 0.8 / ln 0.6.
inline constexpr double kLexicalExponent = 0.4368;

struct ScoredKey {
  int64_t key = 0;
  double score = 0;
};

// The cosine of two texts' term vectors, each term weighing 1 + ln tf (no
// idf: two texts are no collection), in [0, 1]; 0 when either has no term.
// It compares an LLM's answer with the standard answer it was given.
double TextCosine(std::string_view a, std::string_view b);

class LexicalIndex {
 public:
  // Adds the entry of key with text, replacing what key held.
  void Put(int64_t key, std::string_view text);
  // Removes the entry of key (nothing when absent).
  void Remove(int64_t key);
  size_t size() const { return slots_.size(); }

  // Every entry whose score (the calibrated cosine) is at least min_score (> 0: an
  // entry sharing no term never comes back), in no particular order.
  std::vector<ScoredKey> Score(std::string_view query, double min_score);

 private:
  struct Doc {
    int64_t key = 0;
    std::vector<std::pair<uint32_t, float>> terms;  // term id, 1 + ln tf
    double norm = 0;                                 // of the idf-weighted vector, when fresh
    bool live = false;
  };
  // Distinct terms of text with weight 1 + ln tf (term ids of known terms;
  // unknown ones are added when add_terms, else returned apart as counts).
  void Weigh(std::string_view text, bool add_terms, std::vector<std::pair<uint32_t, float>>* known,
             std::vector<float>* unknown);
  double Idf(uint32_t df) const;
  void Refresh();  // idf and norms after changes; compaction
  void Compact();

  std::unordered_map<std::string, uint32_t> term_ids_;
  std::vector<uint32_t> df_;                     // by term id, live entries only
  std::vector<std::vector<std::pair<uint32_t, float>>> postings_;  // by term id: (doc slot, its weight)
  std::vector<double> idf_;                      // by term id, when fresh
  std::vector<Doc> docs_;                        // by slot
  std::unordered_map<int64_t, uint32_t> slots_;  // key -> live slot
  size_t dead_ = 0;
  bool stale_ = true;
  std::vector<double> acc_;        // Score's scratch: a dot product by slot, all zero between calls
  std::vector<uint32_t> touched_;  // the slots acc_ holds a value for
};

}  // namespace engram::kb
