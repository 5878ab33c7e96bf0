// The sync module (ops/sync_module.h): import, git sync, watching, check and
// repair, the quarantine audit and the git hooks; and `status`, which reports
// on all of them.
#include "ops/sync_module.h"

#include <cstdint>
#include <filesystem>
#include <set>
#include <tuple>

#include "common/files.h"
#include "common/rooted_dir.h"
#include <nlohmann/json.hpp>
#include "ops/page_module.h"
#include "ops/embedding_module.h"
#include "ops/index_format.h"
#include "ops/kb_module.h"
#include "sync/git_repo.h"
#include "sync/git_sync.h"
#include "sync/hooks.h"
#include "sync/importer.h"
#include "sync/rebuild_check.h"
#include "sync/watch.h"
#include "sync/write_lock.h"

namespace engram::ops {

namespace fs = std::filesystem;

namespace {

// Where the last import or sync's error is kept for `status`: the hook's
// sync runs in the background, and its log is easy to miss.
constexpr const char* kLastSyncErrorKey = "last_sync_error:default";

void RecordSyncOutcome(Engine& engine, const Status& st) {
  (void)engine.SetConfigValue(kLastSyncErrorKey, st.ok() ? "" : common::NowIso8601() + ": " + st.message());
}

// Before an import or sync: pages indexed under other rules or settings
// (an upgrade that changed slugs or titles, a changed [pages] or [chunker])
// are re-indexed from their stored Markdown, so the walk that follows sees
// every page keyed as its file now says. Returns the pages re-keyed.
Result<int64_t> ReindexIfRulesChanged(Engine& engine, const BrainOptions& o) {
  const std::string fingerprint = IndexFingerprint(o);
  ENGRAM_ASSIGN_OR_RETURN(bool current, IndexFormatCurrent(engine, kDefaultSource, fingerprint));
  if (current) return int64_t{0};
  return ReindexAllPages(engine, kDefaultSource, IndexingOf(o), fingerprint);
}

sync::SyncOptions SyncOptionsOf(const BrainOptions& o, const fs::path& root) {
  sync::SyncOptions so;
  so.source = kDefaultSource;
  so.root = root;
  so.max_file_bytes = o.import.max_file_bytes;
  so.indexing = IndexingOf(o);
  so.scope = ScopeOf(o);
  so.sensitive = SensitiveOf(o);
  return so;
}

// With the write lock held: re-keys the pages indexed under other rules
// (*rekeyed), then syncs with the repository's HEAD, and records the outcome
// for `status`.
Result<SyncReport> SyncLocked(Brain& brain, const sync::SyncOptions& so, int64_t* rekeyed) {
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<sync::GitRepo> repo, sync::GitRepo::Open(brain.root()));
  ENGRAM_ASSIGN_OR_RETURN(*rekeyed, ReindexIfRulesChanged(brain.engine(), brain.options()));
  auto report = sync::SyncGit(brain.engine(), *repo, so);
  RecordSyncOutcome(brain.engine(), report.status());
  return report;
}

}  // namespace

Result<ImportReport> SyncModule::Import(const OperationContext&, const fs::path& dir, bool dry_run) {
  ENGRAM_ASSIGN_OR_RETURN(auto lock, brain_.LockForWrite("import"));
  std::error_code ec;
  fs::path abs = fs::canonical(dir, ec);
  if (ec) return Status::InvalidArgument(dir.string() + ": " + ec.message());
  if (!fs::is_directory(abs, ec)) return Status::InvalidArgument(dir.string() + ": not a directory");
  ENGRAM_ASSIGN_OR_RETURN(fs::path current, brain_.SourceRoot());
  if (abs != current) {
    // One folder per source: moving the source to another folder is only
    // allowed while it is empty, so an import never deletes another folder's pages.
    ENGRAM_ASSIGN_OR_RETURN(std::vector<SourceFile> files, brain_.engine().ListSourceFiles(kDefaultSource));
    if (!files.empty()) {
      return Status::FailedPrecondition("this brain's pages come from " + current.string() + "; importing " +
                                        abs.string() +
                                        " would replace them. Import that folder again, or init a new brain");
    }
    if (!dry_run)
      ENGRAM_RETURN_IF_ERROR(brain_.engine().SetSourceRoot(kDefaultSource, abs == brain_.root() ? "" : abs.string()));
  }
  sync::ImportOptions io;
  io.source = kDefaultSource;
  io.max_file_bytes = brain_.options().import.max_file_bytes;
  io.indexing = IndexingOf(brain_.options());
  io.dry_run = dry_run;
  io.scope = ScopeOf(brain_.options());
  io.sensitive = SensitiveOf(brain_.options());
  int64_t rekeyed = 0;
  if (!dry_run) {
    ENGRAM_ASSIGN_OR_RETURN(rekeyed, ReindexIfRulesChanged(brain_.engine(), brain_.options()));
  }
  auto report = sync::ImportDirectory(brain_.engine(), abs, io);
  if (!dry_run) RecordSyncOutcome(brain_.engine(), report.status());
  if (!report.ok()) return report.status();
  if (!dry_run) {
    std::tie(report->embedded, report->embedding_stale, report->embedding_note) =
        brain_.Module<EmbeddingModule>().EmbedInline();
  }
  report->rekeyed = rekeyed;
  return report;
}

