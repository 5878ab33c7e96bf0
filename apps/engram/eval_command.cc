#include "eval_command.h"

#include <cstdio>
#include <fstream>
#include <memory>

#include "command_support.h"
#include "engram/eval.h"
#include "graph/eval.h"
#include "output.h"

namespace engram::cli {

namespace {

using Json = nlohmann::json;

struct EvalArgs {
  EvalOptions options;
  std::string mode = "keyword";
  std::string per_query;  // "": no per-query file
  std::string graph;      // a graph gold set: run it on the current brain instead
};

// `eval --graph FILE`: the gold questions asked of the current brain's graph.
int RunGraphEval(const EvalArgs& a, bool json, const std::string& brain_dir) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  auto gold = graph::LoadGold(a.graph);
  if (!gold.ok()) return Fail(gold.status(), json);
  if (gold->empty()) return Fail(Status::InvalidArgument(a.graph + ": no questions"), json);
  auto r = graph::RunGold((*brain)->engine(), ReadScopeOf(OperationContext()), *gold,
                          graph::GraphRules{(*brain)->options().graph});
  if (!r.ok()) return Fail(r.status(), json);
  const double accuracy = static_cast<double>(r->correct) / static_cast<double>(r->total);
  if (json) {
    Json groups = Json::object(), misses = Json::array();
    for (const auto& [group, counts] : r->by_group) groups[group] = {{"correct", counts.first}, {"total", counts.second}};
    for (const auto& m : r->misses) {
      misses.push_back({{"id", m.id}, {"question", m.question}, {"expect", m.expect}, {"got", m.got}});
    }
    Print({{"questions", r->total}, {"understood", r->understood}, {"correct", r->correct}, {"accuracy", accuracy},
           {"by_group", groups}, {"misses", misses}});
    return 0;
  }
  std::printf("graph: %zu questions, %zu read as graph questions, %zu answered right: accuracy %.3f\n", r->total,
              r->understood, r->correct, accuracy);
  for (const auto& [group, counts] : r->by_group) std::printf("  %-16s %zu / %zu\n", group.c_str(), counts.first, counts.second);
  for (const auto& m : r->misses) {
    std::string expect;
    for (const auto& e : m.expect) expect += (expect.empty() ? "" : ", ") + e;
    std::string got = m.got.empty() ? "(nothing)" : m.got;
    while (!got.empty() && got.back() == '\n') got.pop_back();
    for (size_t at = got.find('\n'); at != std::string::npos; at = got.find('\n', at + 1)) got.replace(at, 1, "; ");
    std::printf("  miss %s: %s\n    want: %s\n    got:  %s\n", m.id.c_str(), m.question.c_str(), expect.c_str(),
                got.c_str());
  }
  return 0;
}

Status WritePerQuery(const std::string& path, const EvalResult& r) {
  std::ofstream out(path, std::ios::trunc);
  for (const auto& q : r.per_query) {
    Json line = {{"id", q.id}, {"ndcg@10", q.ndcg10}, {"recall@100", q.recall100},
                 {"vector_confidence", q.vector_confidence < 0 ? Json(nullptr) : Json(q.vector_confidence)}};
    out << ops::Dump(line) << "\n";
  }
  out.flush();
  if (!out) return Status::IOError("cannot write " + path);
  return Status::Ok();
}

Json EvalJson(const EvalResult& r, const std::string& mode) {
  Json j = {{"ndcg@10", r.ndcg10},     {"recall@10", r.recall10},         {"recall@100", r.recall100},
            {"mrr@10", r.mrr10},       {"queries", r.queries},            {"docs", r.docs},
            {"index_seconds", r.index_seconds}, {"query_ms_p50", r.query_ms_p50}, {"query_ms_p95", r.query_ms_p95},
            {"mode", mode}};
  if (mode != "keyword") {
    j["embedder"] = r.embedder_model;
    j["embed_seconds"] = r.embed_seconds;
    j["vector_index_seconds"] = r.vector_index_seconds;
    j["query_embed_ms_p50"] = r.query_embed_ms_p50;
    j["search_ms_p50"] = r.search_ms_p50;
    j["search_ms_p95"] = r.search_ms_p95;
    j["stage_ms_p50"] = r.stage_ms_p50;
  }
  return j;
}

int RunEval(EvalArgs a, bool json, const std::string& brain_dir) {
  a.options.mode = ParseSearchMode(a.mode).value_or(SearchMode::kDefault);  // kDefault is refused by RunEval
  auto root = Brain::Locate(brain_dir);
  if (root.ok()) {  // the brain's config, when run inside one
    auto brain = Brain::Open(*root);
    if (!brain.ok()) return Fail(brain.status(), json);
    a.options.brain = (*brain)->options();
  } else {
    auto defaults = Brain::DefaultOptions();
    if (!defaults.ok()) return Fail(defaults.status(), json);
    a.options.brain = *defaults;
  }
  auto r = engram::RunEval(a.options);
  if (!r.ok()) return Fail(r.status(), json);
  if (!a.per_query.empty()) {
    Status st = WritePerQuery(a.per_query, *r);
    if (!st.ok()) return Fail(st, json);
  }
  if (json) {
    Print(EvalJson(*r, a.mode));
  } else {
    std::printf("nDCG@10 %.4f  Recall@10 %.4f  Recall@100 %.4f  MRR@10 %.4f\n", r->ndcg10, r->recall10,
                r->recall100, r->mrr10);
    std::printf("%zu queries, %zu docs, indexed in %.2f s, query p50 %.3f ms, p95 %.3f ms\n", r->queries, r->docs,
                r->index_seconds, r->query_ms_p50, r->query_ms_p95);
  }
  return 0;
}

}  // namespace

