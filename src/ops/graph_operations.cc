// The knowledge graph's operations: which page a name means, the facts
// about a page with the time they hold, and the conflicts among them
// (src/graph). Remote callers never see private pages: every read goes
// through the caller's ReadScope.
#include <nlohmann/json.hpp>

#include "engram/brain.h"
#include "graph/entities.h"
#include "graph/answer.h"
#include "graph/facts.h"
#include "graph/related.h"
#include "graph/traverse.h"
#include "ops/operation_params.h"
#include "ops/operations.h"
#include "ops/page_module.h"
#include "ops/page_names.h"
#include "ops/render.h"

namespace engram::ops {

using Json = nlohmann::json;
using Type = Param::Type;

namespace {

// The graph's rules from the brain's [graph] settings.
graph::GraphRules RulesOf(const Brain& b) { return graph::GraphRules{b.options().graph}; }

Json FactJson(const graph::Fact& f) {
  Json j = {{"subject", f.subject_slug}, {"predicate", f.predicate}, {"value", f.value},
            {"valid_from", f.valid_from}, {"valid_until", f.valid_until}, {"holds", f.holds},
            {"source", {{"slug", f.source_slug}, {"path", f.source_path}, {"line", f.line}, {"origin", f.origin}}},
            {"recorded_at", f.recorded_at}};
  j["entity"] = f.value_slug.empty() ? Json(nullptr) : Json(f.value_slug);
  j["superseded_by"] = f.superseded_by == 0 ? Json(nullptr) : Json(f.superseded_by);
  j["id"] = f.id;
  if (f.in_conflict) j["in_conflict"] = true;
  return j;
}

Json ConflictJson(const graph::Conflict& c) {
  Json facts = Json::array();
  for (const graph::Fact& f : c.facts) facts.push_back(FactJson(f));
  return {{"subject", c.subject_slug}, {"subject_title", c.subject_title}, {"predicate", c.predicate},
          {"facts", facts}};
}

// The as_of argument, normalised ("" = today).
Result<std::string> AsOf(const Args& a) {
  const std::string written = a.Str("as_of");
  if (written.empty()) return std::string();
  std::string d = graph::NormalizeFactDate(written);
  if (d.empty()) {
    return Status::InvalidArgument("as_of: '" + written + "' is not a date (2026-03-12, 2026-03, 2026 or 2026年3月)");
  }
  return d;
}

Param AsOfParam() {
  return {"as_of", Type::kString, false, "the date to settle facts at (default today), e.g. 2025-06 or 2025-06-30",
          0, 0, 64, {}, {}};
}

Json EdgeJson(const graph::Edge& e) {
  return {{"from", e.from}, {"to", e.to}, {"type", e.type}, {"context", e.context}};
}

Param RelParam() {
  return {"rel", Type::kString, false, "only links of this type (works_at, founded_by, mentions, ...)", 0, 0, 64, {},
          {}};
}

// Walks: a neighbourhood, a path, dead links, orphans.
void AddGraphTraversals(OperationTable& ops) {
  ops.Add({"traverse",
           "The pages within `depth` links of a page, both directions, with every link between them (its type "
           "and sentence). Bounded: depth 1-6, at most 1,000 pages, 2 s.",
           Scope::kRead, false,
           {Slug("the page: slug, path, title or alias"),
            {"depth", Type::kInteger, false, "links away (1-6, default 1)", 1, graph::kMaxDepth, 0, {}, {}}, RelParam()},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             const ReadScope scope = ReadScopeOf(ctx);
             ENGRAM_ASSIGN_OR_RETURN(StoredPage page, ResolvePage(b.engine(), scope, a.Str("slug")));
             graph::WalkLimits limits;
             limits.depth = static_cast<int>(a.Int("depth", 1));
             limits.relation = a.Str("rel");
             ENGRAM_ASSIGN_OR_RETURN(graph::Neighbourhood n, graph::Explore(b.engine(), scope, page.slug, limits));
             Json nodes = Json::array(), edges = Json::array();
             for (const auto& node : n.nodes) {
               nodes.push_back({{"slug", node.slug}, {"title", node.title}, {"type", node.type}, {"depth", node.depth}});
             }
             for (const auto& e : n.edges) edges.push_back(EdgeJson(e));
             return Json{{"root", page.slug}, {"depth", limits.depth}, {"nodes", nodes}, {"edges", edges},
                         {"truncated", n.truncated}};
           }});
  ops.Add({"related",
           "Pages related to a page by what they share: the pages both link to, the pages that mention both, "
           "and tags; best first, each with its reasons.",
           Scope::kRead, false, {Slug("the page: slug, path, title or alias"), Limit(100, "pages (1-100, default 10)")},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             const ReadScope scope = ReadScopeOf(ctx);
             ENGRAM_ASSIGN_OR_RETURN(StoredPage page, ResolvePage(b.engine(), scope, a.Str("slug")));
             ENGRAM_ASSIGN_OR_RETURN(std::vector<graph::RelatedPage> found,
                                     graph::Related(b.engine(), scope, page.slug,
                                                    static_cast<size_t>(a.Int("limit", 10))));
             Json list = Json::array();
             for (const auto& r : found) {
               list.push_back({{"slug", r.slug}, {"title", r.title}, {"score", r.score},
                               {"shared_links", r.shared_links}, {"co_mentions", r.co_mentions},
                               {"shared_tags", r.shared_tags}});
             }
             return Json{{"slug", page.slug}, {"related", list}};
           }});
  ops.Add({"find_path",
           "The shortest chain of links between two pages (either direction, at most 12 links), each link "
           "with its type and the sentence that makes it.",
           Scope::kRead, false,
           {{"from", Type::kString, true, "a page: slug, path, title or alias", 0, 0, 1024, {}, {}},
            {"to", Type::kString, true, "another page", 0, 0, 1024, {}, {}}, RelParam()},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             const ReadScope scope = ReadScopeOf(ctx);
             ENGRAM_ASSIGN_OR_RETURN(StoredPage from, ResolvePage(b.engine(), scope, a.Str("from")));
             ENGRAM_ASSIGN_OR_RETURN(StoredPage to, ResolvePage(b.engine(), scope, a.Str("to")));
             graph::WalkLimits limits;
             limits.relation = a.Str("rel");
             limits.max_nodes = 100000;
             ENGRAM_ASSIGN_OR_RETURN(graph::Path p, graph::ShortestPath(b.engine(), scope, from.slug, to.slug, limits));
             Json edges = Json::array();
             for (const auto& e : p.edges) edges.push_back(EdgeJson(e));
             return Json{{"from", from.slug}, {"to", to.slug}, {"found", p.found}, {"hops", p.edges.size()},
                         {"path", edges}, {"truncated", p.truncated}};
           }});
  ops.Add({"list_timeline",
           "One timeline merged across pages, oldest first: every dated entry in a range, or with `entity` "
           "the entries of that page and of pages linking to it whose line names it.",
           Scope::kRead, false,
           {{"entity", Type::kString, false, "a page: slug, path, title or alias", 0, 0, 1024, {}, {}},
            {"since", Type::kString, false, "from this date (2026-03, 2026-03-12)", 0, 0, 64, {}, {}},
            {"until", Type::kString, false, "through this date (2026-06: all of June)", 0, 0, 64, {}, {}},
            Limit(100000, "entries (1-100000, default 1000)")},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             const ReadScope scope = ReadScopeOf(ctx);
             std::string since, until, entity;
             for (auto [name, out] : {std::pair<const char*, std::string*>{"since", &since}, {"until", &until}}) {
               const std::string written = a.Str(name);
               if (written.empty()) continue;
               *out = graph::NormalizeFactDate(written);
               if (out->empty()) {
                 return Status::InvalidArgument(std::string(name) + ": '" + written +
                                                "' is not a date (2026-03-12, 2026-03, 2026 or 2026年3月)");
               }
             }
             if (!a.Str("entity").empty()) {
               ENGRAM_ASSIGN_OR_RETURN(StoredPage page, ResolvePage(b.engine(), scope, a.Str("entity")));
               entity = page.slug;
             }
             ENGRAM_ASSIGN_OR_RETURN(std::vector<DatedEntry> entries,
                                     graph::MergedTimeline(b.engine(), scope, entity, since, until,
                                                           static_cast<size_t>(a.Int("limit", 1000))));
             Json list = Json::array();
             for (const auto& e : entries) {
               list.push_back({{"slug", e.page_slug}, {"title", e.page_title}, {"date", e.entry.date},
                               {"summary", e.entry.summary}, {"source", e.entry.source}, {"line", e.entry.line}});
             }
             return Json{{"entity", entity}, {"since", since}, {"until", until}, {"timeline", list}};
           }});
  ops.Add({"list_dead_links", "Links that reach no page: the linking page, the target as written, the sentence.",
           Scope::kRead, false, {},
           [](Brain& b, const OperationContext& ctx, const Args&) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(std::vector<ResolvedLink> dead, graph::DeadLinks(b.engine(), ReadScopeOf(ctx)));
             Json list = Json::array();
             for (const auto& l : dead) {
               list.push_back({{"from", l.from_slug}, {"target", l.target}, {"type", l.type}, {"context", l.context}});
             }
             return Json{{"dead_links", list}};
           }});
  ops.Add({"list_orphans", "Pages no link reaches and that link to no page.", Scope::kRead, false, {},
           [](Brain& b, const OperationContext& ctx, const Args&) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(std::vector<PageNames> pages, graph::Orphans(b.engine(), ReadScopeOf(ctx)));
             Json list = Json::array();
             for (const auto& p : pages) list.push_back({{"slug", p.slug}, {"title", p.title}, {"path", p.path}});
             return Json{{"orphans", list}};
           }});
}

}  // namespace

