// The search module's operations: search, and context for a prompt.
#include <nlohmann/json.hpp>

#include "graph/answer.h"
#include "ops/operation_params.h"
#include "ops/operations.h"
#include "ops/render.h"
#include "ops/search_module.h"
#include "search/context_block.h"

namespace engram::ops {

using Json = nlohmann::json;
using Type = Param::Type;

namespace {

// The graph's answer to an entity question, each item with its source line.
Json AnswerJson(const graph::GraphAnswer& a) {
  Json items = Json::array();
  for (const graph::AnswerItem& it : a.items) {
    Json j = {{"title", it.title},
              {"predicate", it.predicate},
              {"subject", it.subject_slug},
              {"valid_from", it.valid_from},
              {"valid_until", it.valid_until},
              {"holds", it.holds}};
    j["slug"] = it.slug.empty() ? Json(nullptr) : Json(it.slug);
    if (it.in_conflict) j["in_conflict"] = true;
    if (!it.source_path.empty()) j["source"] = {{"path", it.source_path}, {"line", it.line}};
    if (!it.evidence.empty()) j["evidence"] = it.evidence;
    items.push_back(std::move(j));
  }
  Json j = {{"kind", graph::QuestionKindName(a.question.kind)}, {"entity", a.entity_slug},
            {"entity_title", a.entity_title}, {"as_of", a.as_of}, {"items", items}};
  if (!a.question.predicate.empty()) j["predicate"] = a.question.predicate;
  if (!a.other_slug.empty()) j["other"] = a.other_slug;
  if (!a.note.empty()) j["note"] = a.note;
  return j;
}

Param Mode() {
  return {"mode", Type::kString, false, "keyword, vector or hybrid (default: hybrid when a model is configured)", 0, 0, 0,
          {"keyword", "vector", "hybrid"}, {}};
}
Param Filters() {
  return {"filters",
          Type::kObject,
          false,
          "restrict the pages searched",
          0,
          0,
          0,
          {},
          {{"type", Type::kStrings, false, "page types, e.g. person", 0, 0, 64, {}, {}},
           {"tag", Type::kStrings, false, "pages with any of these tags", 0, 0, 64, {}, {}},
           {"folder", Type::kString, false, "page path prefix, e.g. people/", 0, 0, 1024, {}, {}},
           {"source", Type::kString, false, "pages of this source only (default: any)", 0, 0, 256, {}, {}},
           {"since", Type::kString, false, "notes dated on or after this date (YYYY-MM-DD; the note's date)", 0, 0,
            32, {}, {}},
           {"until", Type::kString, false, "notes dated on or before this date (YYYY-MM-DD, the whole day)", 0, 0, 32,
            {}, {}}}};
}

SearchOptions SearchOptionsOf(Brain& brain, const Args& a) {
  SearchOptions o = brain.Module<SearchModule>().DefaultSearchOptions();
  o.limit = static_cast<size_t>(a.Int("limit", static_cast<int64_t>(o.limit)));
  if (a.Has("mode")) o.mode = ParseSearchMode(a.Str("mode")).value_or(SearchMode::kDefault);  // the table checked it
  o.explain = a.Bool("explain");
  Args f = a.Object("filters");
  o.filter.types = f.Strings("type");
  o.filter.tags = f.Strings("tag");
  o.filter.folder = f.Str("folder");
  if (f.Has("source")) o.filter.source = f.Str("source");
  o.filter.since = f.Str("since");
  o.filter.until = f.Str("until");
  return o;
}

}  // namespace

// Finding: search, and context for a prompt.
void AddSearchOperations(OperationTable& ops) {
  ops.Add({"search",
           "Search the brain by keyword, meaning, entity and time; best chunks first with their page, "
           "file and lines. An entity question (who founded X, where does Y work now, X的创始人是谁) also gets "
           "`answer`: what the facts and relations say, each with its source line.",
           Scope::kRead,
           false,
           {Query(), Limit(1000, "results (1-1000, default 10)"), Mode(), Filters(),
            {"explain", Type::kBoolean, false, "include each ranking stage's part per result", 0, 0, 0, {}, {}}},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             const SearchOptions o = SearchOptionsOf(b, a);
             ENGRAM_ASSIGN_OR_RETURN(SearchResponse r, b.Module<SearchModule>().Search(ctx, a.Str("query"), o));
             Json j = ToJson(r, o.explain);
             // An entity question is answered from facts and relations first, then by the text.
             ENGRAM_ASSIGN_OR_RETURN(std::optional<graph::GraphAnswer> answer,
                                     b.Module<SearchModule>().AnswerFromGraph(ctx, a.Str("query")));
             if (answer) j["answer"] = AnswerJson(*answer);
             return j;
           }});
  ops.Add({"context",
           "Retrieve reference passages for a question as one <retrieved_context> block to put in a prompt "
           "(escaped, within a character budget).",
           Scope::kRead,
           false,
           {Query(), Limit(1000, "entries (1-1000, default 10)"), Mode(), Filters(),
            {"max_chars", Type::kInteger, false, "budget of the whole block in characters (default 2500)", 100,
             1000000, 0, {}, {}},
            {"memory", Type::kString, false, "preferences and facts (a MEMORY.md's text), put first in the block",
             0, 0, 1 << 20, {}, {}},
            {"memory_name", Type::kString, false, "the memory's name in its header (default: memory)", 0, 0, 255,
             {}, {}}},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             search::ContextOptions co;
             co.max_chars = static_cast<size_t>(a.Int("max_chars", 2500));
             co.memory = a.Str("memory");
             co.memory_name = a.Str("memory_name");
             ENGRAM_ASSIGN_OR_RETURN(ContextReport r,
                                     b.Module<SearchModule>().Context(ctx, a.Str("query"), SearchOptionsOf(b, a), co));
             return Json{{"query", a.Str("query")}, {"context", r.block}, {"count", r.count}};
           }});
}

}  // namespace engram::ops
