#include "engram/brain.h"
#include "engram/store/open_store.h"


#include <cstdlib>
#include <fstream>
#include <set>

#include "common/files.h"
#include "common/rooted_dir.h"
#include "common/utf8.h"
#include "embed/embedder.h"
#include "ops/config.h"
#include "search/keyword_search.h"
#include "llm/chat_client.h"
#include "search/vector_arm.h"
#include "sync/git_commit.h"
#include "sync/git_repo.h"
#include "sync/git_sync.h"
#include "sync/hooks.h"
#include "sync/importer.h"
#include "sync/sensitive.h"
#include "sync/watch.h"
#include "sync/write_lock.h"
#include "sync/page_indexer.h"
#include "sync/rebuild_check.h"
#include "ops/git_writes.h"
#include "ops/index_format.h"
#include "ops/page_names.h"
#include "ops/trust.h"
#include "text/canvas.h"
#include "text/slug.h"

namespace engram {

namespace fs = std::filesystem;

namespace {

constexpr const char* kSource = "default";

// Adds ".engram/" to .git/info/exclude of a repository root, once.
Result<bool> ExcludeFromGit(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root / ".git", ec)) return false;
  fs::path info = root / ".git" / "info";
  fs::create_directories(info, ec);
  if (ec) return Status::IOError(info.string() + ": " + ec.message());
  fs::path exclude = info / "exclude";
  std::string current;
  if (fs::exists(exclude, ec)) {
    ENGRAM_ASSIGN_OR_RETURN(current, common::ReadFile(exclude, 1 << 20));
  }
  if (current.find("\n.engram/\n") != std::string::npos || current.rfind(".engram/\n", 0) == 0) return false;
  if (!current.empty() && current.back() != '\n') current.push_back('\n');
  current += "# engram's database and config stay out of git\n.engram/\n";
  ENGRAM_RETURN_IF_ERROR(common::WriteFileAtomic(exclude, current));
  return true;
}

sync::SensitiveRules SensitiveOf(const BrainOptions& o) {
  sync::SensitiveRules r = sync::SensitiveRules::Defaults();
  r.path_components.insert(r.path_components.end(), o.quarantine.path_components.begin(),
                           o.quarantine.path_components.end());
  r.name_keywords.insert(r.name_keywords.end(), o.quarantine.name_keywords.begin(), o.quarantine.name_keywords.end());
  r.allow = o.quarantine.allow;
  r.disabled = o.quarantine.disable;
  return r;
}

// Where the last import or sync's error is kept for `status`: the hook's
// sync runs in the background, and its log is easy to miss.
constexpr const char* kLastSyncErrorKey = "last_sync_error:default";

void RecordSyncOutcome(Engine& engine, const Status& st) {
  (void)engine.SetConfigValue(kLastSyncErrorKey, st.ok() ? "" : common::NowIso8601() + ": " + st.message());
}

sync::Scope ScopeOf(const BrainOptions& o) {
  // Validated when the configuration was loaded.
  auto scope = sync::Scope::Make(o.scope.include, o.scope.exclude, o.scope.skip_files);
  return scope.ok() ? *scope : sync::Scope();
}

// Before an import or sync: pages indexed under other rules or settings
// (an upgrade that changed slugs or titles, a changed [pages] or [chunker])
// are re-indexed from their stored Markdown, so the walk that follows sees
// every page keyed as its file now says. Returns the pages re-keyed.
Result<int64_t> ReindexIfRulesChanged(Engine& engine, const BrainOptions& o) {
  const std::string fingerprint = ops::IndexFingerprint(o);
  ENGRAM_ASSIGN_OR_RETURN(bool current, ops::IndexFormatCurrent(engine, kSource, fingerprint));
  if (current) return int64_t{0};
  return ops::ReindexAllPages(engine, kSource, ops::IndexingOf(o), fingerprint);
}

