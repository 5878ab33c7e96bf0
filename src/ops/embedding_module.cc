// The embedding module (ops/embedding_module.h): embedding stale chunks (on
// demand and inline after writes), the model record, cached query vectors,
// and the vector index the vector arm reads.
#include "ops/embedding_module.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <shared_mutex>

#include "embed/embedder.h"
#include "ops/embedding_keys.h"
#include "ops/models.h"
#include "search/vector_arm.h"
#include "sync/write_lock.h"

namespace engram::ops {

namespace {

// Test-only fault point: with ENGRAM_FAULT_ABORT_AFTER_EMBEDDED=N the process
// aborts (like a kill) once N chunks of an embed run are stored.
void EmbedFaultPoint(int64_t embedded) {
  static const long long limit = [] {
    const char* v = std::getenv("ENGRAM_FAULT_ABORT_AFTER_EMBEDDED");
    return v != nullptr ? std::atoll(v) : -1LL;
  }();
  if (limit >= 0 && embedded >= limit) std::abort();
}

constexpr int64_t kChangeLogKeep = 200000;

// The model id a brain records: provider and model, so that a hash brain and
// a bert brain never mix.
std::string RecordedId(const embed::EmbedderInfo& info) { return info.provider + ":" + info.model; }

// .engram/vectors-<model id, made file-safe>[-<the database's index id>].hnsw
std::filesystem::path IndexFile(const std::filesystem::path& root, const std::string& model,
                                const std::string& index_id) {
  std::string name;
  for (char c : model) name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
  if (!index_id.empty()) name += "-" + index_id;
  return root / ".engram" / ("vectors-" + name + ".hnsw");
}

}  // namespace

EmbeddingModule::EmbeddingModule(Brain& brain) : brain_(brain) {}

EmbeddingModule::~EmbeddingModule() = default;

namespace {

// One vector index per database, model and index id, for the whole process.
struct SharedVectors {
  std::shared_mutex mu;
  std::unique_ptr<search::VectorArm> arm;
};

std::shared_ptr<SharedVectors> SharedVectorsFor(const std::string& key) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<SharedVectors>> shared;
  std::lock_guard<std::mutex> lock(mu);
  auto it = shared.find(key);
  if (it != shared.end()) return it->second;
  if (shared.size() >= 16) {  // stores come and go (tests): drop the indexes nobody holds
    for (auto s = shared.begin(); s != shared.end();) s = s->second.use_count() == 1 ? shared.erase(s) : std::next(s);
  }
  return shared.emplace(key, std::make_shared<SharedVectors>()).first->second;
}

}  // namespace

