// Precision and recall of the knowledge similarity on a paraphrase set
// (tests/data/kb_paraphrase: stored red-line questions, and queries that
// are true paraphrases of one of them, near misses or unrelated). Used by
// bench/kb_paraphrase_bench (the table in docs/PERFORMANCE.md) and by the
// unit test that keeps the defaults from getting worse.
//
// At a threshold t, a query's answer is its top-1 entry when that scores at
// least t. A paraphrase answered with its entry is a true positive; any
// other answer is a false positive; a paraphrase left unanswered (or
// answered wrongly) is a miss. precision = TP / (TP + FP), recall = TP /
// paraphrases.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram::kb {

struct ParaphraseSet {
  struct Entry {
    std::string id, lang, question;
  };
  struct Query {
    std::string lang, expected, kind, text;  // expected "-" for near_miss / unrelated
  };
  std::vector<Entry> entries;
  std::vector<Query> queries;
};

// entries.tsv and queries.tsv of dir (a header line, tab-separated).
Result<ParaphraseSet> LoadParaphraseSet(const std::string& dir);

// The top-1 of each query: (entry index or -1, score), by a LexicalIndex over the entries.
std::vector<std::pair<int, double>> TopHits(const ParaphraseSet& set);

struct ParaphraseScore {
  int tp = 0, fp = 0, paraphrases = 0, near_miss_hits = 0, unrelated_hits = 0;
  double precision() const { return tp + fp == 0 ? 1.0 : static_cast<double>(tp) / (tp + fp); }
  double recall() const { return paraphrases == 0 ? 0.0 : static_cast<double>(tp) / paraphrases; }
};

// The counts at threshold for the queries of lang ("" = all).
ParaphraseScore ScoreAt(const ParaphraseSet& set, const std::vector<std::pair<int, double>>& top, double threshold,
                        std::string_view lang);

}  // namespace engram::kb