sync::SyncOptions SyncOptionsOf(const BrainOptions& o, const fs::path& root) {
  sync::SyncOptions so;
  so.source = kSource;
  so.root = root;
  so.max_file_bytes = o.import.max_file_bytes;
  so.indexing = ops::IndexingOf(o);
  so.scope = ScopeOf(o);
  so.sensitive = SensitiveOf(o);
  return so;
}

// The brain's store. Every brain is SQLite today, in .engram/engram.db; a
// brain on another engine will name its URI in config.toml.
std::string StoreUri(const fs::path& root) { return "sqlite:" + (root / ".engram" / "engram.db").string(); }

}  // namespace

Brain::Brain(fs::path root, BrainOptions options, std::unique_ptr<Engine> engine)
    : root_(std::move(root)), options_(options), engine_(std::move(engine)) {}

Brain::~Brain() = default;

Result<InitReport> Brain::Init(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IOError(dir.string() + ": " + ec.message());
  InitReport report;
  report.root = fs::canonical(dir, ec);
  if (ec) return Status::IOError(dir.string() + ": " + ec.message());
  fs::path meta = report.root / ".engram";
  fs::create_directories(meta, ec);
  if (ec) return Status::IOError(meta.string() + ": " + ec.message());
  fs::path config = meta / "config.toml";
  fs::path db = meta / "engram.db";
  report.created = !fs::exists(db, ec);
  if (!fs::exists(config, ec)) ENGRAM_RETURN_IF_ERROR(common::WriteFileAtomic(config, ops::DefaultConfigToml()));
  ENGRAM_ASSIGN_OR_RETURN(BrainOptions options, ops::LoadConfig(config));
  EngineOptions eo;
  eo.create_if_missing = true;
  eo.busy_timeout_ms = options.store.busy_timeout_ms;
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, OpenStore(StoreUri(report.root), eo));
  ENGRAM_ASSIGN_OR_RETURN(report.git_excluded, ExcludeFromGit(report.root));
  // A new brain's pages are all indexed under today's rules and settings.
  if (report.created) {
    ENGRAM_RETURN_IF_ERROR(ops::RecordIndexFormat(*engine, kSource, ops::IndexFingerprint(options)));
  }
  return report;
}

Result<fs::path> Brain::Locate(const std::string& explicit_dir) {
  std::error_code ec;
  auto check = [&](const fs::path& p, const std::string& from) -> Result<fs::path> {
    if (!fs::is_directory(p / ".engram", ec)) {
      return Status::FailedPrecondition(from + p.string() + " is not a brain (no .engram/ folder); run `engram init " +
                                        p.string() + "`");
    }
    return fs::canonical(p, ec);
  };
  if (!explicit_dir.empty()) return check(explicit_dir, "--brain ");
  if (const char* env = std::getenv("ENGRAM_BRAIN"); env != nullptr && *env != '\0') {
    return check(env, "ENGRAM_BRAIN=");
  }
  fs::path dir = fs::current_path(ec);
  while (!dir.empty()) {
    if (fs::is_directory(dir / ".engram", ec)) return dir;
    fs::path parent = dir.parent_path();
    if (parent == dir) break;
    dir = parent;
  }
  return Status::FailedPrecondition(
      "no brain found in the current directory or above; run `engram init DIR`, or pass --brain DIR "
      "or set ENGRAM_BRAIN");
}

Result<std::unique_ptr<Brain>> Brain::Open(const fs::path& root) {
  ENGRAM_ASSIGN_OR_RETURN(BrainOptions options, ops::LoadConfig(root / ".engram" / "config.toml"));
  EngineOptions eo;
  eo.busy_timeout_ms = options.store.busy_timeout_ms;
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, OpenStore(StoreUri(root), eo));
  return std::unique_ptr<Brain>(new Brain(root, options, std::move(engine)));
}

Result<BrainOptions> Brain::DefaultOptions() {
  BrainOptions options;
  ENGRAM_RETURN_IF_ERROR(ops::ApplyEnvironment(&options));
  return options;
}

Result<fs::path> Brain::SourceRoot() {
  ENGRAM_ASSIGN_OR_RETURN(std::string root, engine_->SourceRoot(kSource));
  return root.empty() ? root_ : fs::path(root);
}

