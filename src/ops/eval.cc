#include "ops/eval.h"
#include "ops/index_format.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/pipeline.h"
#include "engram/engine.h"
#include "engram/store/open_store.h"
#include "embed/embedder.h"
#include "ops/models.h"
#include "search/hybrid.h"
#include "search/keyword_search.h"
#include "search/vector_arm.h"
#include "search/metrics.h"
#include "sync/page_indexer.h"
#include "text/slug.h"

namespace engram::ops {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

// Calls fn(line_number, json) for each non-empty line of a JSONL file.
template <typename Fn>
Status ForEachJsonLine(const fs::path& path, Fn&& fn) {
  std::ifstream in(path);
  if (!in) return Status::NotFound(path.string() + ": cannot open");
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Json j = Json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      return Status::InvalidArgument(path.string() + ":" + std::to_string(n) + ": not a JSON object");
    }
    if (!j.contains("_id") || !(j["_id"].is_string() || j["_id"].is_number())) {
      return Status::InvalidArgument(path.string() + ":" + std::to_string(n) + ": missing \"_id\"");
    }
    ENGRAM_RETURN_IF_ERROR(fn(n, j));
  }
  return Status::Ok();
}

std::string IdOf(const Json& j) {
  return j["_id"].is_string() ? j["_id"].get<std::string>() : j["_id"].dump();
}

std::string StringField(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

}  // namespace

// A temporary directory removed when it goes out of scope.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (fs::temp_directory_path() / "engram-eval-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};


Result<BeirSet> LoadBeir(const fs::path& corpus, const fs::path& queries, const fs::path& qrels_path) {
  BeirSet set;
  {
    std::ifstream in(qrels_path);
    if (!in) return Status::NotFound(qrels_path.string() + ": cannot open");
    std::string line;
    size_t n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) continue;
      size_t t1 = line.find('\t');
      size_t t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
      if (t2 == std::string::npos) {
        return Status::InvalidArgument(qrels_path.string() + ":" + std::to_string(n) +
                                       ": expected query-id<TAB>corpus-id<TAB>score");
      }
      std::string score = line.substr(t2 + 1);
      char* end = nullptr;
      long grade = std::strtol(score.c_str(), &end, 10);
      if (end == score.c_str()) {
        if (n == 1) continue;  // the header line
        return Status::InvalidArgument(qrels_path.string() + ":" + std::to_string(n) + ": score is not a number");
      }
      set.qrels[line.substr(0, t1)][line.substr(t1 + 1, t2 - t1 - 1)] = static_cast<int>(grade);
    }
  }
  ENGRAM_RETURN_IF_ERROR(ForEachJsonLine(corpus, [&](size_t, const Json& j) -> Status {
    set.docs.push_back({IdOf(j), StringField(j, "title"), StringField(j, "text")});
    return Status::Ok();
  }));
  ENGRAM_RETURN_IF_ERROR(ForEachJsonLine(queries, [&](size_t, const Json& j) -> Status {
    std::string id = IdOf(j);
    if (set.qrels.count(id)) set.queries.push_back({id, StringField(j, "text")});
    return Status::Ok();
  }));
  return set;
}

std::string BeirDocMarkdown(const BeirDoc& doc) {
  return doc.title.empty() ? doc.text + "\n" : "# " + doc.title + "\n\n" + doc.text + "\n";
}

}  // namespace engram::ops