Result<EmbeddingModule::VectorsLease> EmbeddingModule::Vectors() {
  ENGRAM_ASSIGN_OR_RETURN(std::string model, brain_.engine().GetConfigValue(kModelKey));
  ENGRAM_ASSIGN_OR_RETURN(std::string dims, brain_.engine().GetConfigValue(kDimsKey));
  ENGRAM_ASSIGN_OR_RETURN(std::string index_id, brain_.engine().GetConfigValue(kIndexIdKey));
  if (model.empty() || dims.empty()) {
    if (brain_.options().embedding.provider == "none") {
      return Status::FailedPrecondition(
          "no embedding model is configured: choose one with `engram model use NAME` (or [embedding] in "
          "config.toml), then run `engram embed`");
    }
    return Status::FailedPrecondition("nothing is embedded yet: run `engram embed`");
  }
  const int want_dims = std::stoi(dims);
  std::shared_ptr<SharedVectors> shared =
      SharedVectorsFor(brain_.engine().StoreIdentity() + "\x1f" + model + "\x1f" + dims + "\x1f" + index_id);
  ENGRAM_ASSIGN_OR_RETURN(const int64_t generation, brain_.engine().Generation());
  {
    std::shared_lock<std::shared_mutex> read(shared->mu);
    if (shared->arm && shared->arm->dims() == want_dims && shared->arm->generation() >= generation) {
      search::VectorArm* arm = shared->arm.get();
      return VectorsLease{shared, std::move(read), arm};
    }
  }
  {
    std::unique_lock<std::shared_mutex> write(shared->mu);
    if (shared->arm && shared->arm->dims() == want_dims) {
      // What other processes (or this one's other connections) wrote since: a server's next request sees it.
      if (shared->arm->generation() < generation) {
        ENGRAM_RETURN_IF_ERROR(shared->arm->CatchUp(brain_.engine(), brain_.engine()));
      }
    } else {
      search::VectorIndexOptions vo;
      const VectorSettings& v = brain_.options().vector;
      vo.exact_below = static_cast<size_t>(v.exact_below);
      vo.exact_filter_max = static_cast<size_t>(v.exact_filter_max);
      vo.m = v.m;
      vo.ef_construction = v.ef_construction;
      vo.ef_search = v.ef_search;
      ENGRAM_ASSIGN_OR_RETURN(
          shared->arm, search::VectorArm::Open(brain_.engine(), brain_.engine(), IndexFile(brain_.root(), model, index_id),
                                               model, want_dims, vo, &vectors_note_));
    }
  }
  std::shared_lock<std::shared_mutex> read(shared->mu);
  search::VectorArm* arm = shared->arm.get();
  if (arm == nullptr) return Status::Internal("the vector index was dropped while opening it");
  return VectorsLease{shared, std::move(read), arm};
}

std::string EmbeddingModule::TakeVectorsNote() {
  std::string note = std::move(vectors_note_);
  vectors_note_.clear();
  return note;
}

Result<std::unique_ptr<embed::Embedder>> OpenEmbedder(const BrainOptions& o, const std::string& provider,
                                                      const std::string& model, int expected_dims) {
  if (provider == "hash") return embed::NewHashEmbedder(o.embedding.dimensions > 0 ? o.embedding.dimensions : 256);
  if (provider == "bert") {
    ENGRAM_ASSIGN_OR_RETURN(std::filesystem::path dir, ResolveModelDir(model));
    embed::BertOptions bo;
    bo.threads = o.embedding.threads;
    ENGRAM_ASSIGN_OR_RETURN(bo.precision, embed::ParsePrecision(o.embedding.precision));
    return embed::OpenBertEmbedder(dir, bo);
  }
  if (provider != "openai") return Status::InvalidArgument("unknown embedding provider '" + provider + "'");
  embed::OpenAiOptions ao;
  ao.base_url = o.embedding.base_url;
  ao.model = model;
  ao.api_key_env = o.embedding.api_key_env;
  ao.dimensions = o.embedding.dimensions;
  ao.expected_dims = expected_dims;
  ao.max_batch = o.embedding.max_batch;
  ao.max_batch_tokens = o.embedding.max_batch_tokens;
  ao.timeout_ms = o.embedding.timeout_ms;
  ao.max_retries = o.embedding.max_retries;
  ao.requests_per_minute = o.embedding.requests_per_minute;
  return embed::OpenOpenAiEmbedder(ao);
}

Result<embed::Embedder*> EmbeddingModule::GetEmbedder() {
  if (embedder_) return embedder_.get();
  const BrainOptions& o = brain_.options();
  if (o.embedding.provider == "none") {
    return Status::FailedPrecondition(
        "no embedding model is configured: run `engram model use NAME` or set "
        "[embedding] provider in .engram/config.toml");
  }
  int expected_dims = 0;
  if (o.embedding.provider == "openai") {
    ENGRAM_ASSIGN_OR_RETURN(std::string dims, brain_.engine().GetConfigValue(kDimsKey));
    ENGRAM_ASSIGN_OR_RETURN(std::string recorded, brain_.engine().GetConfigValue(kModelKey));
    if (recorded == "openai:" + o.embedding.model && !dims.empty()) expected_dims = std::stoi(dims);
  }
  ENGRAM_ASSIGN_OR_RETURN(embedder_, OpenEmbedder(o, o.embedding.provider, o.embedding.model, expected_dims));
  return embedder_.get();
}

