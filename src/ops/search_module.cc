// The search module (ops/search_module.h): keyword, vector or hybrid
// retrieval over the brain, with the embedding module's vector index and
// query vectors, and the LLM's query expansion.
#include "ops/search_module.h"

#include <optional>

#include "graph/answer.h"
#include "llm/chat_client.h"
#include "llm/expansion.h"
#include "ops/embedding_keys.h"
#include "ops/embedding_module.h"
#include "search/context_block.h"
#include "search/hybrid.h"
#include "search/keyword_search.h"
#include "search/vector_arm.h"

namespace engram::ops {

SearchModule::SearchModule(Brain& brain) : brain_(brain) {}

SearchModule::~SearchModule() = default;

Result<SearchResponse> SearchModule::Search(const OperationContext& ctx, std::string_view query,
                                            SearchOptions options) {
  ENGRAM_ASSIGN_OR_RETURN(SearchResponse r, SearchStore(ctx, query, std::move(options)));
  // Results read from a replica that lags say so: the latest writes may be missing from them.
  ENGRAM_ASSIGN_OR_RETURN(std::optional<ReplicaState> replica, brain_.engine().ReadReplica());
  if (replica && replica->serving && replica->lag_seconds > 0) {
    char lag[32];
    std::snprintf(lag, sizeof lag, "%.1f", replica->lag_seconds);
    r.notes.push_back("read from the replica at " + replica->where + ", " + lag +
                      " s behind the primary: the latest writes may be missing");
  }
  return r;
}

Result<SearchResponse> SearchModule::SearchStore(const OperationContext& ctx, std::string_view query,
                                                 SearchOptions options) {
  options.include_private = !ctx.remote;
  options.filter.include_private = options.include_private;
  SearchMode mode = options.mode;
  const BrainOptions& o = brain_.options();
  if (mode == SearchMode::kDefault) mode = ParseSearchMode(o.search.mode).value_or(SearchMode::kDefault);
  if (mode == SearchMode::kDefault) mode = o.embedding.provider == "none" ? SearchMode::kKeyword : SearchMode::kHybrid;
  options.mode = mode;
  if (mode == SearchMode::kKeyword) return search::KeywordSearch(brain_.engine(), query, options);
  EmbeddingModule& embedding = brain_.Module<EmbeddingModule>();
  search::VectorQuery vq;
  ENGRAM_ASSIGN_OR_RETURN(std::string incomplete, brain_.engine().GetConfigValue(kIncompleteKey));
  // The query's vector first: the shared index is held (read-locked) only for the search itself.
  std::optional<Result<std::vector<float>>> embedded;
  if (incomplete.empty()) embedded = embedding.EmbedQuery(query);
  auto arm = incomplete.empty()
                 ? embedding.Vectors()
                 : Result<EmbeddingModule::VectorsLease>(Status::FailedPrecondition(
                       "the switch to " + incomplete +
                       " has not embedded every chunk yet: run `engram embed` to finish it (keyword results until then)"));
  if (!arm.ok()) {
    vq.off_reason = arm.status().message();
  } else {
    auto& v = *embedded;
    if (!v.ok()) {
      vq.off_reason = "the query could not be embedded: " + v.status().message();
    } else if (static_cast<int>(v->size()) != arm->arm->dims()) {
      vq.off_reason = "the configured model gives " + std::to_string(v->size()) + " dimensions, the brain's vectors " +
                      std::to_string(arm->arm->dims()) + ": run `engram embed --all`";
    } else {
      vq.arm = arm->arm;
      vq.vectors.push_back(std::move(*v));
    }
  }
  // Optional LLM expansion: each sanitised variant gets its own vector arm.
  std::vector<std::string> notes;
  if (vq.arm != nullptr && o.search.expansion > 0) {
    Status expanded = [&]() -> Status {
      if (!chat_) {
        llm::ChatOptions co;
        co.base_url = o.llm.base_url;
        co.model = o.llm.model;
        co.api_key_env = o.llm.api_key_env;
        co.timeout_ms = o.llm.timeout_ms;
        ENGRAM_ASSIGN_OR_RETURN(chat_, llm::OpenChatClient(co));
      }
      ENGRAM_ASSIGN_OR_RETURN(std::vector<std::string> variants,
                              llm::ExpandQuery(*chat_, query, static_cast<size_t>(o.search.expansion)));
      for (const std::string& variant : variants) {
        ENGRAM_ASSIGN_OR_RETURN(std::vector<float> v, embedding.EmbedQuery(variant));
        vq.vectors.push_back(std::move(v));
        notes.push_back("expanded: " + variant);
      }
      return Status::Ok();
    }();
    if (!expanded.ok()) notes.push_back("degraded: query expansion failed (" + expanded.message() + ")");
  }
  ENGRAM_ASSIGN_OR_RETURN(SearchResponse r, search::HybridSearch(brain_.engine(), query, options, vq));
  r.notes.insert(r.notes.end(), notes.begin(), notes.end());
  if (std::string note = embedding.TakeVectorsNote(); !note.empty()) r.notes.push_back(std::move(note));
  return r;
}

Result<std::optional<graph::GraphAnswer>> SearchModule::AnswerFromGraph(const OperationContext& ctx,
                                                                         std::string_view query) {
  const graph::GraphQuestion q = graph::ParseQuestion(query);
  if (q.kind == graph::QuestionKind::kNone) return std::optional<graph::GraphAnswer>();
  ENGRAM_ASSIGN_OR_RETURN(graph::GraphAnswer a, graph::Answer(brain_.engine(), ReadScopeOf(ctx), q,
                                                              graph::GraphRules{brain_.options().graph}));
  if (!a.answered) return std::optional<graph::GraphAnswer>();
  return std::optional<graph::GraphAnswer>(std::move(a));
}

Result<ContextReport> SearchModule::Context(const OperationContext& ctx, std::string_view query, SearchOptions options,
                                            const search::ContextOptions& given) {
  // The graph first: an entity question's answer with its source lines, then
  // a card for each entity the query names (at most two).
  search::ContextOptions context = given;
  ENGRAM_ASSIGN_OR_RETURN(std::optional<graph::GraphAnswer> answer, AnswerFromGraph(ctx, query));
  if (answer) {
    context.notes.push_back({std::string("answer from facts: ") + graph::QuestionKindName(answer->question.kind),
                             graph::RenderAnswer(*answer)});
  }
  const ReadScope scope = ReadScopeOf(ctx);
  ENGRAM_ASSIGN_OR_RETURN(
      std::vector<std::string> named,
      graph::EntitiesNamedIn(brain_.engine(), scope, query, 2, graph::GraphRules{brain_.options().graph}));
  for (const std::string& slug : named) {
    auto card = graph::EntityCard(brain_.engine(), scope, slug, graph::GraphRules{brain_.options().graph});
    if (card.ok()) context.notes.push_back({"entity: " + slug, *card});
  }
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

SearchOptions SearchModule::DefaultSearchOptions() const {
  SearchOptions o;
  o.limit = static_cast<size_t>(brain_.options().search.limit);
  o.bm25_k1 = static_cast<float>(brain_.options().search.bm25_k1);
  o.bm25_b = static_cast<float>(brain_.options().search.bm25_b);
  o.title_weight = static_cast<float>(brain_.options().search.title_weight);
  o.mode = ParseSearchMode(brain_.options().search.mode).value_or(SearchMode::kDefault);  // config.cc checked it
  return o;
}

}  // namespace engram::ops
