// Brain::Search: keyword, vector or hybrid retrieval over the brain, and the
// vector index that the vector arm reads.
#include <cctype>

#include "embed/embedder.h"
#include "engram/brain.h"
#include "ops/embedding_keys.h"
#include "llm/chat_client.h"
#include "llm/expansion.h"
#include "search/context_block.h"
#include "search/hybrid.h"
#include "search/keyword_search.h"
#include "search/vector_arm.h"

namespace engram {

namespace {

using ops::kDimsKey;
using ops::kIndexIdKey;
using ops::kModelKey;
using ops::kIncompleteKey;

// .engram/vectors-<model id, made file-safe>[-<the database's index id>].hnsw
std::filesystem::path IndexFile(const std::filesystem::path& root, const std::string& model,
                                const std::string& index_id) {
  std::string name;
  for (char c : model) name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
  if (!index_id.empty()) name += "-" + index_id;
  return root / ".engram" / ("vectors-" + name + ".hnsw");
}

}  // namespace

Result<search::VectorArm*> Brain::Vectors() {
  ENGRAM_ASSIGN_OR_RETURN(std::string model, engine_->GetConfigValue(kModelKey));
  ENGRAM_ASSIGN_OR_RETURN(std::string dims, engine_->GetConfigValue(kDimsKey));
  ENGRAM_ASSIGN_OR_RETURN(std::string index_id, engine_->GetConfigValue(kIndexIdKey));
  if (model.empty() || dims.empty()) {
    if (options_.embedding.provider == "none") {
      return Status::FailedPrecondition(
          "no embedding model is configured: choose one with `engram model use NAME` (or [embedding] in "
          "config.toml), then run `engram embed`");
    }
    return Status::FailedPrecondition("nothing is embedded yet: run `engram embed`");
  }
  if (vectors_ && vectors_->dims() == std::stoi(dims)) return vectors_.get();
  search::VectorIndexOptions vo;
  vo.exact_below = static_cast<size_t>(options_.vector.exact_below);
  vo.exact_filter_max = static_cast<size_t>(options_.vector.exact_filter_max);
  vo.m = options_.vector.m;
  vo.ef_construction = options_.vector.ef_construction;
  vo.ef_search = options_.vector.ef_search;
  ENGRAM_ASSIGN_OR_RETURN(vectors_, search::VectorArm::Open(*engine_, *engine_, IndexFile(root_, model, index_id), model,
                                                            std::stoi(dims), vo, &vectors_note_));
  return vectors_.get();
}

Result<SearchResponse> Brain::Search(const OperationContext& ctx, std::string_view query, SearchOptions options) {
  options.include_private = !ctx.remote;
  options.filter.include_private = options.include_private;
  SearchMode mode = options.mode;
  if (mode == SearchMode::kDefault) mode = ParseSearchMode(options_.search.mode).value_or(SearchMode::kDefault);
  if (mode == SearchMode::kDefault) mode = options_.embedding.provider == "none" ? SearchMode::kKeyword : SearchMode::kHybrid;
  options.mode = mode;
  if (mode == SearchMode::kKeyword) return search::KeywordSearch(*engine_, query, options);
  search::VectorQuery vq;
  ENGRAM_ASSIGN_OR_RETURN(std::string incomplete, engine_->GetConfigValue(kIncompleteKey));
  auto arm = incomplete.empty() ? Vectors()
                                : Result<search::VectorArm*>(Status::FailedPrecondition(
                                      "the switch to " + incomplete + " has not embedded every chunk yet: run `engram "
                                      "embed` to finish it (keyword results until then)"));
  if (!arm.ok()) {
    vq.off_reason = arm.status().message();
  } else {
    auto v = EmbedQuery(query);
    if (!v.ok()) {
      vq.off_reason = "the query could not be embedded: " + v.status().message();
    } else if (static_cast<int>(v->size()) != (*arm)->dims()) {
      vq.off_reason = "the configured model gives " + std::to_string(v->size()) + " dimensions, the brain's vectors " +
                      std::to_string((*arm)->dims()) + ": run `engram embed --all`";
    } else {
      vq.arm = *arm;
      vq.vectors.push_back(std::move(*v));
    }
  }
  // Optional LLM expansion: each sanitised variant gets its own vector arm.
  std::vector<std::string> notes;
  if (vq.arm != nullptr && options_.search.expansion > 0) {
    Status expanded = [&]() -> Status {
      if (!chat_) {
        llm::ChatOptions co;
        co.base_url = options_.llm.base_url;
        co.model = options_.llm.model;
        co.api_key_env = options_.llm.api_key_env;
        co.timeout_ms = options_.llm.timeout_ms;
        ENGRAM_ASSIGN_OR_RETURN(chat_, llm::OpenChatClient(co));
      }
      ENGRAM_ASSIGN_OR_RETURN(std::vector<std::string> variants,
                              llm::ExpandQuery(*chat_, query, static_cast<size_t>(options_.search.expansion)));
      for (const std::string& variant : variants) {
        ENGRAM_ASSIGN_OR_RETURN(std::vector<float> v, EmbedQuery(variant));
        vq.vectors.push_back(std::move(v));
        notes.push_back("expanded: " + variant);
      }
      return Status::Ok();
    }();
    if (!expanded.ok()) notes.push_back("degraded: query expansion failed (" + expanded.message() + ")");
  }
  ENGRAM_ASSIGN_OR_RETURN(SearchResponse r, search::HybridSearch(*engine_, query, options, vq));
  r.notes.insert(r.notes.end(), notes.begin(), notes.end());
  if (!vectors_note_.empty()) {
    r.notes.push_back(vectors_note_);
    vectors_note_.clear();
  }
  return r;
}

Result<ContextReport> Brain::Context(const OperationContext& ctx, std::string_view query, SearchOptions options,
                                     const search::ContextOptions& context) {
  auto r = Search(ctx, query, std::move(options));
  std::vector<SearchHit> hits;
  if (r.ok()) {
    hits = std::move(r->results);
  } else if (r.status().code() != StatusCode::kInvalidArgument ||
             r.status().message().find("no searchable words") == std::string::npos) {
    return r.status();
  }
  return ContextReport{search::RenderContext(hits, context), hits.size()};
}

}  // namespace engram