void AddEvalCommand(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  auto a = std::make_shared<EvalArgs>();
  auto* eval = app.add_subcommand("eval", "Measure retrieval quality on a BEIR-layout benchmark, or the graph's answers");
  eval->add_option("--corpus", a->options.corpus, "corpus.jsonl ({\"_id\",\"title\",\"text\"} per line)");
  eval->add_option("--queries", a->options.queries, "queries.jsonl ({\"_id\",\"text\"} per line)");
  eval->add_option("--qrels", a->options.qrels, "qrels TSV (query-id, corpus-id, score; header line)");
  eval->add_option("--graph", a->graph,
                   "Instead: ask the current brain's graph the questions of this gold set (JSONL: {\"id\", \"lang\",\n"
                   "\"kind\", \"question\", \"expect\": [slugs, values or dates], \"as_of\"}) and print the accuracy\n"
                   "per kind and language, then each miss (tests/data/graph_gold/vault.jsonl: the sample vault)");
  eval->add_option("--mode", a->mode, "Retrieval mode: keyword (default), hybrid or vector")
      ->check(CLI::IsMember({"keyword", "hybrid", "vector"}));
  eval->add_option("--embedder", a->options.embedder,
                   "hybrid/vector: hash (default), openai (the [embedding] settings) or a model directory");
  eval->add_option("--store", a->options.store,
                   "Index into this store instead of a scratch SQLite file: an empty PostgreSQL database or\n"
                   "schema (postgres://USER@HOST:PORT/DB?options=-csearch_path%3DNAME), to compare engines");
  eval->add_option("--depth", a->options.depth,
                   "Results retrieved per query (default 100; Recall@100 counts only what was retrieved, so a\n"
                   "smaller depth lowers it; nDCG@10 and MRR@10 need 10). The query latency is at this depth")
      ->check(CLI::Range(size_t{10}, size_t{10000}));
  eval->add_option("--per-query", a->per_query,
                   "Also write one JSON line per query to this file: {\"id\", \"ndcg@10\", \"recall@100\",\n"
                   "\"vector_confidence\"} (null in keyword mode)");
  eval->footer(
      "Indexes the corpus into a throwaway brain, runs every query present in the qrels with the top 100\n"
      "results (--depth), and prints nDCG@10, Recall@10, Recall@100, MRR@10, index time and query latency.\n"
      "Uses the brain's config when run inside one (ENGRAM_SEARCH_BM25_K1 etc. also apply).\n"
      "With --graph FILE it runs inside a brain instead: an answer is right when its items are exactly the\n"
      "expected entities, values or dates (a value may say more: \"CEO\" names \"创始人兼 CEO\").");
  eval->callback([a, json, brain_dir, exit_code] {
    if (!a->graph.empty()) {
      *exit_code = RunGraphEval(*a, *json, *brain_dir);
      return;
    }
    if (a->options.corpus.empty() || a->options.queries.empty() || a->options.qrels.empty()) {
      *exit_code = Fail(Status::InvalidArgument("eval needs --corpus, --queries and --qrels (or --graph FILE)"), *json);
      return;
    }
    *exit_code = RunEval(*a, *json, *brain_dir);
  });
}

}  // namespace engram::cli
