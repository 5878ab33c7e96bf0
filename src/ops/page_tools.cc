// The brain's smaller page operations, used by agents over MCP and HTTP as
// much as by the CLI: backlinks, timeline and tags of a page, the edits
// that add to them, and the status overview.
#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>

#include "engram/brain.h"
#include "ops/git_writes.h"
#include "ops/page_names.h"
#include "ops/trust.h"
#include "sync/write_lock.h"
#include "text/page_edit.h"
#include "text/slug.h"

namespace engram {

namespace {
constexpr const char* kSource = "default";
}  // namespace

const char* ScopeName(Scope scope) {
  switch (scope) {
    case Scope::kRead: return "read";
    case Scope::kWrite: return "write";
    case Scope::kAdmin: return "admin";
  }
  return "read";
}

bool ParseScope(std::string_view name, Scope* scope) {
  for (Scope s : {Scope::kRead, Scope::kWrite, Scope::kAdmin}) {
    if (name == ScopeName(s)) {
      *scope = s;
      return true;
    }
  }
  return false;
}

Result<std::vector<LinkRecord>> Brain::Backlinks(const OperationContext& ctx, std::string_view slug) {
  ENGRAM_ASSIGN_OR_RETURN(StoredPage page, Get(ctx, slug));
  return engine_->Backlinks(ReadScopeOf(ctx), page.slug);
}

Result<std::vector<TimelineEntry>> Brain::Timeline(const OperationContext& ctx, std::string_view slug) {
  ENGRAM_ASSIGN_OR_RETURN(StoredPage page, Get(ctx, slug));
  return engine_->Timeline(kSource, page.slug);
}

Result<std::vector<std::string>> Brain::Tags(const OperationContext& ctx, std::string_view slug) {
  ENGRAM_ASSIGN_OR_RETURN(StoredPage page, Get(ctx, slug));
  return page.tags;
}

Result<PutReport> Brain::EditPage(const OperationContext& ctx, std::string_view slug, std::string_view what,
                                  const std::function<Result<std::string>(const StoredPage&)>& edit) {
  // The page is named like [[Name]] (Get); the file written is its own path.
  ENGRAM_RETURN_IF_ERROR(ops::ValidatePageName(slug));
  ENGRAM_ASSIGN_OR_RETURN(auto held, LockForPageWrite(std::string(what) + " " + std::string(slug)));
  ENGRAM_ASSIGN_OR_RETURN(StoredPage page, Get(ctx, slug));
  ENGRAM_ASSIGN_OR_RETURN(std::string content, edit(page));
  if (content == page.content) return PutReport{page.slug, page.path, false, {}, false, ""};
  return PutLocked(ctx, *held, what, page.path, content);
}

Result<PutReport> Brain::AddTag(const OperationContext& ctx, std::string_view slug, std::string_view tag) {
  return EditPage(ctx, slug, "tag", [&](const StoredPage& p) { return text::AddTag(p.path, p.content, tag); });
}

Result<PutReport> Brain::AddTimelineEntry(const OperationContext& ctx, std::string_view slug, std::string_view date,
                                          std::string_view summary, std::string_view source) {
  return EditPage(ctx, slug, "timeline entry", [&](const StoredPage& p) {
    return text::AddTimelineEntry(p.path, p.content, date, summary, source);
  });
}

Result<PutReport> Brain::AddLink(const OperationContext& ctx, std::string_view slug, std::string_view target,
                                 std::string_view type) {
  return EditPage(ctx, slug, "link", [&](const StoredPage& p) -> Result<std::string> {
    // Written the vault's way, so Obsidian opens it: the target's file name
    // when that reaches it, else the shortest path that does. A remote
    // caller's link names the whole path: which shorter text is unambiguous
    // depends on private pages' names, and must not tell the caller about them.
    std::string written(target);
    auto to = ops::ResolvePage(*engine_, ReadScopeOf(ctx), target);
    if (to.ok() && ctx.remote) {
      written = to->path;
      if (written.size() > 3 && written.compare(written.size() - 3, 3, ".md") == 0) written.resize(written.size() - 3);
    } else if (to.ok()) {
      ENGRAM_ASSIGN_OR_RETURN(std::vector<PageNames> pages, engine_->AllPageNames(ReadScope::All(kSource)));
      written = ops::VaultLinkText(pages, PageNames{to->slug, to->path, to->title, {}, to->is_private}, p.path);
    } else if (to.status().code() != StatusCode::kNotFound) {
      return to.status();
    }
    return text::AddLink(p.path, p.content, written, type);
  });
}

Result<BrainStatus> Brain::GetStatus(const OperationContext& ctx) {
  BrainStatus s;
  ENGRAM_ASSIGN_OR_RETURN(s.stats, engine_->Stats());
  ENGRAM_ASSIGN_OR_RETURN(s.synced_commit, engine_->SyncAnchor(kSource));
  ENGRAM_ASSIGN_OR_RETURN(s.sync_failures, engine_->SyncFailures(kSource));
  ENGRAM_ASSIGN_OR_RETURN(s.embedding, EmbeddingState());
  ENGRAM_ASSIGN_OR_RETURN(std::vector<IngestLogEntry> log, engine_->RecentIngestLog(200));
  for (IngestLogEntry& e : log) {
    if (e.action == "skip" || e.action == "warn" || e.action == "error") s.recent_problems.push_back(std::move(e));
  }
  ENGRAM_ASSIGN_OR_RETURN(s.last_sync_error, engine_->GetConfigValue("last_sync_error:default"));
  if (!ctx.remote) {  // where the files are is the owner's business
    ENGRAM_ASSIGN_OR_RETURN(std::filesystem::path source_root, SourceRoot());
    // Files kept out now: the newest audit row of each file that is still
    // there and still has no page (an edited or allowed file became a page).
    ENGRAM_ASSIGN_OR_RETURN(std::vector<AuditEntry> audit, engine_->Audit(10000));
    std::set<std::string> seen;
    for (AuditEntry& a : audit) {
      if (!seen.insert(a.path).second) continue;
      std::error_code ec;
      if (!std::filesystem::is_regular_file(source_root / a.path, ec)) continue;
      ENGRAM_ASSIGN_OR_RETURN(std::optional<SourceFile> page, engine_->FindSourceFile(kSource, a.path));
      if (!page) s.quarantined.push_back(std::move(a));
    }
    s.root = root_.string();
    s.source_root = source_root.string();
    s.database = db_path().string();
  }
  return s;
}

}  // namespace engram