void AddGraphOperations(OperationTable& ops) {
  ops.Add({"resolve_entity",
           "Which page a name means: by slug, file name, title, alias, folded spelling (case, width, "
           "Traditional/Simplified) or the spelling without spaces. Every page matched at the strongest "
           "level comes back with the reason; more than one means the name is ambiguous.",
           Scope::kRead, false, {{"name", Type::kString, true, "a name as people write it", 0, 0, 1024, {}, {}}},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(std::vector<graph::EntityCandidate> found,
                                     graph::ResolveEntity(b.engine(), ReadScopeOf(ctx), a.Str("name"), RulesOf(b)));
             Json list = Json::array();
             for (const auto& c : found) {
               list.push_back({{"slug", c.slug}, {"title", c.title}, {"type", c.type}, {"entity", c.is_entity},
                               {"reason", c.reason}});
             }
             return Json{{"name", a.Str("name")}, {"candidates", list}, {"ambiguous", found.size() > 1}};
           }});
  ops.Add({"get_entity",
           "One entity at a glance: its names, current facts (each with its source line), typed links both "
           "ways, open conflicts, and a short card of it all as text (what `context` opens with).",
           Scope::kRead, false, {Slug("the entity: slug, path, title or alias")},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             const ReadScope scope = ReadScopeOf(ctx);
             ENGRAM_ASSIGN_OR_RETURN(StoredPage page, ResolvePage(b.engine(), scope, a.Str("slug")));
             ENGRAM_ASSIGN_OR_RETURN(graph::FactSheet sheet,
                                     graph::FactsAbout(b.engine(), scope, page.slug, RulesOf(b), ""));
             Json facts = Json::array(), conflicts = Json::array(), out_links = Json::array(), in_links = Json::array();
             for (const auto& f : sheet.facts) {
               if (f.holds) facts.push_back(FactJson(f));
             }
             for (const auto& c : sheet.conflicts) conflicts.push_back(ConflictJson(c));
             ENGRAM_ASSIGN_OR_RETURN(std::vector<ResolvedLink> outbound, b.engine().ResolvedLinks(scope, page.id));
             for (const auto& l : outbound) {
               if (l.type != "mentions" && !l.to_slug.empty()) out_links.push_back({{"type", l.type}, {"to", l.to_slug}});
             }
             ENGRAM_ASSIGN_OR_RETURN(std::vector<LinkRecord> inbound, b.engine().Backlinks(scope, page.slug));
             for (const auto& l : inbound) {
               if (l.type != "mentions") in_links.push_back({{"type", l.type}, {"from", l.from_slug}});
             }
             ENGRAM_ASSIGN_OR_RETURN(std::string card,
                                     graph::EntityCard(b.engine(), scope, page.slug, RulesOf(b)));
             return Json{{"slug", page.slug},   {"title", page.title},         {"type", page.type},
                         {"entity", RulesOf(b).IsEntityType(page.type)}, {"aliases", page.aliases},
                         {"facts", facts},      {"links_out", out_links},      {"links_in", in_links},
                         {"conflicts", conflicts}, {"card", card}};
           }});
  ops.Add({"merge_entities",
           "Merge two pages about one entity: `into` gets `from`'s names as aliases, its text, timeline and "
           "frontmatter facts; every link to `from` is rewritten to `into`; `from` becomes a redirect page. "
           "Each page written is its own commit on a git brain. Local only: it rewrites private pages too.",
           Scope::kWrite, true,
           {{"from", Type::kString, true, "the page merged away: slug, path, title or alias", 0, 0, 1024, {}, {}},
            {"into", Type::kString, true, "the page kept", 0, 0, 1024, {}, {}},
            {"publish", Type::kBoolean, false,
             "merge a private page into a public one (its text, facts and names become public)", 0, 0, 0, {}, {}}},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(MergeReport r, b.Module<PageModule>().MergeEntity(ctx, a.Str("from"), a.Str("into"),
                                                                                       a.Bool("publish")));
             return Json{{"from", r.from},
                         {"into", r.into},
                         {"pages_rewritten", r.pages_rewritten},
                         {"links_rewritten", r.links_rewritten},
                         {"aliases_added", r.aliases_added},
                         {"commits", r.commits}};
           }});
  ops.Add({"split_entity",
           "Split a page about two entities: a new page `into` gets the aliases (`names`) and sections "
           "(`sections`, by heading) named, and links to `page` shown as a moved name reach it. Given a "
           "redirect page that merge_entities left (and no `into`), undoes that merge. Each page written is "
           "its own commit on a git brain. Local only: it rewrites private pages too.",
           Scope::kWrite, true,
           {{"page", Type::kString, true, "the page split, or a merged page to restore", 0, 0, 1024, {}, {}},
            {"into", Type::kString, false, "the new page's slug", 0, 0, 1024, {}, {}},
            {"names", Type::kStrings, false, "aliases of `page` that name the other entity", 0, 50, 200, {}, {}},
            {"sections", Type::kStrings, false, "headings of `page` whose sections move", 0, 50, 200, {}, {}},
            {"title", Type::kString, false, "the new page's title (default: the first name)", 0, 0, 200, {}, {}},
            {"publish", Type::kBoolean, false,
             "restore a public page from a private one (the text it takes back becomes public)", 0, 0, 0, {}, {}}},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             SplitRequest request{a.Str("page"),     a.Str("into"),  a.Strings("names"),
                                  a.Strings("sections"), a.Str("title"), a.Bool("publish")};
             ENGRAM_ASSIGN_OR_RETURN(SplitReport r, b.Module<PageModule>().SplitEntity(ctx, request));
             return Json{{"from", r.from},
                         {"into", r.into},
                         {"restored", r.restored},
                         {"names_moved", r.names_moved},
                         {"sections_moved", r.sections_moved},
                         {"pages_rewritten", r.pages_rewritten},
                         {"links_rewritten", r.links_rewritten},
                         {"commits", r.commits}};
           }});
  ops.Add({"suggest_facts",
           "The optional LLM relation extractor: asks the configured model ([llm]) for the relations a page "
           "states, keeps those about the page whose object resolves, at or above min_confidence, that the "
           "page does not already state and that nothing a person wrote contradicts; with write, appends them "
           "as fact lines marked with the model and its confidence. Local only: it sends the page to the model.",
           Scope::kWrite, true,
           {Slug("the page: slug, path, title or alias"),
            {"write", Type::kBoolean, false, "append the relations kept as fact lines", 0, 0, 0, {}, {}},
            {"min_confidence", Type::kNumber, false, "the least confidence kept (default 0.7)", 0, 1, 0, {}, {}}},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             const double min_confidence = a.Num("min_confidence", 0.7);
             ENGRAM_ASSIGN_OR_RETURN(SuggestReport r, b.Module<PageModule>().SuggestFacts(ctx, a.Str("slug"),
                                                                                          a.Bool("write"), min_confidence));
             Json list = Json::array();
             for (const FactSuggestion& s : r.suggestions) {
               list.push_back({{"subject", s.subject}, {"predicate", s.predicate}, {"object", s.object},
                               {"value", s.value}, {"line", s.line}, {"confidence", s.confidence},
                               {"verdict", s.verdict}});
             }
             return Json{{"slug", r.slug}, {"model", r.model}, {"suggestions", list}, {"dropped", r.dropped},
                         {"commit", r.commit}};
           }});
  ops.Add({"get_facts",
           "The facts about a page (frontmatter fields, fact lines, timeline changes), each with its source "
           "line and the time it holds: a newer value of a single-valued predicate (role, works_at, "
           "location, ...) closes the older one; facts that disagree at the same time are conflicts.",
           Scope::kRead, false, {Slug("the page: slug, path, title or alias"), AsOfParam()},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(std::string as_of, AsOf(a));
             const ReadScope scope = ReadScopeOf(ctx);
             ENGRAM_ASSIGN_OR_RETURN(StoredPage page, ResolvePage(b.engine(), scope, a.Str("slug")));
             ENGRAM_ASSIGN_OR_RETURN(graph::FactSheet sheet,
                                     graph::FactsAbout(b.engine(), scope, page.slug, RulesOf(b), as_of));
             Json facts = Json::array(), conflicts = Json::array();
             for (const auto& f : sheet.facts) facts.push_back(FactJson(f));
             for (const auto& c : sheet.conflicts) conflicts.push_back(ConflictJson(c));
             return Json{{"slug", page.slug}, {"title", page.title}, {"as_of", as_of}, {"facts", facts},
                         {"conflicts", conflicts}};
           }});
  ops.Add({"add_fact",
           "State a fact on a page: its Markdown gets a line '- fact: PREDICATE: VALUE (since FROM)', read "
           "back like every fact (a text value only for predicates such as role, works_at, location, status, "
           "born; any predicate takes a [[link]]). Nothing is overwritten: an older value stays as history.",
           Scope::kWrite, false,
           {Slug("the page the fact is about"),
            {"predicate", Type::kString, true, "e.g. role, works_at, location, status, born, reports_to", 0, 0, 48,
             {}, {}},
            {"value", Type::kString, true, "the value, or [[a page]] for an entity", 0, 0, 200, {}, {}},
            {"valid_from", Type::kString, false, "when it began, e.g. 2026-03", 0, 0, 64, {}, {}},
            {"valid_until", Type::kString, false, "when it ended", 0, 0, 64, {}, {}}},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(PutReport r, b.Module<PageModule>().AddFact(ctx, a.Str("slug"), a.Str("predicate"),
                                                                               a.Str("value"), a.Str("valid_from"),
                                                                               a.Str("valid_until")));
             return ToJson(r);
           }});
  ops.Add({"list_conflicts",
           "Facts that disagree: two values of a single-valued predicate (role, works_at, location, ...) "
           "that hold at the same time, each with the page and line that states it. Resolving one is an "
           "edit to the Markdown.",
           Scope::kRead, false, {AsOfParam()},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(std::string as_of, AsOf(a));
             ENGRAM_ASSIGN_OR_RETURN(std::vector<graph::Conflict> found,
                                     graph::AllConflicts(b.engine(), ReadScopeOf(ctx), RulesOf(b), as_of));
             Json list = Json::array();
             for (const auto& c : found) list.push_back(ConflictJson(c));
             return Json{{"as_of", as_of}, {"conflicts", list}};
           }});
  AddGraphTraversals(ops);
}

}  // namespace engram::ops