Result<EmbeddingStatus> EmbeddingModule::EmbeddingState(const ReadScope& scope) {
  EmbeddingStatus s;
  s.provider = brain_.options().embedding.provider;
  s.model = brain_.options().embedding.model;
  ENGRAM_ASSIGN_OR_RETURN(s.recorded_model, brain_.engine().GetConfigValue(kModelKey));
  ENGRAM_ASSIGN_OR_RETURN(std::string dims, brain_.engine().GetConfigValue(kDimsKey));
  s.recorded_dims = dims.empty() ? 0 : std::stoi(dims);
  ENGRAM_ASSIGN_OR_RETURN(EmbeddingCounts c, brain_.engine().CountEmbeddings(s.recorded_model, scope));
  s.chunks = c.chunks;
  s.current = c.current;
  s.stale = c.stale;
  return s;
}

Result<EmbedReport> EmbeddingModule::EmbedLocked(bool all, const std::function<void(int64_t, int64_t)>& progress) {
  auto t0 = std::chrono::steady_clock::now();
  ENGRAM_ASSIGN_OR_RETURN(embed::Embedder * e, GetEmbedder());
  const std::string id = RecordedId(e->info());
  ENGRAM_ASSIGN_OR_RETURN(std::string recorded, brain_.engine().GetConfigValue(kModelKey));
  ENGRAM_ASSIGN_OR_RETURN(std::string recorded_dims, brain_.engine().GetConfigValue(kDimsKey));
  if (!recorded.empty() && recorded != id && !all) {
    return Status::FailedPrecondition("this brain's vectors come from " + recorded + " (" + recorded_dims +
                                      " dimensions) but the configuration names " + id +
                                      ": run `engram embed --all` to re-embed every chunk with it");
  }
  ENGRAM_ASSIGN_OR_RETURN(std::string index_id, brain_.engine().GetConfigValue(kIndexIdKey));
  if (index_id.empty()) {
    std::random_device rd;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%08x%08x", rd(), rd());
    ENGRAM_RETURN_IF_ERROR(brain_.engine().SetConfigValue(kIndexIdKey, hex));
  }
  if (recorded != id) {
    // A new model: recorded first, so that an interrupted --all resumes with
    // --stale, and marked incomplete until every chunk has its vector.
    ENGRAM_RETURN_IF_ERROR(brain_.engine().SetConfigValue(kIncompleteKey, id));
    ENGRAM_RETURN_IF_ERROR(brain_.engine().SetConfigValue(kModelKey, id));
    ENGRAM_RETURN_IF_ERROR(brain_.engine().SetConfigValue(kDimsKey, std::to_string(e->info().dims)));
  }
  ENGRAM_ASSIGN_OR_RETURN(EmbeddingCounts before, brain_.engine().CountEmbeddings(id, ReadScope::All(kDefaultSource)));
  const int64_t total = all ? before.chunks : before.stale;
  EmbedReport r;
  r.provider = e->info().provider;
  r.model = e->info().model;
  ChunkId after;
  const size_t batch = static_cast<size_t>(std::max(1, brain_.options().embedding.max_batch));
  if (progress) progress(0, total);
  for (;;) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<EmbeddingTask> tasks, brain_.engine().ChunksToEmbed(id, all, after, batch));
    if (tasks.empty()) break;
    std::vector<std::string> texts;
    for (const auto& t : tasks) texts.push_back(t.text);
    ENGRAM_ASSIGN_OR_RETURN(std::vector<float> vectors, e->Embed(texts, embed::EmbedKind::kDocument));
    const int d = e->info().dims;
    if (recorded_dims.empty() || std::to_string(d) != recorded_dims) {
      ENGRAM_RETURN_IF_ERROR(brain_.engine().SetConfigValue(kDimsKey, std::to_string(d)));
      recorded_dims = std::to_string(d);
    }
    std::vector<EmbeddingWrite> rows;
    for (size_t i = 0; i < tasks.size(); ++i) {
      rows.push_back({tasks[i].chunk_id, id, EmbeddingTextHash(tasks[i].text),
                      std::vector<float>(vectors.begin() + static_cast<std::ptrdiff_t>(i * d),
                                         vectors.begin() + static_cast<std::ptrdiff_t>((i + 1) * d))});
    }
    ENGRAM_RETURN_IF_ERROR(brain_.engine().StoreEmbeddings(rows));
    r.embedded += static_cast<int64_t>(tasks.size());
    EmbedFaultPoint(r.embedded);
    after = tasks.back().chunk_id;
    if (progress) progress(r.embedded, total);
  }
  // The change log only needs to reach back as far as the oldest index file
  // worth catching up; an older one is rebuilt.
  ENGRAM_RETURN_IF_ERROR(brain_.engine().TrimChangeLog(kChangeLogKeep));
  ENGRAM_ASSIGN_OR_RETURN(EmbeddingCounts now, brain_.engine().CountEmbeddings(id, ReadScope::All(kDefaultSource)));
  if (now.stale == 0) ENGRAM_RETURN_IF_ERROR(brain_.engine().SetConfigValue(kIncompleteKey, ""));
  r.dims = e->info().dims;
  r.chunks = now.chunks;
  r.stale = now.stale;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

