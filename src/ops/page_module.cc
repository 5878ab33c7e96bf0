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

namespace {
}  // namespace

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

namespace {

// The file a page slug names: "notes/a" -> "notes/a.md"; a name that already
// ends in .md or .markdown is kept.
std::string PageFileName(std::string_view slug) {
  std::string rel(slug);
  const std::string lower = common::AsciiLower(rel);
  auto ends = [&](std::string_view suffix) {
    return lower.size() >= suffix.size() && lower.compare(lower.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (!ends(".md") && !ends(".markdown")) rel += ".md";
  return rel;
}

}  // namespace

namespace {

// Everything about the name and the content that can refuse a put, decided
// before a byte is written: the page it would be, and its file (*rel).
Result<PageWrite> PreparePut(Engine& engine, const BrainOptions& options, std::string_view slug,
                             std::string_view content, std::string* rel) {
  ENGRAM_RETURN_IF_ERROR(text::ValidateSlugInput(slug));
  if (text::IsCanvasPath(slug)) {  // a canvas is JSON, written by Obsidian; put writes Markdown
    std::string why = "'";
    why.append(slug).append(
        "' is a canvas (JSON Canvas): pages written through put are Markdown. Edit the "
        "canvas in Obsidian; engram indexes it from the vault");
    return Status::InvalidArgument(std::move(why));
  }
  *rel = PageFileName(slug);
  if (content.size() > options.import.max_file_bytes) {
    return Status::InvalidArgument("page is " + std::to_string(content.size()) + " bytes, over import.max_file_bytes");
  }
  const std::string path_slug = text::SlugFromPath(*rel);
  bool has_word_char = false;  // in the file name: "_" or "--/__" name nothing
  const std::string_view stem = std::string_view(*rel).substr(0, rel->rfind('.'));
  for (size_t i = stem.rfind('/') == std::string_view::npos ? 0 : stem.rfind('/') + 1; i < stem.size();) {
    if (common::IsWordChar(common::DecodeUtf8(stem, &i))) has_word_char = true;
  }
  if (path_slug.empty() || !has_word_char) {
    return Status::InvalidArgument("'" + std::string(slug) + "' has no letter or digit to name a page");
  }
  std::string why;
  if (!ScopeOf(options).Contains(*rel, &why)) {
    return Status::InvalidArgument("'" + *rel + "' would not be a page (" + why + "); choose another name");
  }
  ENGRAM_ASSIGN_OR_RETURN(PageWrite write, sync::PreparePage(*rel, content, IndexingOf(options)));
  write.source = kDefaultSource;
  if (write.page.slug != path_slug) {
    // The request names the page; a frontmatter `slug:` must not redirect
    // the write to (or over) another page.
    return Status::InvalidArgument("the content's frontmatter slug '" + write.page.slug + "' differs from '" +
                                   path_slug + "', the page this request names; remove it or put to that name");
  }
  if (auto hit = sync::FindSensitive(*rel, content, SensitiveOf(options))) {
    (void)engine.AppendAudit(kDefaultSource, {common::NowIso8601(), *rel, hit->rule, hit->line});
    return Status::FailedPrecondition("refused: the page looks sensitive (rule " + hit->rule +
                                      (hit->line > 0 ? ", line " + std::to_string(hit->line) : std::string()) +
                                      "); it was not written. See `engram audit`, or allow it in config.toml");
  }
  return write;
}

// What a remote caller may not write over: a private page (answered as if
// absent), a link, a file that is not an indexed page, a name variant.
Status CheckRemotePut(Engine& engine, common::RootedDir& dir, const std::string& rel, common::RootedDir::Kind kind,
                      const Result<StoredPage>& existing, const std::string& slug) {
  if (existing.ok() && existing->is_private) return Status::NotFound("no page '" + slug + "'");
  ENGRAM_ASSIGN_OR_RETURN(std::optional<SourceFile> owner, engine.FindSourceFile(kDefaultSource, rel));
  if (owner) {
    // A file that holds a page this caller cannot see: answered as if absent.
    auto page = engine.GetPage(ReadScope::Public(kDefaultSource), owner->slug);
    if (!page.ok() && page.status().code() == StatusCode::kNotFound) return Status::NotFound("no page '" + slug + "'");
  }
  if (kind == common::RootedDir::Kind::kLink) {
    return Status::PermissionDenied("'" + rel + "' is a symbolic link; remote callers cannot write through links");
  }
  if (kind != common::RootedDir::Kind::kMissing && !existing.ok()) {
    return Status::PermissionDenied("'" + rel +
                                    "' exists but is not an indexed page (quarantined, skipped or "
                                    "unreadable); remote callers cannot overwrite it");
  }
  ENGRAM_ASSIGN_OR_RETURN(std::string variant, dir.FindNameVariant(rel));
  if (!variant.empty()) {
    return Status::AlreadyExists("'" + rel + "' differs only in case or Unicode form from the existing '" + variant +
                                 "'; use that name");
  }
  return Status::Ok();
}

}  // namespace

Result<PutReport> PageModule::PutLocked(const OperationContext& ctx, PageWriteLock& held, std::string_view operation,
                                        std::string_view slug, std::string_view content) {
  std::string rel;
  ENGRAM_ASSIGN_OR_RETURN(PageWrite write, PreparePut(brain_.engine(), brain_.options(), slug, content, &rel));
  auto existing = brain_.engine().GetPage(kDefaultSource, write.page.slug);
  if (existing.ok() && existing->path != rel) {
    return Status::AlreadyExists("page '" + write.page.slug + "' is the file '" + existing->path +
                                 "'; put to that name to change it");
  }
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<common::RootedDir> dir, brain_.Files(ctx));
  ENGRAM_ASSIGN_OR_RETURN(common::RootedDir::Kind kind, dir->Stat(rel));
  if (ctx.remote) ENGRAM_RETURN_IF_ERROR(CheckRemotePut(brain_.engine(), *dir, rel, kind, existing, write.page.slug));
  if (held.git) ENGRAM_RETURN_IF_ERROR(held.git->CheckWritable(rel));
  std::optional<std::string> before;
  if (kind == common::RootedDir::Kind::kFile) {
    ENGRAM_ASSIGN_OR_RETURN(std::string old, dir->ReadFile(rel, UINT64_MAX));
    before = std::move(old);
  }
  // Markdown first: the file is the truth, the database follows it. When the
  // database refuses, the file goes back to what it was.
  int folders_created = 0;
  ENGRAM_RETURN_IF_ERROR(dir->WriteFile(rel, content, /*create_folders=*/true, &folders_created));
  auto undo_file = [&] {
    if (before) {
      (void)dir->WriteFile(rel, *before, false);
    } else {
      (void)dir->RemoveFile(rel);
      dir->RemoveEmptyFolders(rel, folders_created);
    }
  };
  PutReport report{write.page.slug, rel, !existing.ok(), write.page.warnings, true, ""};
  if (held.git) {
    // The commit is the truth from here on; the database follows it in the
    // same transaction as the anchor (or at the next sync).
    auto apply = [&]() { return brain_.engine().PutPage(write).status(); };
    auto committed = held.git->Commit(rel, /*removed=*/false, operation, ctx, apply);
    if (!committed.ok()) {
      undo_file();
      return committed.status();
    }
    if (!committed->empty()) report.warnings.push_back(*committed);
    report.commit = held.git->head();
  } else if (auto put = brain_.engine().PutPage(write); !put.ok()) {
    undo_file();
    return put.status();
  }
  for (const std::string& w : write.page.warnings) {
    (void)brain_.engine().AppendIngestLog({common::NowIso8601(), rel, "warn", w});
  }
  (void)brain_.engine().AppendIngestLog(
      {common::NowIso8601(), rel, existing.ok() ? "update" : "add", std::string(operation)});
  std::string note = std::get<2>(brain_.Module<EmbeddingModule>().EmbedInline());
  if (!note.empty()) report.warnings.push_back(note);
  return report;
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
