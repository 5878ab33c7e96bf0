#include "ops/operations.h"

#include <nlohmann/json.hpp>

#include "common/utf8.h"
#include "ops/render.h"
#include "search/context_block.h"

namespace engram::ops {

using Json = nlohmann::json;
using Type = Param::Type;

namespace {

const char* TypeName(Type t) {
  switch (t) {
    case Type::kString: return "a string";
    case Type::kInteger: return "an integer";
    case Type::kBoolean: return "true or false";
    case Type::kStrings: return "a string or a list of strings";
    case Type::kObject: return "an object";
  }
  return "a value";
}

std::string Names(const std::vector<Param>& params) {
  std::string out;
  for (const Param& p : params) out += (out.empty() ? "" : ", ") + p.name;
  return out.empty() ? "none" : out;
}

Status CheckString(const std::string& where, const Param& p, const Json& v) {
  const std::string& s = v.get_ref<const std::string&>();
  if (const size_t bad = common::FindInvalidUtf8(s); bad != std::string::npos) {
    return Status::InvalidArgument(where + " is not valid UTF-8 at byte " + std::to_string(bad));
  }
  if (p.max_bytes > 0 && s.size() > p.max_bytes) {
    return Status::InvalidArgument(where + " is " + std::to_string(s.size()) + " bytes, over the limit of " +
                                   std::to_string(p.max_bytes));
  }
  if (!p.choices.empty() && std::find(p.choices.begin(), p.choices.end(), s) == p.choices.end()) {
    std::string allowed;
    for (const auto& c : p.choices) allowed += (allowed.empty() ? "" : ", ") + c;
    return Status::InvalidArgument(where + " must be one of " + allowed + ", not '" + s + "'");
  }
  return Status::Ok();
}

// Validates *obj against params in place (kStrings normalised to lists).
Status Validate(const std::string& prefix, const std::vector<Param>& params, Json* obj) {
  if (obj->is_null()) *obj = Json::object();
  if (!obj->is_object()) return Status::InvalidArgument((prefix.empty() ? "arguments" : prefix) + " must be a JSON object");
  for (auto it = obj->begin(); it != obj->end(); ++it) {
    auto p = std::find_if(params.begin(), params.end(), [&](const Param& x) { return x.name == it.key(); });
    if (p == params.end()) {
      return Status::InvalidArgument("unknown field '" + prefix + it.key() + "' (expected: " + Names(params) + ")");
    }
  }
  for (const Param& p : params) {
    const std::string where = "field '" + prefix + p.name + "'";
    auto it = obj->find(p.name);
    if (it == obj->end() || it->is_null()) {
      if (p.required) return Status::InvalidArgument(where + " is required");
      if (it != obj->end()) obj->erase(it);
      continue;
    }
    Json& v = *it;
    switch (p.type) {
      case Type::kString:
        if (!v.is_string()) return Status::InvalidArgument(where + " must be " + TypeName(p.type));
        ENGRAM_RETURN_IF_ERROR(CheckString(where, p, v));
        break;
      case Type::kInteger: {
        if (!v.is_number_integer()) return Status::InvalidArgument(where + " must be " + TypeName(p.type));
        const int64_t n = v.get<int64_t>();
        if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
          return Status::InvalidArgument(where + " is out of range");
        }
        if (p.max > p.min && (n < p.min || n > p.max)) {
          return Status::InvalidArgument(where + " must be between " + std::to_string(p.min) + " and " +
                                         std::to_string(p.max) + ", not " + std::to_string(n));
        }
        break;
      }
      case Type::kBoolean:
        if (!v.is_boolean()) return Status::InvalidArgument(where + " must be " + TypeName(p.type));
        break;
      case Type::kStrings: {
        if (v.is_string()) v = Json::array({v});
        if (!v.is_array()) return Status::InvalidArgument(where + " must be " + TypeName(p.type));
        if (v.size() > 50) return Status::InvalidArgument(where + " has " + std::to_string(v.size()) + " items, over 50");
        for (const Json& item : v) {
          if (!item.is_string()) return Status::InvalidArgument(where + " must hold strings only");
          ENGRAM_RETURN_IF_ERROR(CheckString(where, p, item));
        }
        break;
      }
      case Type::kObject:
        ENGRAM_RETURN_IF_ERROR(Validate(prefix + p.name + ".", p.fields, &v));
        break;
    }
  }
  return Status::Ok();
}

Json Schema(const Param& p) {
  Json s;
  switch (p.type) {
    case Type::kString:
      s = {{"type", "string"}};
      if (p.max_bytes > 0) s["maxLength"] = p.max_bytes;
      if (!p.choices.empty()) s["enum"] = p.choices;
      break;
    case Type::kInteger:
      s = {{"type", "integer"}};
      if (p.max > p.min) {
        s["minimum"] = p.min;
        s["maximum"] = p.max;
      }
      break;
    case Type::kBoolean: s = {{"type", "boolean"}}; break;
    case Type::kStrings:
      s = {{"anyOf", Json::array({{{"type", "string"}}, {{"type", "array"}, {"items", {{"type", "string"}}}, {"maxItems", 50}}})}};
      break;
    case Type::kObject: {
      Json props = Json::object();
      for (const Param& f : p.fields) props[f.name] = Schema(f);
      s = {{"type", "object"}, {"properties", props}, {"additionalProperties", false}};
      break;
    }
  }
  if (!p.description.empty()) s["description"] = p.description;
  return s;
}

// ---- the operations ----

Param Slug(std::string description = "the page's slug, e.g. people/zhang-san") {
  return {"slug", Type::kString, true, std::move(description), 0, 0, 1024, {}, {}};
}

Param Query() { return {"query", Type::kString, true, "what to look for (keywords or a question, any language)", 0, 0, 65536, {}, {}}; }
Param Limit(int64_t max, const char* what) { return {"limit", Type::kInteger, false, what, 1, max, 0, {}, {}}; }
Param Mode() {
  return {"mode", Type::kString, false, "keyword, vector or hybrid (default: hybrid when a model is configured)", 0, 0, 0,
          {"keyword", "vector", "hybrid"}, {}};
}
Param Filters() {
  return {"filters",
          Type::kObject,
          false,
          "restrict the pages searched (hybrid and vector modes)",
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
  SearchOptions o = brain.DefaultSearchOptions();
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

// Finding: search, and context for a prompt.
void AddSearchOperations(std::vector<Operation>& ops) {
  ops.push_back({"search",
                 "Search the brain by keyword, meaning, entity and time; best chunks first with their page, "
                 "file and lines.",
                 Scope::kRead,
                 false,
                 {Query(), Limit(1000, "results (1-1000, default 10)"), Mode(), Filters(),
                  {"explain", Type::kBoolean, false, "include each ranking stage's part per result", 0, 0, 0, {}, {}}},
                 [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
                   const SearchOptions o = SearchOptionsOf(b, a);
                   ENGRAM_ASSIGN_OR_RETURN(SearchResponse r, b.Search(ctx, a.Str("query"), o));
                   return ToJson(r, o.explain);
                 }});
  ops.push_back({"context",
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
                   ENGRAM_ASSIGN_OR_RETURN(ContextReport r, b.Context(ctx, a.Str("query"), SearchOptionsOf(b, a), co));
                   return Json{{"query", a.Str("query")}, {"context", r.block}, {"count", r.count}};
                 }});
}

// Whole pages: read, list, write, delete.
void AddPageOperations(std::vector<Operation>& ops) {
  ops.push_back({"get_page", "Read a page: its Markdown, frontmatter, compiled truth and timeline.", Scope::kRead, false,
                 {Slug()},
                 [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
                   ENGRAM_ASSIGN_OR_RETURN(StoredPage p, b.Get(ctx, a.Str("slug")));
                   return ToJson(p);
                 }});
  ops.push_back({"list_pages", "List pages, optionally of one type or tag.", Scope::kRead, false,
                 {{"type", Type::kString, false, "only pages of this type", 0, 0, 64, {}, {}},
                  {"tag", Type::kString, false, "only pages with this tag", 0, 0, 64, {}, {}},
                  Limit(1000000, "pages (1-1000000, default 100)")},
                 [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
                   ListFilter f;
                   f.type = a.Str("type");
                   f.tag = a.Str("tag");
                   f.limit = static_cast<size_t>(a.Int("limit", 100));
                   ENGRAM_ASSIGN_OR_RETURN(std::vector<PageSummary> pages, b.List(ctx, f));
                   return ToJson(pages);
                 }});
  ops.push_back({"put_page",
                 "Create or replace a page with the whole Markdown file (frontmatter included). The file is "
                 "written into the brain and indexed.",
                 Scope::kWrite, false,
                 {Slug("where the page goes, e.g. people/zhang-san (.md is added)"),
                  {"content", Type::kString, true, "the whole Markdown file", 0, 0, 0, {}, {}}},
                 [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
                   ENGRAM_ASSIGN_OR_RETURN(PutReport r, b.Put(ctx, a.Str("slug"), a.Str("content")));
                   return ToJson(r);
                 }});
  ops.push_back({"delete_page", "Delete a page and its Markdown file.", Scope::kWrite, false, {Slug()},
                 [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
                   ENGRAM_RETURN_IF_ERROR(b.Delete(ctx, a.Str("slug")));
                   return Json{{"deleted", a.Str("slug")}};
                 }});
}

// The parts of a page other operations read and edit on their own: its
// backlinks, timeline, links and tags.
void AddPagePartOperations(std::vector<Operation>& ops) {
  ops.push_back({"get_backlinks", "Pages that link to a page, with the link's type and sentence.", Scope::kRead, false,
                 {Slug()},
                 [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
                   ENGRAM_ASSIGN_OR_RETURN(std::vector<LinkRecord> links, b.Backlinks(ctx, a.Str("slug")));
                   return Json{{"slug", a.Str("slug")}, {"backlinks", ToJson(links)}};
                 }});
  ops.push_back({"get_timeline", "A page's dated timeline entries, oldest first.", Scope::kRead, false, {Slug()},
                 [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
                   ENGRAM_ASSIGN_OR_RETURN(std::vector<TimelineEntry> t, b.Timeline(ctx, a.Str("slug")));
                   return Json{{"slug", a.Str("slug")}, {"timeline", ToJson(t)}};
                 }});
  ops.push_back({"add_timeline_entry",
                 "Append a dated entry to a page's timeline (the page's Markdown gets a line "
                 "'- **DATE** | SUMMARY [Source: SOURCE]').",
                 Scope::kWrite, false,
                 {Slug(),
                  {"date", Type::kString, true, "e.g. 2026-04-07, 2026-04 or 2026年4月7日", 0, 0, 64, {}, {}},
                  {"summary", Type::kString, true, "one line", 0, 0, 2000, {}, {}},
                  {"source", Type::kString, false, "where it comes from, e.g. [[meetings/2026-04-07]]", 0, 0, 500, {}, {}}},
                 [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
                   ENGRAM_ASSIGN_OR_RETURN(PutReport r, b.AddTimelineEntry(ctx, a.Str("slug"), a.Str("date"),
                                                                          a.Str("summary"), a.Str("source")));
                   return ToJson(r);
                 }});
  ops.push_back({"add_link",
                 "Link a page to another (the page's Markdown gets a line such as '- Works at [[target]]').",
                 Scope::kWrite, false,
                 {Slug("the page the link goes from"),
                  {"target", Type::kString, true, "the slug linked to", 0, 0, 1024, {}, {}},
                  {"type", Type::kString, false, "default mentions", 0, 0, 0,
                   {"mentions", "works_at", "founded", "invested_in", "attended"}, {}}},
                 [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
                   ENGRAM_ASSIGN_OR_RETURN(PutReport r, b.AddLink(ctx, a.Str("slug"), a.Str("target"), a.Str("type")));
                   return ToJson(r);
                 }});
  ops.push_back({"get_tags", "A page's tags.", Scope::kRead, false, {Slug()},
                 [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
                   ENGRAM_ASSIGN_OR_RETURN(std::vector<std::string> tags, b.Tags(ctx, a.Str("slug")));
                   return Json{{"slug", a.Str("slug")}, {"tags", tags}};
                 }});
  ops.push_back({"add_tag", "Add a tag to a page's frontmatter.", Scope::kWrite, false,
                 {Slug(), {"tag", Type::kString, true, "letters, digits and - _ / .", 0, 0, 64, {}, {}}},
                 [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
                   ENGRAM_ASSIGN_OR_RETURN(PutReport r, b.AddTag(ctx, a.Str("slug"), a.Str("tag")));
                   return ToJson(r);
                 }});
}

// The brain as a whole: its status, syncing, importing and embedding.
void AddBrainOperations(std::vector<Operation>& ops) {
  ops.push_back({"status", "What the brain holds: pages, chunks, links, embeddings, the synced commit, recent problems.",
                 Scope::kRead, false, {},
                 [](Brain& b, const OperationContext& ctx, const Args&) -> Result<Json> {
                   ENGRAM_ASSIGN_OR_RETURN(BrainStatus s, b.GetStatus(ctx));
                   return ToJson(s);
                 }});
  ops.push_back({"sync", "Index what changed in the brain's git repository since the last sync.", Scope::kAdmin, true,
                 {{"full", Type::kBoolean, false, "walk every file instead of the git diff", 0, 0, 0, {}, {}},
                  {"worktree", Type::kBoolean, false, "include uncommitted changes", 0, 0, 0, {}, {}}},
                 [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
                   ENGRAM_ASSIGN_OR_RETURN(SyncReport r, b.Sync(ctx, a.Bool("full"), a.Bool("worktree"), ctx.progress));
                   return ToJson(r);
                 }});
  ops.push_back({"import", "Index a folder of Markdown files (any folder on this machine).", Scope::kAdmin, true,
                 {{"dir", Type::kString, true, "the folder", 0, 0, 4096, {}, {}},
                  {"dry_run", Type::kBoolean, false, "report what would change", 0, 0, 0, {}, {}}},
                 [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
                   ENGRAM_ASSIGN_OR_RETURN(ImportReport r, b.Import(ctx, a.Str("dir"), a.Bool("dry_run")));
                   return ToJson(r);
                 }});
  ops.push_back({"embed", "Embed the chunks that have no vector of the configured model yet (all with all).",
                 Scope::kAdmin, false,
                 {{"all", Type::kBoolean, false, "re-embed every chunk", 0, 0, 0, {}, {}}},
                 [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
                   ENGRAM_ASSIGN_OR_RETURN(EmbedReport r, b.Embed(ctx, a.Bool("all")));
                   return Json{{"provider", r.provider}, {"model", r.model}, {"dims", r.dims},
                               {"embedded", r.embedded}, {"chunks", r.chunks}, {"stale", r.stale},
                               {"seconds", r.seconds}, {"index_note", r.index_note}};
                 }});
}

// The whole table; its order is the order operations are listed in.
std::vector<Operation> Build() {
  std::vector<Operation> ops;
  AddSearchOperations(ops);
  AddPageOperations(ops);
  AddPagePartOperations(ops);
  AddBrainOperations(ops);
  return ops;
}

}  // namespace

bool Args::Has(std::string_view name) const { return j_ != nullptr && j_->contains(name); }

std::string Args::Str(std::string_view name, std::string_view fallback) const {
  if (!Has(name)) return std::string(fallback);
  return j_->at(std::string(name)).get<std::string>();
}

int64_t Args::Int(std::string_view name, int64_t fallback) const {
  return Has(name) ? j_->at(std::string(name)).get<int64_t>() : fallback;
}

bool Args::Bool(std::string_view name, bool fallback) const {
  return Has(name) ? j_->at(std::string(name)).get<bool>() : fallback;
}

std::vector<std::string> Args::Strings(std::string_view name) const {
  if (!Has(name)) return {};
  return j_->at(std::string(name)).get<std::vector<std::string>>();
}

Args Args::Object(std::string_view name) const { return Args(Has(name) ? &j_->at(std::string(name)) : nullptr); }

const std::vector<Operation>& Operations() {
  static const std::vector<Operation> ops = Build();
  return ops;
}

const Operation* FindOperation(std::string_view name) {
  for (const Operation& op : Operations()) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

Json InputSchema(const Operation& op) {
  Param root{"", Type::kObject, false, "", 0, 0, 0, {}, op.params};
  Json s = Schema(root);
  Json required = Json::array();
  for (const Param& p : op.params) {
    if (p.required) required.push_back(p.name);
  }
  if (!required.empty()) s["required"] = required;
  return s;
}

Status CheckArguments(const Operation& op, Json* args) { return Validate("", op.params, args); }

Result<Json> Run(Brain& brain, const OperationContext& ctx, const Operation& op, const Json& checked_args) {
  if (op.local_only && ctx.remote) {
    return Status::PermissionDenied(op.name + " is a local-only operation (run it with the engram CLI on this machine)");
  }
  if (static_cast<int>(ctx.scope) < static_cast<int>(op.scope)) {
    return Status::PermissionDenied(op.name + " needs the " + ScopeName(op.scope) + " scope; this caller has " +
                                    ScopeName(ctx.scope));
  }
  return op.run(brain, ctx, Args(&checked_args));
}

Result<Json> Call(Brain& brain, const OperationContext& ctx, std::string_view name, const Json& args) {
  const Operation* op = FindOperation(name);
  if (op == nullptr) return Status::NotFound("unknown operation '" + std::string(name) + "'");
  Json checked = args;
  ENGRAM_RETURN_IF_ERROR(CheckArguments(*op, &checked));
  return Run(brain, ctx, *op, checked);
}

}  // namespace engram::ops