Result<EmbedReport> EmbeddingModule::Embed(const OperationContext&, bool all,
                                           std::function<void(int64_t, int64_t)> progress) {
  ENGRAM_ASSIGN_OR_RETURN(auto lock, brain_.LockForWrite(all ? "embed --all" : "embed"));
  ENGRAM_ASSIGN_OR_RETURN(EmbedReport r, EmbedLocked(all, progress));
  // Bring the vector index up to date now, so that the next search does not
  // pay for building it.
  auto v = Vectors();
  r.index_note = v.ok() ? vectors_note_ : "vector index not updated: " + v.status().message();
  vectors_note_.clear();
  return r;
}

std::tuple<int64_t, int64_t, std::string> EmbeddingModule::EmbedInline() {
  if (brain_.options().embedding.provider == "none") return {0, 0, ""};
  auto recorded = brain_.engine().GetConfigValue(kModelKey);
  if (!recorded.ok()) return {0, 0, recorded.status().message()};
  auto counts = brain_.engine().CountEmbeddings(*recorded, ReadScope::All(kDefaultSource));
  if (!counts.ok()) return {0, 0, counts.status().message()};
  if (counts->stale == 0) return {0, 0, ""};
  if (counts->stale > brain_.options().embedding.inline_limit) {
    return {0, counts->stale, "run `engram embed --stale` to embed " + std::to_string(counts->stale) + " chunks"};
  }
  auto r = EmbedLocked(false, {});
  if (!r.ok()) return {0, counts->stale, "embedding skipped: " + r.status().message()};
  return {r->embedded, r->stale, ""};
}

Result<std::vector<float>> EmbeddingModule::EmbedQuery(std::string_view query) {
  ENGRAM_ASSIGN_OR_RETURN(embed::Embedder * e, GetEmbedder());
  const std::string id = RecordedId(e->info());
  auto cached = brain_.engine().CachedQueryVector(id, query);
  if (cached.ok() && cached->has_value() && static_cast<int>((*cached)->size()) == e->info().dims) {
    return std::move(**cached);
  }
  ENGRAM_ASSIGN_OR_RETURN(std::vector<float> v, e->Embed({std::string(query)}, embed::EmbedKind::kQuery));
  (void)brain_.engine().CacheQueryVector(id, query, v);  // a read-only or busy database only loses the cache entry
  return v;
}

}  // namespace engram::ops
