// `engram eval`: retrieval quality on a BEIR-layout benchmark, indexed into a
// throwaway brain.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "engram/options.h"
#include "engram/search.h"
#include "engram/status.h"

namespace engram {

struct EvalOptions {
  std::filesystem::path corpus;   // corpus.jsonl: {"_id", "title", "text"}
  std::filesystem::path queries;  // queries.jsonl: {"_id", "text"}
  std::filesystem::path qrels;    // qrels TSV: header, then query-id, corpus-id, score
  SearchMode mode = SearchMode::kKeyword;  // keyword, hybrid or vector
  std::string embedder = "hash";  // hybrid/vector: "hash", "openai" (the [embedding] settings) or a model directory
  size_t depth = 100;             // results retrieved per query
  BrainOptions brain;             // chunking and BM25 settings
  std::string store;              // where the throwaway index lives: "" a scratch SQLite file, or a store URI
                                  // (an empty PostgreSQL database or schema: postgres://…?options=-csearch_path%3DS)
};

// One query's outcome (`engram eval --per-query FILE`).
struct EvalQueryResult {
  std::string id;
  double ndcg10 = 0;
  double recall100 = 0;
  double vector_confidence = -1;  // hybrid/vector: the vector arm's confidence; -1 without one
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
  // hybrid/vector: the embedder, time to embed the corpus and to build the
  // vector index, and per query the embedding and the search separately.
  std::string embedder_model;
  double embed_seconds = 0;
  double vector_index_seconds = 0;
  double query_embed_ms_p50 = 0;
  double search_ms_p50 = 0;
  double search_ms_p95 = 0;
  std::map<std::string, double> stage_ms_p50;  // per stage of hybrid search: keyword, title, vector, fusion
  std::vector<EvalQueryResult> per_query;      // in query order
};

// Fails with InvalidArgument naming the file and line of malformed input.
Result<EvalResult> RunEval(const EvalOptions& options);

}  // namespace engram
