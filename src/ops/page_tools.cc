// The brain's smaller page operations, used by agents over MCP and HTTP as
// much as by the CLI: backlinks, timeline and tags of a page, the edits
// that add to them (ops/page_module.h).
#include <algorithm>

#include "ops/git_writes.h"
#include "ops/page_module.h"
#include "ops/page_names.h"
#include "ops/trust.h"
#include "sync/write_lock.h"
#include "text/page_edit.h"
#include "text/slug.h"

namespace engram::ops {

namespace {
}  // namespace

Result<std::vector<LinkRecord>> PageModule::Backlinks(const OperationContext& ctx, std::string_view slug) {
  ENGRAM_ASSIGN_OR_RETURN(StoredPage page, Get(ctx, slug));
  return brain_.engine().Backlinks(ReadScopeOf(ctx), page.slug);
}

Result<std::vector<TimelineEntry>> PageModule::Timeline(const OperationContext& ctx, std::string_view slug) {
  ENGRAM_ASSIGN_OR_RETURN(StoredPage page, Get(ctx, slug));
  return brain_.engine().Timeline(kDefaultSource, page.slug);
}

Result<std::vector<std::string>> PageModule::Tags(const OperationContext& ctx, std::string_view slug) {
  ENGRAM_ASSIGN_OR_RETURN(StoredPage page, Get(ctx, slug));
  return page.tags;
}

Result<PutReport> PageModule::EditPage(const OperationContext& ctx, std::string_view slug, std::string_view what,
                                       const std::function<Result<std::string>(const StoredPage&)>& edit) {
  // The page is named like [[Name]] (Get); the file written is its own path.
  ENGRAM_RETURN_IF_ERROR(ValidatePageName(slug));
  ENGRAM_ASSIGN_OR_RETURN(auto held, LockForPageWrite(std::string(what) + " " + std::string(slug)));
  ENGRAM_ASSIGN_OR_RETURN(StoredPage page, Get(ctx, slug));
  ENGRAM_ASSIGN_OR_RETURN(std::string content, edit(page));
  if (content == page.content) return PutReport{page.slug, page.path, false, {}, false, ""};
  return PutLocked(ctx, *held, what, page.path, content);
}

Result<PutReport> PageModule::AddTag(const OperationContext& ctx, std::string_view slug, std::string_view tag) {
  return EditPage(ctx, slug, "tag", [&](const StoredPage& p) { return text::AddTag(p.path, p.content, tag); });
}

Result<PutReport> PageModule::AddTimelineEntry(const OperationContext& ctx, std::string_view slug,
                                               std::string_view date, std::string_view summary,
                                               std::string_view source) {
  return EditPage(ctx, slug, "timeline entry", [&](const StoredPage& p) {
    return text::AddTimelineEntry(p.path, p.content, date, summary, source);
  });
}

Result<PutReport> PageModule::AddLink(const OperationContext& ctx, std::string_view slug, std::string_view target,
                                      std::string_view type) {
  return EditPage(ctx, slug, "link", [&](const StoredPage& p) -> Result<std::string> {
    // Written the vault's way, so Obsidian opens it: the target's file name
    // when that reaches it, else the shortest path that does. A remote
    // caller's link names the whole path: which shorter text is unambiguous
    // depends on private pages' names, and must not tell the caller about them.
    std::string written(target);
    auto to = ResolvePage(brain_.engine(), ReadScopeOf(ctx), target);
    if (to.ok() && ctx.remote) {
      written = to->path;
      if (written.size() > 3 && written.compare(written.size() - 3, 3, ".md") == 0) written.resize(written.size() - 3);
    } else if (to.ok()) {
      ENGRAM_ASSIGN_OR_RETURN(std::vector<PageNames> pages, brain_.engine().AllPageNames(ReadScope::All(kDefaultSource)));
      const PageNames target{to->slug, to->path, to->title, {}, to->is_private, to->type, to->id};
      written = VaultLinkText(pages, target, p.path);
    } else if (to.status().code() != StatusCode::kNotFound) {
      return to.status();
    }
    return text::AddLink(p.path, p.content, written, type);
  });
}

Result<PutReport> PageModule::AddFact(const OperationContext& ctx, std::string_view slug, std::string_view predicate,
                                      std::string_view value, std::string_view valid_from,
                                      std::string_view valid_until) {
  return EditPage(ctx, slug, "fact", [&](const StoredPage& p) {
    return text::AddFact(p.path, p.content, predicate, value, valid_from, valid_until);
  });
}

}  // namespace engram::ops