Result<SyncReport> SyncModule::Sync(const OperationContext&, bool full, bool worktree,
                                    std::function<void(size_t, size_t)> progress) {
  ENGRAM_ASSIGN_OR_RETURN(auto lock, brain_.LockForWrite("sync"));
  ENGRAM_ASSIGN_OR_RETURN(fs::path source_root, brain_.SourceRoot());
  if (source_root != brain_.root()) {
    return Status::FailedPrecondition("this brain's pages come from the imported folder " + source_root.string() +
                                      "; sync works on a brain that is itself a git repository");
  }
  sync::SyncOptions so = SyncOptionsOf(brain_.options(), brain_.root());
  so.full = full;
  so.worktree = worktree;
  so.progress = std::move(progress);
  int64_t rekeyed = 0;
  auto report = SyncLocked(brain_, so, &rekeyed);
  if (!report.ok()) return report.status();
  std::tie(report->embedded, report->embedding_stale, report->embedding_note) =
      brain_.Module<EmbeddingModule>().EmbedInline();
  report->rekeyed = rekeyed;
  return report;
}

Status SyncModule::CatchUpLocked() {
  int64_t rekeyed = 0;
  return SyncLocked(brain_, SyncOptionsOf(brain_.options(), brain_.root()), &rekeyed).status();
}

Status SyncModule::Watch(const OperationContext& ctx, int interval_ms, bool worktree, const std::atomic<bool>& stop,
                         const std::function<void(const SyncReport&)>& on_sync) {
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<sync::GitRepo> repo, sync::GitRepo::Open(brain_.root()));
  std::unique_ptr<sync::TreeWatcher> watcher;
  if (worktree) {
    ENGRAM_ASSIGN_OR_RETURN(watcher, sync::TreeWatcher::Open(brain_.root()));
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

Status SyncModule::WatchImport(const OperationContext& ctx, const fs::path& dir, int quiet_ms,
                               const std::atomic<bool>& stop,
                               const std::function<void(const ImportReport&)>& on_import) {
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
    ENGRAM_ASSIGN_OR_RETURN(std::optional<SourceFile> file, engine.FindSourceFile(kDefaultSource, path));
    if (!file) continue;
    ENGRAM_ASSIGN_OR_RETURN(StoredPage page, engine.GetPage(kDefaultSource, file->slug));
    ENGRAM_ASSIGN_OR_RETURN(PageWrite write, sync::PreparePage(page.path, page.content, indexing));
    write.source = kDefaultSource;
    if (write.page.slug != page.slug) {
      ENGRAM_RETURN_IF_ERROR(engine.DeletePage(kDefaultSource, page.slug));
    }
    ENGRAM_RETURN_IF_ERROR(engine.PutPage(write).status().WithContext("re-indexing " + path));
  }
  return Status::Ok();
}

}  // namespace