namespace engram {

using ops::BeirDoc;
using ops::BeirQuery;
using ops::BeirSet;
using ops::BeirDocMarkdown;
using ops::LoadBeir;
using ops::ScratchDir;

namespace {

using Clock = std::chrono::steady_clock;

// Indexes every document as the page "docs/<id>.md", in one batch;
// doc_of_slug maps each page back to its document.
Status IndexCorpus(Engine& engine, const BeirSet& set, const EvalOptions& options,
                   std::map<std::string, std::string>* doc_of_slug, EvalResult* result) {
  const sync::IndexOptions indexing = ops::IndexingOf(options.brain);
  auto t0 = Clock::now();
  ENGRAM_ASSIGN_OR_RETURN(Transaction txn, engine.Begin());
  // Analysis on a worker thread, writes on this one (see common/pipeline.h).
  Status st = common::RunPipelined<Result<PageWrite>>(
      set.docs.size(),
      [&](size_t i) {
        const BeirDoc& doc = set.docs[i];
        return sync::PreparePage("docs/" + doc.id + ".md", BeirDocMarkdown(doc), indexing);
      },
      [&](size_t i, Result<PageWrite>& write) -> Status {
        Status s = write.status();
        if (s.ok() && !doc_of_slug->emplace(write->page.slug, set.docs[i].id).second) {
          s = Status::InvalidArgument("duplicate document id " + set.docs[i].id);
        }
        if (s.ok()) s = engine.PutPage(*write).status();
        if (!s.ok()) return s.WithContext(options.corpus.string() + ": document " + std::to_string(i + 1));
        ++result->docs;
        return s;
      });
  ENGRAM_RETURN_IF_ERROR(st);
  ENGRAM_RETURN_IF_ERROR(txn.Commit());
  result->index_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return Status::Ok();
}

// Stores an embedding under model for every chunk without one, 256 at a time.
Status EmbedCorpus(Engine& engine, embed::Embedder& embedder, const std::string& model) {
  for (ChunkId after;;) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<EmbeddingTask> tasks, engine.ChunksToEmbed(model, false, after, 256));
    if (tasks.empty()) break;
    std::vector<std::string> texts;
    for (const auto& t : tasks) texts.push_back(t.text);
    ENGRAM_ASSIGN_OR_RETURN(std::vector<float> v, embedder.Embed(texts, embed::EmbedKind::kDocument));
    const size_t d = static_cast<size_t>(embedder.info().dims);
    std::vector<EmbeddingWrite> rows;
    for (size_t i = 0; i < tasks.size(); ++i) {
      rows.push_back({tasks[i].chunk_id, model, EmbeddingTextHash(tasks[i].text),
                      std::vector<float>(v.begin() + static_cast<std::ptrdiff_t>(i * d),
                                         v.begin() + static_cast<std::ptrdiff_t>((i + 1) * d))});
    }
    ENGRAM_RETURN_IF_ERROR(engine.StoreEmbeddings(rows));
    after = tasks.back().chunk_id;
  }
  return Status::Ok();
}

// What hybrid and vector modes search with; both null in keyword mode.
struct VectorSide {
  std::unique_ptr<embed::Embedder> embedder;
  std::unique_ptr<search::VectorArm> arm;
};

// Hybrid and vector modes: embed the corpus, build the vector index in dir.
Status OpenVectorSide(Engine& engine, const std::filesystem::path& dir, const EvalOptions& options,
                      VectorSide* side, EvalResult* result) {
  if (options.mode == SearchMode::kKeyword) return Status::Ok();
  const std::string& e = options.embedder;
  ENGRAM_ASSIGN_OR_RETURN(side->embedder, ops::OpenEmbedder(options.brain, e == "hash" || e == "openai" ? e : "bert",
                                                            e == "openai" ? options.brain.embedding.model : e));
  const std::string model = side->embedder->info().provider + ":" + side->embedder->info().model;
  result->embedder_model = model;
  auto te = Clock::now();
  ENGRAM_RETURN_IF_ERROR(EmbedCorpus(engine, *side->embedder, model));
  result->embed_seconds = std::chrono::duration<double>(Clock::now() - te).count();
  te = Clock::now();
  search::VectorIndexOptions vo;
  vo.exact_below = static_cast<size_t>(options.brain.vector.exact_below);
  vo.m = options.brain.vector.m;
  vo.ef_construction = options.brain.vector.ef_construction;
  vo.ef_search = std::max(options.brain.vector.ef_search, static_cast<int>(options.depth));
  ENGRAM_ASSIGN_OR_RETURN(side->arm, search::VectorArm::Open(engine, engine, dir / "vectors.hnsw", model,
                                                             side->embedder->info().dims, vo));
  result->vector_index_seconds = std::chrono::duration<double>(Clock::now() - te).count();
  return Status::Ok();
}

SearchOptions SearchOptionsOf(const EvalOptions& options) {
  SearchOptions so;
  so.mode = options.mode;
  so.limit = options.depth;
  so.include_private = true;
  so.bm25_k1 = static_cast<float>(options.brain.search.bm25_k1);
  so.bm25_b = static_cast<float>(options.brain.search.bm25_b);
  so.title_weight = static_cast<float>(options.brain.search.title_weight);
  return so;
}

// Per-query times in milliseconds, summarised as percentiles.
struct QueryTimes {
  std::vector<double> latencies;  // every query, end to end
  std::vector<double> embed_ms;   // embedding the query (hybrid and vector modes)
  std::vector<double> search_ms;  // searching after that
  std::map<std::string, std::vector<double>> stage_ms;
};