Result<ImportReport> Brain::Import(const OperationContext&, const fs::path& dir, bool dry_run) {
  ENGRAM_ASSIGN_OR_RETURN(auto lock, LockForWrite("import"));
  std::error_code ec;
  fs::path abs = fs::canonical(dir, ec);
  if (ec) return Status::InvalidArgument(dir.string() + ": " + ec.message());
  if (!fs::is_directory(abs, ec)) return Status::InvalidArgument(dir.string() + ": not a directory");
  ENGRAM_ASSIGN_OR_RETURN(fs::path current, SourceRoot());
  if (abs != current) {
    // One folder per source: moving the source to another folder is only
    // allowed while it is empty, so an import never deletes another folder's pages.
    ENGRAM_ASSIGN_OR_RETURN(std::vector<SourceFile> files, engine_->ListSourceFiles(kSource));
    if (!files.empty()) {
      return Status::FailedPrecondition("this brain's pages come from " + current.string() +
                                        "; importing " + abs.string() +
                                        " would replace them. Import that folder again, or init a new brain");
    }
    if (!dry_run) ENGRAM_RETURN_IF_ERROR(engine_->SetSourceRoot(kSource, abs == root_ ? "" : abs.string()));
  }
  sync::ImportOptions io;
  io.source = kSource;
  io.max_file_bytes = options_.import.max_file_bytes;
  io.indexing = ops::IndexingOf(options_);
  io.dry_run = dry_run;
  io.scope = ScopeOf(options_);
  io.sensitive = SensitiveOf(options_);
  int64_t rekeyed = 0;
  if (!dry_run) {
    ENGRAM_ASSIGN_OR_RETURN(rekeyed, ReindexIfRulesChanged(*engine_, options_));
  }
  auto report = sync::ImportDirectory(*engine_, abs, io);
  if (!dry_run) RecordSyncOutcome(*engine_, report.status());
  if (!report.ok()) return report.status();
  if (!dry_run) std::tie(report->embedded, report->embedding_stale, report->embedding_note) = EmbedInline();
  report->rekeyed = rekeyed;
  return report;
}

Result<std::unique_ptr<sync::WriteLock>> Brain::LockForWrite(std::string_view what) {
  return sync::WriteLock::Acquire(root_ / ".engram" / "write.lock", what, options_.store.lock_timeout_ms);
}

Result<SyncReport> Brain::Sync(const OperationContext&, bool full, bool worktree,
                               std::function<void(size_t, size_t)> progress) {
  ENGRAM_ASSIGN_OR_RETURN(auto lock, LockForWrite("sync"));
  ENGRAM_ASSIGN_OR_RETURN(fs::path source_root, SourceRoot());
  if (source_root != root_) {
    return Status::FailedPrecondition("this brain's pages come from the imported folder " + source_root.string() +
                                      "; sync works on a brain that is itself a git repository");
  }
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<sync::GitRepo> repo, sync::GitRepo::Open(root_));
  sync::SyncOptions so = SyncOptionsOf(options_, root_);
  so.full = full;
  so.worktree = worktree;
  so.progress = std::move(progress);
  ENGRAM_ASSIGN_OR_RETURN(int64_t rekeyed, ReindexIfRulesChanged(*engine_, options_));
  auto report = sync::SyncGit(*engine_, *repo, so);
  RecordSyncOutcome(*engine_, report.status());
  if (!report.ok()) return report.status();
  std::tie(report->embedded, report->embedding_stale, report->embedding_note) = EmbedInline();
  report->rekeyed = rekeyed;
  return report;
}

