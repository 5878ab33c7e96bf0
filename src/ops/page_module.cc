// The page module (ops/page_module.h): put, get, list and delete, with the
// trust boundary of remote writes and the git commit of a git brain's writes.
// The smaller page reads and edits are in page_tools.cc.
#include "ops/page_module.h"

#include <cstdint>
#include <filesystem>
#include <optional>

#include "common/files.h"
#include "common/rooted_dir.h"
#include "common/utf8.h"
#include "ops/embedding_module.h"
#include "ops/git_writes.h"
#include "ops/index_format.h"
#include "ops/page_names.h"
#include "ops/sync_module.h"
#include "ops/trust.h"
#include "sync/git_commit.h"
#include "sync/git_sync.h"
#include "sync/page_indexer.h"
#include "sync/sensitive.h"
#include "sync/write_lock.h"
#include "text/canvas.h"
#include "text/slug.h"

namespace engram::ops {

namespace fs = std::filesystem;

Result<PutReport> PageModule::Put(const OperationContext& ctx, std::string_view slug, std::string_view content) {
  ENGRAM_RETURN_IF_ERROR(ctx.remote ? CheckRemoteSlug(slug) : text::ValidateSlugInput(slug));
  ENGRAM_ASSIGN_OR_RETURN(auto held, LockForPageWrite("put " + std::string(slug)));
  // The slug of an existing page writes that page's file ("c--…" is
  // "C++.md", "people/zhang-san" may be "People/Zhang San.md"): a remote
  // caller can address every page by its slug.
  auto named = brain_.engine().GetPage(ReadScopeOf(ctx), slug);
  if (named.ok() && text::SlugFromPath(named->path) == named->slug) {
    return PutLocked(ctx, *held, "put", named->path, content);
  }
  return PutLocked(ctx, *held, "put", slug, content);
}

Result<std::unique_ptr<PageWriteLock>> PageModule::LockForPageWrite(std::string_view what) {
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<PageWriteLock> held, TakePageWriteLock(what));
  // engram's own interrupted writes are finished by the next writer: the
  // files they left half done are its own, never the user's.
  ENGRAM_RETURN_IF_ERROR(FinishJournals(OperationContext{}, *held, /*discard_conflicts=*/false));
  return held;
}

Result<std::unique_ptr<PageWriteLock>> PageModule::TakePageWriteLock(std::string_view what) {
  auto held = std::make_unique<PageWriteLock>();
  ENGRAM_ASSIGN_OR_RETURN(held->lock, brain_.LockForWrite(what));
  // A git brain: synced from this folder's repository at least once, or
  // holding no page yet (a write before the first sync starts from HEAD
  // too). A folder brought in by `engram import` is never committed to.
  ENGRAM_ASSIGN_OR_RETURN(fs::path source_root, brain_.SourceRoot());
  if (source_root != brain_.root()) return held;
  auto committer = sync::GitCommitter::Open(brain_.root());
  if (!committer.ok()) return held;
  ENGRAM_ASSIGN_OR_RETURN(std::string stored, brain_.engine().SyncAnchor(kDefaultSource));
  if (stored.empty()) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<SourceFile> files, brain_.engine().ListSourceFiles(kDefaultSource));
    if (!files.empty()) return held;
  }
  ENGRAM_ASSIGN_OR_RETURN(std::string head, (*committer)->Head());
  bool worktree = false;
  std::string anchor = sync::AnchorCommit(stored, &worktree);
  if (!head.empty() && anchor != head) {
    // Commits the brain has not seen yet come first: the write is built on
    // HEAD, and the anchor it moves to must cover them.
    ENGRAM_RETURN_IF_ERROR(brain_.Module<SyncModule>().CatchUpLocked().WithContext(
        "catching up with the repository's HEAD before the write"));
    ENGRAM_ASSIGN_OR_RETURN(stored, brain_.engine().SyncAnchor(kDefaultSource));
    anchor = sync::AnchorCommit(stored, &worktree);
  }
  held->git =
      std::make_unique<GitWrites>(brain_.engine(), kDefaultSource, std::move(*committer), anchor, worktree, brain_.options());
  return held;
}


Result<StoredPage> PageModule::Get(const OperationContext& ctx, std::string_view slug) {
  // A slug, path, file name, title or alias, resolved like [[Name]]: only
  // compared with the index, so remote callers may type any name too — but a
  // hostile one (traversal, an absolute path, control bytes, invalid UTF-8)
  // is refused as such, not looked up.
  ENGRAM_RETURN_IF_ERROR(text::ValidateSlugInput(slug));
  auto page = ResolvePage(brain_.engine(), ReadScopeOf(ctx), slug);
  if (!page.ok() && page.status().code() == StatusCode::kNotFound && !ctx.remote) {
    std::string why = WhyNotAPage(slug);
    if (!why.empty()) return Status::NotFound(why);
  }
  return page;
}

