// `engram eval`: retrieval quality on a BEIR-layout benchmark, indexed into a
// throwaway brain.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "engram/options.h"
#include "engram/status.h"

namespace engram::ops {

struct EvalOptions {
  std::filesystem::path corpus;   // corpus.jsonl: {"_id", "title", "text"}
  std::filesystem::path queries;  // queries.jsonl: {"_id", "text"}
  std::filesystem::path qrels;    // qrels TSV: header, then query-id, corpus-id, score
  std::string mode = "keyword";
  size_t depth = 100;             // results retrieved per query
  BrainOptions brain;             // chunking and BM25 settings
};

struct EvalResult {
  double ndcg10 = 0;
  double recall10 = 0;
  double recall100 = 0;
  double mrr10 = 0;
  size_t queries = 0;
  size_t docs = 0;
  double index_seconds = 0;
  double query_ms_p50 = 0;
  double query_ms_p95 = 0;
};

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

// Fails with InvalidArgument naming the file and line of malformed input.
Result<EvalResult> RunEval(const EvalOptions& options);

}  // namespace engram::ops