Status Brain::Watch(const OperationContext& ctx, int interval_ms, bool worktree, const std::atomic<bool>& stop,
                    const std::function<void(const SyncReport&)>& on_sync) {
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<sync::GitRepo> repo, sync::GitRepo::Open(root_));
  std::unique_ptr<sync::TreeWatcher> watcher;
  if (worktree) {
    ENGRAM_ASSIGN_OR_RETURN(watcher, sync::TreeWatcher::Open(root_));
  }
  std::string last_head;
  bool files_changed = true;
  while (!stop) {
    auto head = repo->HeadCommit();
    if (!head.ok()) return head.status();
    if (*head != last_head || files_changed) {
      ENGRAM_ASSIGN_OR_RETURN(SyncReport r, Sync(ctx, false, worktree));
      last_head = *head;
      bool changed = r.added + r.updated + r.renamed + r.deleted > 0 || !r.failed.empty() || !r.quarantined.empty();
      if (changed) on_sync(r);
    }
    if (watcher) {
      files_changed = watcher->Wait(interval_ms, stop);
    } else {
      files_changed = false;
      sync::SleepUnlessStopped(interval_ms, stop);
    }
  }
  return Status::Ok();
}

Status Brain::WatchImport(const OperationContext& ctx, const fs::path& dir, int quiet_ms,
                          const std::atomic<bool>& stop, const std::function<void(const ImportReport&)>& on_import) {
  // Watching starts before the first import, so nothing saved meanwhile is missed.
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<sync::TreeWatcher> watcher, sync::TreeWatcher::Open(dir));
  for (bool first = true; !stop; first = false) {
    ENGRAM_ASSIGN_OR_RETURN(ImportReport r, Import(ctx, dir, false));
    const bool changed = r.added + r.updated + r.removed > 0 || !r.quarantined.empty();
    if (first || changed) on_import(r);
    while (!stop && !watcher->Wait(1000, stop)) {
    }
    while (!stop && watcher->Wait(quiet_ms, stop)) {  // until quiet_ms pass without a change
    }
  }
  return Status::Ok();
}

namespace {

// A repair outside git: each page named by a problem is written again from
// the Markdown its row holds (a folder brain's files are what the last
// import read; a changed file is the next import's business).
Status ReindexFromStoredContent(Engine& engine, const std::set<std::string>& paths,
                                const sync::IndexOptions& indexing) {
  for (const std::string& path : paths) {
    ENGRAM_ASSIGN_OR_RETURN(std::optional<SourceFile> file, engine.FindSourceFile(kSource, path));
    if (!file) continue;
    ENGRAM_ASSIGN_OR_RETURN(StoredPage page, engine.GetPage(kSource, file->slug));
    ENGRAM_ASSIGN_OR_RETURN(PageWrite write, sync::PreparePage(page.path, page.content, indexing));
    write.source = kSource;
    if (write.page.slug != page.slug) {
      ENGRAM_RETURN_IF_ERROR(engine.DeletePage(kSource, page.slug));
    }
    ENGRAM_RETURN_IF_ERROR(engine.PutPage(write).status().WithContext("re-indexing " + path));
  }
  return Status::Ok();
}

}  // namespace