// Runs one query started at qs: keyword search alone, or the query embedded
// and searched hybrid (which vector mode is too, by options).
Result<SearchResponse> RunQuery(Engine& engine, const VectorSide& side, const std::string& text,
                                const SearchOptions& so, Clock::time_point qs, QueryTimes* times) {
  if (side.embedder == nullptr) return search::KeywordSearch(engine, text, so);
  search::VectorQuery vq;
  ENGRAM_ASSIGN_OR_RETURN(std::vector<float> v, side.embedder->Embed({text}, embed::EmbedKind::kQuery));
  vq.arm = side.arm.get();
  vq.vectors.push_back(std::move(v));
  auto ss = Clock::now();
  times->embed_ms.push_back(std::chrono::duration<double, std::milli>(ss - qs).count());
  auto r = search::HybridSearch(engine, text, so, vq);
  if (r.ok()) {
    for (const auto& [stage, ms] : r->stage_ms) times->stage_ms[stage].push_back(ms);
  }
  times->search_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - ss).count());
  return r;
}

// Runs every query and scores its ranking against the judgements: the
// metrics' means and the times' percentiles go into result.
Status RunQueries(Engine& engine, BeirSet& set, const VectorSide& side, const SearchOptions& so,
                  std::map<std::string, std::string>& doc_of_slug, EvalResult* result) {
  QueryTimes times;
  double ndcg = 0, r10 = 0, r100 = 0, mrr = 0;
  for (const BeirQuery& q : set.queries) {
    const search::Qrels& judged = set.qrels[q.id];
    std::vector<std::string> ranked;
    auto qs = Clock::now();
    Result<SearchResponse> response = RunQuery(engine, side, q.text, so, qs, &times);
    times.latencies.push_back(std::chrono::duration<double, std::milli>(Clock::now() - qs).count());
    if (response.ok()) {
      // Hybrid shows up to two chunks of a page: a document counts at its first.
      std::set<std::string> seen;
      for (const SearchHit& h : response->results) {
        const std::string& doc = doc_of_slug[h.slug];
        if (seen.insert(doc).second) ranked.push_back(doc);
      }
    } else if (response.status().code() != StatusCode::kInvalidArgument) {
      return response.status();  // a query with no searchable words simply finds nothing
    }
    EvalQueryResult one{q.id, search::NdcgAtK(ranked, judged, 10), search::RecallAtK(ranked, judged, 100), -1};
    if (response.ok() && !response->confidence.empty()) one.vector_confidence = response->confidence.front().second;
    ndcg += one.ndcg10;
    r10 += search::RecallAtK(ranked, judged, 10);
    r100 += one.recall100;
    result->per_query.push_back(std::move(one));
    mrr += search::MrrAtK(ranked, judged, 10);
    ++result->queries;
  }
  if (result->queries > 0) {
    double n = static_cast<double>(result->queries);
    result->ndcg10 = ndcg / n;
    result->recall10 = r10 / n;
    result->recall100 = r100 / n;
    result->mrr10 = mrr / n;
  }
  result->query_ms_p50 = search::Percentile(times.latencies, 50);
  result->query_ms_p95 = search::Percentile(times.latencies, 95);
  if (!times.search_ms.empty()) {
    result->query_embed_ms_p50 = search::Percentile(times.embed_ms, 50);
    result->search_ms_p50 = search::Percentile(times.search_ms, 50);
    result->search_ms_p95 = search::Percentile(times.search_ms, 95);
    for (auto& [stage, ms] : times.stage_ms) result->stage_ms_p50[stage] = search::Percentile(ms, 50);
  }
  return Status::Ok();
}

}  // namespace

Result<EvalResult> RunEval(const EvalOptions& options) {
  if (options.mode == SearchMode::kDefault) {
    return Status::InvalidArgument("--mode must be keyword, hybrid or vector");
  }
  ENGRAM_ASSIGN_OR_RETURN(BeirSet set, LoadBeir(options.corpus, options.queries, options.qrels));

  ScratchDir scratch;
  if (scratch.path().empty()) return Status::IOError("cannot create a temporary directory");
  EngineOptions eo;
  eo.create_if_missing = true;
  auto opened = options.store.empty() ? OpenSqliteStore(scratch.path() / "eval.db", eo) : OpenStore(options.store, eo);
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, std::move(opened));
  if (!options.store.empty()) {
    ENGRAM_ASSIGN_OR_RETURN(BrainStats before, engine->Stats(ReadScope::All("default")));
    if (before.pages > 0) {
      return Status::FailedPrecondition("--store " + DescribeStore(options.store) + " already holds " +
                                        std::to_string(before.pages) + " pages; eval needs an empty store");
    }
  }

  EvalResult result;
  std::map<std::string, std::string> doc_of_slug;
  ENGRAM_RETURN_IF_ERROR(IndexCorpus(*engine, set, options, &doc_of_slug, &result));
  VectorSide side;
  ENGRAM_RETURN_IF_ERROR(OpenVectorSide(*engine, scratch.path(), options, &side, &result));
  ENGRAM_RETURN_IF_ERROR(RunQueries(*engine, set, side, SearchOptionsOf(options), doc_of_slug, &result));
  return result;
}

}  // namespace engram