namespace {

// How check names a write that did not finish.
ImportIssue InterruptedWrite(const JournalEntry& e) {
  size_t done = 0;
  std::string next;
  for (const JournalFile& f : e.files) {
    if (f.done) {
      ++done;
    } else if (next.empty()) {
      next = f.path;
    }
  }
  std::string what = e.operation;
  const auto args = nlohmann::json::parse(e.args, nullptr, false);
  if (args.is_object()) {
    for (const char* key : {"from", "page", "slug"}) {
      if (args.contains(key) && args[key].is_string()) what += " " + args[key].get<std::string>();
    }
    if (args.contains("into") && args["into"].is_string() && !args["into"].get<std::string>().empty()) {
      what += " -> " + args["into"].get<std::string>();
    }
  }
  return {next, "an interrupted write: " + what + " (started " + e.started_at + ") wrote " + std::to_string(done) +
                    " of " + std::to_string(e.files.size()) +
                    " files; run it again, or `engram check --repair` finishes it"};
}

// The temporary files of writes killed before their rename (RootedDir), by path.
std::vector<std::string> TemporaryFiles(const fs::path& root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_directory(ec) && (name == ".git" || name == ".engram")) {
      it.disable_recursion_pending();
      continue;
    }
    if (common::RootedDir::IsTemporaryName(name) && it->is_regular_file(ec)) {
      out.push_back(fs::relative(it->path(), root, ec).generic_string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Result<CheckReport> SyncModule::Check(const OperationContext& ctx, const CheckOptions& options) {
  CheckReport report;
  auto repo = sync::GitRepo::Open(brain_.root());
  std::set<std::string> reindex;
  sync::RebuildCheckOptions rebuild;
  rebuild.source = kDefaultSource;
  rebuild.indexing = IndexingOf(brain_.options());
  rebuild.full = options.full;
  rebuild.sample = options.sample;
  const std::string fingerprint = IndexFingerprint(brain_.options());
  bool knowledge_disagrees = false;
  ENGRAM_ASSIGN_OR_RETURN(fs::path source_root, brain_.SourceRoot());
  std::vector<std::string> temporaries;
  auto run_check = [&](std::vector<ImportIssue>* problems) -> Status {
    reindex.clear();
    // Writes that did not finish, and what they left behind.
    ENGRAM_ASSIGN_OR_RETURN(std::vector<JournalEntry> journals, brain_.engine().OpenJournals());
    for (const JournalEntry& e : journals) problems->push_back(InterruptedWrite(e));
    temporaries = TemporaryFiles(source_root);
    for (const std::string& t : temporaries) {
      problems->push_back({t, "a temporary file an interrupted write left (`check --repair` removes it)"});
    }
    // Governed knowledge entries against their collections' searchable entries.
    ENGRAM_ASSIGN_OR_RETURN(std::vector<std::string> knowledge, brain_.Module<KbModule>().CheckGoverned());
    knowledge_disagrees = !knowledge.empty();
    for (const std::string& k : knowledge) {
      problems->push_back({"", "knowledge: " + k + " (`engram kb reindex` or `check --repair` rebuilds it)"});
    }

    if (!repo.ok()) {  // a plain folder: the database against itself
      ENGRAM_ASSIGN_OR_RETURN(std::vector<IntegrityProblem> internal, brain_.engine().CheckIntegrity());
      for (const auto& p : internal) {
        problems->push_back({p.path, p.what});
        if (!p.path.empty()) reindex.insert(p.path);
      }
    } else {
      ENGRAM_RETURN_IF_ERROR(sync::CheckAgainstCommit(brain_.engine(), **repo, kDefaultSource, ScopeOf(brain_.options()),
                                                      SensitiveOf(brain_.options()), problems, &reindex,
                                                      &report.synced_commit));
    }
    ENGRAM_ASSIGN_OR_RETURN(bool current, IndexFormatCurrent(brain_.engine(), kDefaultSource, fingerprint));
    if (!current) {
      // Every page would differ from its rebuild: one problem says why.
      problems->push_back({"",
                           "pages were indexed under other rules or settings (an upgrade, or [pages] / [chunker] "
                           "changed); the next import or sync re-indexes them, as does `check --repair`"});
      return Status::Ok();
    }
    // Derived rows against a rebuild of each (sampled) page's Markdown.
    return sync::CheckAgainstRebuild(brain_.engine(), rebuild, problems, &reindex, &report.rebuilt_pages);
  };
  ENGRAM_RETURN_IF_ERROR(run_check(&report.problems));
  if (options.repair && !report.problems.empty()) {
    // Interrupted writes first: their files as planned, then the index is checked against them.
    ENGRAM_RETURN_IF_ERROR(brain_.Module<PageModule>().FinishInterruptedWrites(ctx, options.discard).status());
    ENGRAM_ASSIGN_OR_RETURN(auto lock, brain_.LockForWrite("check --repair"));
    if (!temporaries.empty()) {
      ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<common::RootedDir> dir, brain_.Files(ctx));
      for (const std::string& t : temporaries) (void)dir->RemoveTemporaries(t);
    }
    ENGRAM_RETURN_IF_ERROR(brain_.engine().Repair());
    if (knowledge_disagrees) ENGRAM_RETURN_IF_ERROR(brain_.Module<KbModule>().Reindex(ctx).status());
    ENGRAM_RETURN_IF_ERROR(ReindexIfRulesChanged(brain_.engine(), brain_.options()).status());
    if (repo.ok()) {
      sync::SyncOptions so = SyncOptionsOf(brain_.options(), brain_.root());
      so.full = true;
      so.force = reindex;
      ENGRAM_RETURN_IF_ERROR(sync::SyncGit(brain_.engine(), **repo, so).status());
    } else {
      ENGRAM_RETURN_IF_ERROR(ReindexFromStoredContent(brain_.engine(), reindex, IndexingOf(brain_.options())));
    }
    report.repaired = true;
    rebuild.include = reindex;  // what was repaired is compared again, with a fresh sample
    ENGRAM_RETURN_IF_ERROR(run_check(&report.remaining));
  }
  return report;
}

Result<std::vector<AuditEntry>> SyncModule::AuditLog(const OperationContext&, size_t limit) {
  return brain_.engine().Audit(limit);
}

Result<std::vector<HookInfo>> SyncModule::Hooks(const OperationContext&, std::string_view action) {
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<sync::GitRepo> repo, sync::GitRepo::Open(brain_.root()));
  ENGRAM_ASSIGN_OR_RETURN(fs::path dir, repo->HooksDir());
  Result<std::vector<sync::HookState>> states =
      Status::InvalidArgument("unknown hook action '" + std::string(action) + "' (install, uninstall or status)");
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

Result<BrainStatus> GetStatus(Brain& brain, const OperationContext& ctx) {
  BrainStatus s;
  ENGRAM_ASSIGN_OR_RETURN(s.stats, brain.engine().Stats(ReadScopeOf(ctx)));
  ENGRAM_ASSIGN_OR_RETURN(s.synced_commit, brain.engine().SyncAnchor(kDefaultSource));
  ENGRAM_ASSIGN_OR_RETURN(s.sync_failures, brain.engine().SyncFailures(kDefaultSource));
  ENGRAM_ASSIGN_OR_RETURN(s.embedding, brain.Module<EmbeddingModule>().EmbeddingState(ReadScopeOf(ctx)));
  ENGRAM_ASSIGN_OR_RETURN(std::vector<IngestLogEntry> log, brain.engine().RecentIngestLog(200));
  for (IngestLogEntry& e : log) {
    if (e.action == "skip" || e.action == "warn" || e.action == "error") s.recent_problems.push_back(std::move(e));
  }
  if (ctx.remote) {
    // A remote caller hears of the files of pages it sees, and of nothing else:
    // a file that failed or a private page's warning names what it may not know of.
    auto seen = [&](const std::string& path) -> bool {
      auto file = brain.engine().FindSourceFile(kDefaultSource, path);
      if (!file.ok() || !*file) return false;
      return brain.engine().GetPage(ReadScopeOf(ctx), (*file)->slug).ok();
    };
    std::erase_if(s.recent_problems, [&](const IngestLogEntry& e) { return !seen(e.path); });
    s.sync_failures.clear();
    s.last_sync_error.clear();
  }
  ENGRAM_ASSIGN_OR_RETURN(s.last_sync_error, brain.engine().GetConfigValue("last_sync_error:default"));
  if (!ctx.remote) {  // where the files are is the owner's business
    ENGRAM_ASSIGN_OR_RETURN(std::filesystem::path source_root, brain.SourceRoot());
    // Files kept out now: the newest audit row of each file that is still
    // there and still has no page (an edited or allowed file became a page).
    ENGRAM_ASSIGN_OR_RETURN(std::vector<AuditEntry> audit, brain.engine().Audit(10000));
    std::set<std::string> seen;
    for (AuditEntry& a : audit) {
      if (!seen.insert(a.path).second) continue;
      std::error_code ec;
      if (!std::filesystem::is_regular_file(source_root / a.path, ec)) continue;
      ENGRAM_ASSIGN_OR_RETURN(std::optional<SourceFile> page, brain.engine().FindSourceFile(kDefaultSource, a.path));
      if (!page) s.quarantined.push_back(std::move(a));
    }
    s.root = brain.root().string();
    s.source_root = source_root.string();
    // A PostgreSQL brain's database is where the server is (never the URL: it may hold a password).
    s.database = s.stats.engine == "postgres" ? s.stats.server : brain.db_path().string();
  }
  return s;
}

}  // namespace engram::ops