Result<CheckReport> Brain::Check(const OperationContext&, const CheckOptions& options) {
  CheckReport report;
  auto repo = sync::GitRepo::Open(root_);
  std::set<std::string> reindex;
  sync::RebuildCheckOptions rebuild;
  rebuild.source = kSource;
  rebuild.indexing = ops::IndexingOf(options_);
  rebuild.full = options.full;
  rebuild.sample = options.sample;
  const std::string fingerprint = ops::IndexFingerprint(options_);
  auto run_check = [&](std::vector<ImportIssue>* problems) -> Status {
    reindex.clear();

    if (!repo.ok()) {  // a plain folder: the database against itself
      ENGRAM_ASSIGN_OR_RETURN(std::vector<IntegrityProblem> internal, engine_->CheckIntegrity());
      for (const auto& p : internal) {
        problems->push_back({p.path, p.what});
        if (!p.path.empty()) reindex.insert(p.path);
      }
    } else {
      ENGRAM_RETURN_IF_ERROR(sync::CheckAgainstCommit(*engine_, **repo, kSource, ScopeOf(options_),
                                                      SensitiveOf(options_), problems, &reindex,
                                                      &report.synced_commit));
    }
    ENGRAM_ASSIGN_OR_RETURN(bool current, ops::IndexFormatCurrent(*engine_, kSource, fingerprint));
    if (!current) {
      // Every page would differ from its rebuild: one problem says why.
      problems->push_back({"", "pages were indexed under other rules or settings (an upgrade, or [pages] / [chunker] "
                               "changed); the next import or sync re-indexes them, as does `check --repair`"});
      return Status::Ok();
    }
    // Derived rows against a rebuild of each (sampled) page's Markdown.
    return sync::CheckAgainstRebuild(*engine_, rebuild, problems, &reindex, &report.rebuilt_pages);
  };
  ENGRAM_RETURN_IF_ERROR(run_check(&report.problems));
  if (options.repair && !report.problems.empty()) {
    ENGRAM_ASSIGN_OR_RETURN(auto lock, LockForWrite("check --repair"));
    ENGRAM_RETURN_IF_ERROR(engine_->Repair());
    ENGRAM_RETURN_IF_ERROR(ReindexIfRulesChanged(*engine_, options_).status());
    if (repo.ok()) {
      sync::SyncOptions so = SyncOptionsOf(options_, root_);
      so.full = true;
      so.force = reindex;
      ENGRAM_RETURN_IF_ERROR(sync::SyncGit(*engine_, **repo, so).status());
    } else {
      ENGRAM_RETURN_IF_ERROR(ReindexFromStoredContent(*engine_, reindex, ops::IndexingOf(options_)));
    }
    report.repaired = true;
    rebuild.include = reindex;  // what was repaired is compared again, with a fresh sample
    ENGRAM_RETURN_IF_ERROR(run_check(&report.remaining));
  }
  return report;
}

Result<std::vector<AuditEntry>> Brain::AuditLog(const OperationContext&, size_t limit) {
  return engine_->Audit(limit);
}

Result<std::vector<HookInfo>> Brain::Hooks(const OperationContext&, std::string_view action) {
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<sync::GitRepo> repo, sync::GitRepo::Open(root_));
  ENGRAM_ASSIGN_OR_RETURN(fs::path dir, repo->HooksDir());
  Result<std::vector<sync::HookState>> states = Status::InvalidArgument("unknown hook action '" + std::string(action) +
                                                                        "' (install, uninstall or status)");
  if (action == "install") {
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return Status::IOError("cannot find the engram binary: " + ec.message());
    states = sync::InstallHooks(dir, self);
  } else if (action == "uninstall") {
    states = sync::UninstallHooks(dir);
  } else if (action == "status") {
    states = sync::HookStatus(dir);
  }
  if (!states.ok()) return states.status();
  std::vector<HookInfo> out;
  for (const auto& h : *states) out.push_back({h.name, h.file.string(), h.installed, h.other_content});
  return out;
}

Result<PutReport> Brain::Put(const OperationContext& ctx, std::string_view slug, std::string_view content) {
  ENGRAM_RETURN_IF_ERROR(ctx.remote ? ops::CheckRemoteSlug(slug) : text::ValidateSlugInput(slug));
  ENGRAM_ASSIGN_OR_RETURN(auto held, LockForPageWrite("put " + std::string(slug)));
  // The slug of an existing page writes that page's file ("c--…" is
  // "C++.md", "people/zhang-san" may be "People/Zhang San.md"): a remote
  // caller can address every page by its slug.
  auto named = engine_->GetPage(ReadScopeOf(ctx), slug);
  if (named.ok() && text::SlugFromPath(named->path) == named->slug) {
    return PutLocked(ctx, *held, "put", named->path, content);
  }
  return PutLocked(ctx, *held, "put", slug, content);
}

