// BEIR-layout evaluation sets: loading them, and the page a document becomes.
// RunEval (engram/eval.h) and the benchmarks use them.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "engram/eval.h"
#include "engram/options.h"
#include "engram/status.h"

namespace engram::ops {

// A BEIR-layout set in memory.
struct BeirDoc {
  std::string id;
  std::string title;
  std::string text;
};
struct BeirQuery {
  std::string id;
  std::string text;
};
struct BeirSet {
  std::vector<BeirDoc> docs;
  std::vector<BeirQuery> queries;                          // only those with judgements
  std::map<std::string, std::map<std::string, int>> qrels;  // query -> doc -> grade
};

// Loads a set. Malformed lines are InvalidArgument naming file and line.
Result<BeirSet> LoadBeir(const std::filesystem::path& corpus, const std::filesystem::path& queries,
                         const std::filesystem::path& qrels);

// The Markdown page a corpus document becomes: "# title" + text.
std::string BeirDocMarkdown(const BeirDoc& doc);


}  // namespace engram::ops
