// The search module: keyword, vector and hybrid retrieval over the brain
// (src/search), the agent context block, and the LLM client of query
// expansion, opened on the first search that asks for it.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "engram/brain.h"

namespace engram {
namespace llm {
class ChatClient;
}
namespace search {
struct ContextOptions;
}
namespace graph {
struct GraphAnswer;
}
}  // namespace engram

namespace engram::ops {

class SearchModule final : public BrainModule {
 public:
  explicit SearchModule(Brain& brain);
  ~SearchModule() override;

  Result<SearchResponse> Search(const OperationContext& ctx, std::string_view query, SearchOptions options);
  // The agent context block for a query (search/context_block.h); a query
  // with no searchable words gives an empty block.
  Result<ContextReport> Context(const OperationContext& ctx, std::string_view query, SearchOptions options,
                                const search::ContextOptions& context);
  // The graph's answer when the query is an entity question it answers
  // (graph/answer.h: "who founded X", "X现在在哪里工作"), else nullopt.
  Result<std::optional<graph::GraphAnswer>> AnswerFromGraph(const OperationContext& ctx, std::string_view query);
  // Search options filled from the brain's configuration.
  SearchOptions DefaultSearchOptions() const;

 private:
  // Search without the note about a lagging replica.
  Result<SearchResponse> SearchStore(const OperationContext& ctx, std::string_view query, SearchOptions options);

  Brain& brain_;
  std::unique_ptr<llm::ChatClient> chat_;  // query expansion, when configured
};

}  // namespace engram::ops