std::string PageModule::WhyNotAPage(std::string_view slug) {
  // The file the name means: "notes/a" -> notes/a.md, or a file whose path
  // gives that slug (a recorded failure or quarantine).
  const std::string rel = PageFileName(slug);
  const std::string want = text::SlugFromPath(rel);
  auto names = [&](const std::string& path) { return path == slug || path == rel || text::SlugFromPath(path) == want; };
  auto source_root = brain_.SourceRoot();
  if (!source_root.ok()) return "";
  auto on_disk = [&](const std::string& path) {
    std::error_code ec;
    return fs::is_regular_file(*source_root / path, ec);
  };
  const std::string config = (brain_.root() / ".engram" / "config.toml").string();
  if (auto failures = brain_.engine().SyncFailures(kDefaultSource); failures.ok()) {
    for (const SyncFailure& f : *failures) {
      if (!names(f.path)) continue;
      return "'" + f.path + "' is not a page: it could not be indexed (" + f.reason +
             "). Fix the file, then run `engram sync` (a git brain) or `engram import`";
    }
  }
  if (auto audit = brain_.engine().Audit(1000); audit.ok()) {
    for (const AuditEntry& a : *audit) {  // newest first
      if (!names(a.path) || !on_disk(a.path)) continue;
      return "'" + a.path + "' is not a page: the sensitive-content quarantine keeps it out (rule " + a.rule +
             (a.line > 0 ? ", line " + std::to_string(a.line) : std::string(", its path or name")) +
             "). If it holds no secret, add \"" + a.path + "\" to quarantine.allow (or \"" + a.rule +
             "\" to quarantine.disable) in " + config + ", then sync or import again";
    }
  }
  std::string why;
  if (on_disk(rel) && !ScopeOf(brain_.options()).Contains(rel, &why)) {
    return "'" + rel + "' is not a page: " + why + ". To index it, change [scope] in " + config +
           ", then sync or import again";
  }
  return "";
}

Result<std::vector<PageSummary>> PageModule::List(const OperationContext& ctx, ListFilter filter) {
  filter.source = kDefaultSource;
  filter.include_private = !ctx.remote;
  return brain_.engine().ListPages(filter);
}

Status PageModule::Delete(const OperationContext& ctx, std::string_view slug) {
  ENGRAM_ASSIGN_OR_RETURN(auto held, LockForPageWrite("delete " + std::string(slug)));
  ENGRAM_ASSIGN_OR_RETURN(StoredPage page, Get(ctx, slug));
  ENGRAM_RETURN_IF_ERROR(text::ValidateSlugInput(page.path));
  if (ctx.remote) ENGRAM_RETURN_IF_ERROR(CheckRemoteSlug(page.path));
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<common::RootedDir> dir, brain_.Files(ctx));
  ENGRAM_ASSIGN_OR_RETURN(common::RootedDir::Kind kind, dir->Stat(page.path));
  if (ctx.remote && kind == common::RootedDir::Kind::kLink) {
    return Status::PermissionDenied("'" + page.path +
                                    "' is a symbolic link; remote callers cannot delete through links");
  }
  if (held->git) return DeleteCommitted(ctx, *held->git, *dir, page);
  ENGRAM_RETURN_IF_ERROR(brain_.engine().DeletePage(kDefaultSource, page.slug));
  // unlinkat in the opened parent: a link swapped in is removed itself, its target never.
  Status removed = dir->RemoveFile(page.path);
  if (!removed.ok() && removed.code() != StatusCode::kNotFound) {
    return Status::IOError("page deleted from the index, but its file remains: " + removed.message());
  }
  (void)brain_.engine().AppendIngestLog({common::NowIso8601(), page.path, "delete", "delete command"});
  return Status::Ok();
}

Status PageModule::DeleteCommitted(const OperationContext& ctx, GitWrites& git, common::RootedDir& dir,
                                   const StoredPage& page) {
  ENGRAM_RETURN_IF_ERROR(git.CheckWritable(page.path));
  ENGRAM_ASSIGN_OR_RETURN(std::string before, dir.ReadFile(page.path, UINT64_MAX));
  ENGRAM_RETURN_IF_ERROR(dir.RemoveFile(page.path));
  auto apply = [&]() { return brain_.engine().DeletePage(kDefaultSource, page.slug); };
  auto committed = git.Commit(page.path, /*removed=*/true, "delete", ctx, apply);
  if (!committed.ok()) {
    (void)dir.WriteFile(page.path, before, false);
    return committed.status();
  }
  (void)brain_.engine().AppendIngestLog({common::NowIso8601(), page.path, "delete",
                                         committed->empty() ? "delete command" : "delete command: " + *committed});
  return Status::Ok();
}

}  // namespace engram::ops
