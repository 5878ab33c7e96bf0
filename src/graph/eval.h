// The graph's quality set: questions with the entities, values and dates
// that answer them (tests/data/graph_gold/*.jsonl), asked through
// ParseQuestion and Answer, scored per kind and language. What
// `engram eval --graph FILE` prints and the gold-set test checks.
//
// A line: {"id", "lang": "en"|"zh", "kind", "question", "expect": [...],
// "as_of": "2023-06-01" (optional)}. An answer is right when every expected
// string names one of its items (the item's page slug, its title or value —
// folded, and a value may say more: "CEO" names "创始人兼 CEO" — its date, or
// its predicate) and every item is named by one: nothing missing, nothing
// extra. An empty "expect" wants no items (no conflict, say).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engram/status.h"
#include "engram/store/page_store.h"
#include "graph/answer.h"

namespace engram::graph {

struct GoldQuestion {
  std::string id, lang, kind, question, as_of;
  std::vector<std::string> expect;
  int line = 0;
};

// Reads a gold file; InvalidArgument naming the file and line for a line
// that is not such an object.
Result<std::vector<GoldQuestion>> LoadGold(const std::string& path);

bool AnswerMatches(const GraphAnswer& answer, const std::vector<std::string>& expect);

struct GoldResult {
  size_t total = 0;
  size_t correct = 0;
  size_t understood = 0;                                      // parsed as a graph question at all
  std::map<std::string, std::pair<size_t, size_t>> by_group;  // "kind/lang" -> (correct, total)
  struct Miss {
    std::string id, question, got;
    std::vector<std::string> expect;
  };
  std::vector<Miss> misses;
};

Result<GoldResult> RunGold(PageStore& store, const ReadScope& scope, const std::vector<GoldQuestion>& questions,
                           const GraphRules& rules);

}  // namespace engram::graph
