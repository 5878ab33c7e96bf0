#include "vector_commands.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>
#include <unordered_set>

#include "embed/kernels.h"
#include "output.h"
#include "vector/exact.h"
#include "vector/fvecs.h"
#include "vector/hnsw_index.h"

namespace engram::cli {

namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

struct VectorBenchArgs {
  std::string base, queries, groundtruth, save, index;
  int k = 10;
  int m = 16;
  int ef_construction = 200;
  int ef_search = 64;
  int threads = 1;
};

void Normalize(vector::VecFile<float>* v) {
  for (size_t r = 0; r < v->rows; ++r) embed::kernels::L2Normalize(v->data.data() + r * v->dims, static_cast<int>(v->dims));
}

// Runs fn(i) for i in [0, n) on threads threads.
template <typename Fn>
void Parallel(size_t n, int threads, Fn fn) {
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
  };
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

int RunVectorBench(const VectorBenchArgs& a, bool json) {
  auto base = vector::ReadFvecs(a.base);
  if (!base.ok()) return Fail(base.status(), json);
  auto queries = vector::ReadFvecs(a.queries);
  if (!queries.ok()) return Fail(queries.status(), json);
  if (base->dims != queries->dims) {
    return Fail(Status::InvalidArgument("--queries have " + std::to_string(queries->dims) + " dimensions, --base " +
                                        std::to_string(base->dims)),
                json);
  }
  Normalize(&*base);
  Normalize(&*queries);
  const size_t k = static_cast<size_t>(a.k), nq = queries->rows, d = base->dims;
  // The truth: the file's first k ids per query, or exact search.
  std::vector<std::vector<int64_t>> truth(nq);
  if (!a.groundtruth.empty()) {
    auto gt = vector::ReadIvecs(a.groundtruth);
    if (!gt.ok()) return Fail(gt.status(), json);
    if (gt->rows != nq || gt->dims < k) {
      return Fail(Status::InvalidArgument(a.groundtruth + ": needs " + std::to_string(nq) + " rows of at least " +
                                          std::to_string(k) + " ids"),
                  json);
    }
    for (size_t q = 0; q < nq; ++q) truth[q].assign(gt->data.begin() + q * gt->dims, gt->data.begin() + q * gt->dims + k);
  } else {
    Parallel(nq, a.threads, [&](size_t q) {
      for (const auto& s : vector::ExactTopK(base->data.data(), base->rows, d, queries->data.data() + q * d, k)) {
        truth[q].push_back(static_cast<int64_t>(s.row));
      }
    });
  }
  vector::HnswParams p;
  p.m = a.m;
  p.ef_construction = a.ef_construction;
  std::unique_ptr<vector::HnswIndex> index;
  bool loaded = false;
  if (!a.index.empty() && std::filesystem::exists(a.index)) {
    auto l = vector::HnswIndex::Load(a.index, nullptr);
    if (!l.ok()) return Fail(l.status(), json);
    if ((*l)->dims() != static_cast<int>(d) || (*l)->size() != base->rows || (*l)->params().m != a.m ||
        (*l)->params().ef_construction != a.ef_construction) {
      return Fail(Status::InvalidArgument(a.index + ": built from other vectors or parameters"), json);
    }
    index = std::move(*l);
    loaded = true;
  }
  auto t0 = Clock::now();
  if (!loaded) {
    index = std::make_unique<vector::HnswIndex>(static_cast<int>(d), p);
    index->Reserve(base->rows);
    for (size_t r = 0; r < base->rows; ++r) {
      if (Status st = index->Add(static_cast<int64_t>(r), base->data.data() + r * d); !st.ok()) return Fail(st, json);
    }
  }
  const double build_s = loaded ? 0.0 : std::chrono::duration<double>(Clock::now() - t0).count();
  for (const std::string& out : {a.save, loaded ? std::string() : a.index}) {
    if (out.empty()) continue;
    if (Status st = index->Save(out, 0); !st.ok()) return Fail(st, json);
  }
  std::vector<std::vector<vector::Neighbor>> got(nq);
  Parallel(std::min<size_t>(nq, 50), 1, [&](size_t q) {  // warm-up
    got[q] = index->Search(queries->data.data() + q * d, k, static_cast<size_t>(a.ef_search));
  });
  t0 = Clock::now();
  Parallel(nq, a.threads, [&](size_t q) {
    got[q] = index->Search(queries->data.data() + q * d, k, static_cast<size_t>(a.ef_search));
  });
  const double search_s = std::chrono::duration<double>(Clock::now() - t0).count();
  size_t hits = 0;
  for (size_t q = 0; q < nq; ++q) {
    std::unordered_set<int64_t> want(truth[q].begin(), truth[q].end());
    for (const auto& n : got[q]) hits += want.count(n.label);
  }
  Json j = {{"recall", static_cast<double>(hits) / static_cast<double>(nq * k)},
            {"qps", static_cast<double>(nq) / search_s},
            {"build_seconds", build_s},
            {"bytes_per_vector", static_cast<double>(index->MemoryBytes()) / static_cast<double>(base->rows)},
            {"vectors", base->rows},
            {"queries", nq},
            {"dims", d},
            {"k", k},
            {"m", a.m},
            {"ef_construction", a.ef_construction},
            {"ef_search", a.ef_search},
            {"threads", a.threads},
            {"index_loaded", loaded}};
  std::cout << engram::ops::Dump(j, json ? 2 : -1) << "\n";
  return 0;
}

}  // namespace

void AddVectorBenchCommand(CLI::App& app, const bool* json, int* exit_code) {
  auto a = std::make_shared<VectorBenchArgs>();
  auto* bench = app.get_subcommand("bench");
  auto* v = bench->add_subcommand("vector", "HNSW recall, queries/s and build time on fvecs files");
  v->add_option("--base", a->base, "Vectors to index (.fvecs)")->required();
  v->add_option("--queries", a->queries, "Query vectors (.fvecs)")->required();
  v->add_option("--groundtruth", a->groundtruth, "True neighbours (.ivecs, row ids of --base); default: exact search");
  v->add_option("--k", a->k, "Neighbours per query (default 10)")->check(CLI::Range(1, 1000));
  v->add_option("--m", a->m, "HNSW links per node (default 16)")->check(CLI::Range(2, 256));
  v->add_option("--ef-construction", a->ef_construction, "Candidates while inserting (default 200)")
      ->check(CLI::Range(1, 100000));
  v->add_option("--ef-search", a->ef_search, "Candidates while searching (default 64)")->check(CLI::Range(1, 100000));
  v->add_option("--threads", a->threads, "Query threads (default 1); the build runs on one")->check(CLI::Range(1, 256));
  v->add_option("--save", a->save, "Also write the index file here");
  v->add_option("--index", a->index,
                "Reuse an index: load this file when it exists (build_seconds is then 0), else build and write it");
  v->footer(
      "Vectors are L2-normalised and compared by inner product. Prints {\"recall\", \"qps\", \"build_seconds\",\n"
      "\"bytes_per_vector\", ...}: recall@k against --groundtruth (or exact search), queries/s over all queries\n"
      "after a warm-up, bytes_per_vector the index's memory (vectors, codes, links, label map) per vector.");
  v->callback([a, json, exit_code] { *exit_code = RunVectorBench(*a, *json); });
}

}  // namespace engram::cli