Result<std::unique_ptr<ops::PageWriteLock>> Brain::LockForPageWrite(std::string_view what) {
  auto held = std::make_unique<ops::PageWriteLock>();
  ENGRAM_ASSIGN_OR_RETURN(held->lock, LockForWrite(what));
  // A git brain: synced from this folder's repository at least once, or
  // holding no page yet (a write before the first sync starts from HEAD
  // too). A folder brought in by `engram import` is never committed to.
  ENGRAM_ASSIGN_OR_RETURN(fs::path source_root, SourceRoot());
  if (source_root != root_) return held;
  auto committer = sync::GitCommitter::Open(root_);
  if (!committer.ok()) return held;
  ENGRAM_ASSIGN_OR_RETURN(std::string stored, engine_->SyncAnchor(kSource));
  if (stored.empty()) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<SourceFile> files, engine_->ListSourceFiles(kSource));
    if (!files.empty()) return held;
  }
  ENGRAM_ASSIGN_OR_RETURN(std::string head, (*committer)->Head());
  bool worktree = false;
  std::string anchor = sync::AnchorCommit(stored, &worktree);
  if (!head.empty() && anchor != head) {
    // Commits the brain has not seen yet come first: the write is built on
    // HEAD, and the anchor it moves to must cover them.
    ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<sync::GitRepo> repo, sync::GitRepo::Open(root_));
    sync::SyncOptions so = SyncOptionsOf(options_, root_);
    ENGRAM_ASSIGN_OR_RETURN(int64_t rekeyed, ReindexIfRulesChanged(*engine_, options_));
    (void)rekeyed;
    auto caught_up = sync::SyncGit(*engine_, *repo, so);
    RecordSyncOutcome(*engine_, caught_up.status());
    if (!caught_up.ok()) {
      return caught_up.status().WithContext("catching up with the repository's HEAD before the write");
    }
    ENGRAM_ASSIGN_OR_RETURN(stored, engine_->SyncAnchor(kSource));
    anchor = sync::AnchorCommit(stored, &worktree);
  }
  held->git = std::make_unique<ops::GitWrites>(*engine_, kSource, std::move(*committer), anchor, worktree, options_);
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
    why.append(slug).append("' is a canvas (JSON Canvas): pages written through put are Markdown. Edit the "
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
  ENGRAM_ASSIGN_OR_RETURN(PageWrite write, sync::PreparePage(*rel, content, ops::IndexingOf(options)));
  write.source = kSource;
  if (write.page.slug != path_slug) {
    // The request names the page; a frontmatter `slug:` must not redirect
    // the write to (or over) another page.
    return Status::InvalidArgument("the content's frontmatter slug '" + write.page.slug + "' differs from '" +
                                   path_slug + "', the page this request names; remove it or put to that name");
  }
  if (auto hit = sync::FindSensitive(*rel, content, SensitiveOf(options))) {
    (void)engine.AppendAudit(kSource, {common::NowIso8601(), *rel, hit->rule, hit->line});
    return Status::FailedPrecondition(
        "refused: the page looks sensitive (rule " + hit->rule +
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
  ENGRAM_ASSIGN_OR_RETURN(std::optional<SourceFile> owner, engine.FindSourceFile(kSource, rel));
  if (owner) {
    // A file that holds a page this caller cannot see: answered as if absent.
    auto page = engine.GetPage(ReadScope::Public(kSource), owner->slug);
    if (!page.ok() && page.status().code() == StatusCode::kNotFound) return Status::NotFound("no page '" + slug + "'");
  }
  if (kind == common::RootedDir::Kind::kLink) {
    return Status::PermissionDenied("'" + rel + "' is a symbolic link; remote callers cannot write through links");
  }
  if (kind != common::RootedDir::Kind::kMissing && !existing.ok()) {
    return Status::PermissionDenied("'" + rel + "' exists but is not an indexed page (quarantined, skipped or "
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

Result<PutReport> Brain::PutLocked(const OperationContext& ctx, ops::PageWriteLock& held, std::string_view operation,
                                   std::string_view slug, std::string_view content) {
  std::string rel;
  ENGRAM_ASSIGN_OR_RETURN(PageWrite write, PreparePut(*engine_, options_, slug, content, &rel));
  auto existing = engine_->GetPage(kSource, write.page.slug);
  if (existing.ok() && existing->path != rel) {
    return Status::AlreadyExists("page '" + write.page.slug + "' is the file '" + existing->path +
                                 "'; put to that name to change it");
  }
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<common::RootedDir> dir, Files(ctx));
  ENGRAM_ASSIGN_OR_RETURN(common::RootedDir::Kind kind, dir->Stat(rel));
  if (ctx.remote) ENGRAM_RETURN_IF_ERROR(CheckRemotePut(*engine_, *dir, rel, kind, existing, write.page.slug));
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
    auto apply = [&]() { return engine_->PutPage(write).status(); };
    auto committed = held.git->Commit(rel, /*removed=*/false, operation, ctx, apply);
    if (!committed.ok()) {
      undo_file();
      return committed.status();
    }
    if (!committed->empty()) report.warnings.push_back(*committed);
    report.commit = held.git->head();
  } else if (auto put = engine_->PutPage(write); !put.ok()) {
    undo_file();
    return put.status();
  }
  for (const std::string& w : write.page.warnings) {
    (void)engine_->AppendIngestLog({common::NowIso8601(), rel, "warn", w});
  }
  (void)engine_->AppendIngestLog({common::NowIso8601(), rel, existing.ok() ? "update" : "add", std::string(operation)});
  std::string note = std::get<2>(EmbedInline());
  if (!note.empty()) report.warnings.push_back(note);
  return report;
}

Result<std::unique_ptr<common::RootedDir>> Brain::Files(const OperationContext& ctx) {
  ENGRAM_ASSIGN_OR_RETURN(fs::path source_root, SourceRoot());
  // Remote callers never pass a link, whatever the folder holds; the owner's
  // own links (a linked folder in a vault) are followed for local callers.
  return common::RootedDir::Open(source_root, ctx.remote ? common::RootedDir::Links::kRefuse
                                                         : common::RootedDir::Links::kFollow);
}

ReadScope ReadScopeOf(const OperationContext& ctx) {
  return ctx.remote ? ReadScope::Public(kSource) : ReadScope::All(kSource);
}

Result<StoredPage> Brain::Get(const OperationContext& ctx, std::string_view slug) {
  // A slug, path, file name, title or alias, resolved like [[Name]]: only
  // compared with the index, so remote callers may type any name too — but a
  // hostile one (traversal, an absolute path, control bytes, invalid UTF-8)
  // is refused as such, not looked up.
  ENGRAM_RETURN_IF_ERROR(text::ValidateSlugInput(slug));
  auto page = ops::ResolvePage(*engine_, ReadScopeOf(ctx), slug);
  if (!page.ok() && page.status().code() == StatusCode::kNotFound && !ctx.remote) {
    std::string why = WhyNotAPage(slug);
    if (!why.empty()) return Status::NotFound(why);
  }
  return page;
}

std::string Brain::WhyNotAPage(std::string_view slug) {
  // The file the name means: "notes/a" -> notes/a.md, or a file whose path
  // gives that slug (a recorded failure or quarantine).
  const std::string rel = PageFileName(slug);
  const std::string want = text::SlugFromPath(rel);
  auto names = [&](const std::string& path) {
    return path == slug || path == rel || text::SlugFromPath(path) == want;
  };
  auto source_root = SourceRoot();
  if (!source_root.ok()) return "";
  auto on_disk = [&](const std::string& path) {
    std::error_code ec;
    return fs::is_regular_file(*source_root / path, ec);
  };
  const std::string config = (root_ / ".engram" / "config.toml").string();
  if (auto failures = engine_->SyncFailures(kSource); failures.ok()) {
    for (const SyncFailure& f : *failures) {
      if (!names(f.path)) continue;
      return "'" + f.path + "' is not a page: it could not be indexed (" + f.reason +
             "). Fix the file, then run `engram sync` (a git brain) or `engram import`";
    }
  }
  if (auto audit = engine_->Audit(1000); audit.ok()) {
    for (const AuditEntry& a : *audit) {  // newest first
      if (!names(a.path) || !on_disk(a.path)) continue;
      return "'" + a.path + "' is not a page: the sensitive-content quarantine keeps it out (rule " + a.rule +
             (a.line > 0 ? ", line " + std::to_string(a.line) : std::string(", its path or name")) +
             "). If it holds no secret, add \"" + a.path + "\" to quarantine.allow (or \"" + a.rule +
             "\" to quarantine.disable) in " + config + ", then sync or import again";
    }
  }
  std::string why;
  if (on_disk(rel) && !ScopeOf(options_).Contains(rel, &why)) {
    return "'" + rel + "' is not a page: " + why + ". To index it, change [scope] in " + config +
           ", then sync or import again";
  }
  return "";
}

Result<std::vector<PageSummary>> Brain::List(const OperationContext& ctx, ListFilter filter) {
  filter.source = kSource;
  filter.include_private = !ctx.remote;
  return engine_->ListPages(filter);
}

Status Brain::Delete(const OperationContext& ctx, std::string_view slug) {
  ENGRAM_ASSIGN_OR_RETURN(auto held, LockForPageWrite("delete " + std::string(slug)));
  ENGRAM_ASSIGN_OR_RETURN(StoredPage page, Get(ctx, slug));
  ENGRAM_RETURN_IF_ERROR(text::ValidateSlugInput(page.path));
  if (ctx.remote) ENGRAM_RETURN_IF_ERROR(ops::CheckRemoteSlug(page.path));
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<common::RootedDir> dir, Files(ctx));
  ENGRAM_ASSIGN_OR_RETURN(common::RootedDir::Kind kind, dir->Stat(page.path));
  if (ctx.remote && kind == common::RootedDir::Kind::kLink) {
    return Status::PermissionDenied("'" + page.path + "' is a symbolic link; remote callers cannot delete through links");
  }
  if (held->git) return DeleteCommitted(ctx, *held->git, *dir, page);
  ENGRAM_RETURN_IF_ERROR(engine_->DeletePage(kSource, page.slug));
  // unlinkat in the opened parent: a link swapped in is removed itself, its target never.
  Status removed = dir->RemoveFile(page.path);
  if (!removed.ok() && removed.code() != StatusCode::kNotFound) {
    return Status::IOError("page deleted from the index, but its file remains: " + removed.message());
  }
  (void)engine_->AppendIngestLog({common::NowIso8601(), page.path, "delete", "delete command"});
  return Status::Ok();
}

Status Brain::DeleteCommitted(const OperationContext& ctx, ops::GitWrites& git, common::RootedDir& dir,
                              const StoredPage& page) {
  ENGRAM_RETURN_IF_ERROR(git.CheckWritable(page.path));
  ENGRAM_ASSIGN_OR_RETURN(std::string before, dir.ReadFile(page.path, UINT64_MAX));
  ENGRAM_RETURN_IF_ERROR(dir.RemoveFile(page.path));
  auto apply = [&]() { return engine_->DeletePage(kSource, page.slug); };
  auto committed = git.Commit(page.path, /*removed=*/true, "delete", ctx, apply);
  if (!committed.ok()) {
    (void)dir.WriteFile(page.path, before, false);
    return committed.status();
  }
  (void)engine_->AppendIngestLog({common::NowIso8601(), page.path, "delete",
                                  committed->empty() ? "delete command" : "delete command: " + *committed});
  return Status::Ok();
}

SearchOptions Brain::DefaultSearchOptions() const {
  SearchOptions o;
  o.limit = static_cast<size_t>(options_.search.limit);
  o.bm25_k1 = static_cast<float>(options_.search.bm25_k1);
  o.bm25_b = static_cast<float>(options_.search.bm25_b);
  o.title_weight = static_cast<float>(options_.search.title_weight);
  o.mode = ParseSearchMode(options_.search.mode).value_or(SearchMode::kDefault);  // config.cc checked it
  return o;
}

Result<BrainStats> Brain::Stats() { return engine_->Stats(); }

}  // namespace engram
