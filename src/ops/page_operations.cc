// The pages module's operations: whole pages (read, list, write, delete)
// and the parts of a page other operations read and edit on their own.
#include <nlohmann/json.hpp>

#include "ops/operation_params.h"
#include "ops/operations.h"
#include "ops/page_module.h"
#include "ops/render.h"

namespace engram::ops {

using Json = nlohmann::json;
using Type = Param::Type;

namespace {
PageModule& Pages(Brain& brain) { return brain.Module<PageModule>(); }
}  // namespace

// Whole pages: read, list, write, delete.
void AddPageOperations(OperationTable& ops) {
  ops.Add({"get_page", "Read a page: its Markdown, frontmatter, compiled truth and timeline.", Scope::kRead, false,
           {Slug()},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(StoredPage p, Pages(b).Get(ctx, a.Str("slug")));
             return ToJson(p);
           }});
  ops.Add({"list_pages", "List pages, optionally of one type or tag.", Scope::kRead, false,
           {{"type", Type::kString, false, "only pages of this type", 0, 0, 64, {}, {}},
            {"tag", Type::kString, false, "only pages with this tag", 0, 0, 64, {}, {}},
            Limit(1000000, "pages (1-1000000, default 100)")},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ListFilter f;
             f.type = a.Str("type");
             f.tag = a.Str("tag");
             f.limit = static_cast<size_t>(a.Int("limit", 100));
             ENGRAM_ASSIGN_OR_RETURN(std::vector<PageSummary> pages, Pages(b).List(ctx, f));
             return ToJson(pages);
           }});
  ops.Add({"put_page",
           "Create or replace a page with the whole Markdown file (frontmatter included). The file is "
           "written into the brain and indexed.",
           Scope::kWrite, false,
           {Slug("where the page goes, e.g. people/zhang-san (.md is added)"),
            {"content", Type::kString, true, "the whole Markdown file", 0, 0, 0, {}, {}}},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(PutReport r, Pages(b).Put(ctx, a.Str("slug"), a.Str("content")));
             return ToJson(r);
           }});
  ops.Add({"delete_page", "Delete a page and its Markdown file.", Scope::kWrite, false, {Slug()},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ENGRAM_RETURN_IF_ERROR(Pages(b).Delete(ctx, a.Str("slug")));
             return Json{{"deleted", a.Str("slug")}};
           }});
}

// The parts of a page other operations read and edit on their own: its
// backlinks, timeline, links and tags.
void AddPagePartOperations(OperationTable& ops) {
  ops.Add({"get_backlinks", "Pages that link to a page, with the link's type and sentence.", Scope::kRead, false,
           {Slug()},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(std::vector<LinkRecord> links, Pages(b).Backlinks(ctx, a.Str("slug")));
             return Json{{"slug", a.Str("slug")}, {"backlinks", ToJson(links)}};
           }});
  ops.Add({"get_timeline", "A page's dated timeline entries, oldest first.", Scope::kRead, false, {Slug()},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(std::vector<TimelineEntry> t, Pages(b).Timeline(ctx, a.Str("slug")));
             return Json{{"slug", a.Str("slug")}, {"timeline", ToJson(t)}};
           }});
  ops.Add({"add_timeline_entry",
           "Append a dated entry to a page's timeline (the page's Markdown gets a line "
           "'- **DATE** | SUMMARY [Source: SOURCE]').",
           Scope::kWrite, false,
           {Slug(),
            {"date", Type::kString, true, "e.g. 2026-04-07, 2026-04 or 2026年4月7日", 0, 0, 64, {}, {}},
            {"summary", Type::kString, true, "one line", 0, 0, 2000, {}, {}},
            {"source", Type::kString, false, "where it comes from, e.g. [[meetings/2026-04-07]]", 0, 0, 500, {}, {}}},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(PutReport r, Pages(b).AddTimelineEntry(ctx, a.Str("slug"), a.Str("date"),
                                                                           a.Str("summary"), a.Str("source")));
             return ToJson(r);
           }});
  ops.Add({"add_link",
           "Link a page to another (the page's Markdown gets a line such as '- Works at [[target]]').",
           Scope::kWrite, false,
           {Slug("the page the link goes from"),
            {"target", Type::kString, true, "the slug linked to", 0, 0, 1024, {}, {}},
            {"type", Type::kString, false, "default mentions", 0, 0, 0,
             {"mentions", "works_at", "founded", "invested_in", "attended"}, {}}},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(PutReport r, Pages(b).AddLink(ctx, a.Str("slug"), a.Str("target"), a.Str("type")));
             return ToJson(r);
           }});
  ops.Add({"get_tags", "A page's tags.", Scope::kRead, false, {Slug()},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(std::vector<std::string> tags, Pages(b).Tags(ctx, a.Str("slug")));
             return Json{{"slug", a.Str("slug")}, {"tags", tags}};
           }});
  ops.Add({"add_tag", "Add a tag to a page's frontmatter.", Scope::kWrite, false,
           {Slug(), {"tag", Type::kString, true, "letters, digits and - _ / .", 0, 0, 64, {}, {}}},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(PutReport r, Pages(b).AddTag(ctx, a.Str("slug"), a.Str("tag")));
             return ToJson(r);
           }});
}

}  // namespace engram::ops
