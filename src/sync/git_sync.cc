#include "sync/git_sync.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <map>
#include <optional>
#include <set>

#include "common/files.h"
#include "common/hash.h"
#include "common/pipeline.h"
#include "sync/page_indexer.h"
#include "sync/scope.h"

namespace engram::sync {

namespace {

// Test-only fault point: with ENGRAM_FAULT_ABORT_AFTER_FILES=N the process
// aborts (like a crash) after writing N files of a sync, before it commits.
void FaultPoint(size_t files_done) {
  static const long limit = [] {
    const char* v = std::getenv("ENGRAM_FAULT_ABORT_AFTER_FILES");
    return v != nullptr ? std::atol(v) : -1L;
  }();
  if (limit >= 0 && static_cast<long>(files_done) >= limit) std::abort();
}

// A sync that also applied the work tree marks its anchor so: the database
// then holds files no commit has, and the next sync must walk to converge.
constexpr std::string_view kWorktreeMark = "+worktree";

struct Plan {
  std::map<std::string, std::string> renames;  // old path -> new path
  std::set<std::string> upserts;               // paths to (re)index from the commit
  std::set<std::string> deletes;               // paths whose pages go
};

class Syncer {
 public:
  Syncer(Engine& engine, GitRepo& repo, const SyncOptions& options, SyncReport* report)
      : engine_(engine), repo_(repo), options_(options), report_(report) {}

  Status Run() {
    auto start = std::chrono::steady_clock::now();
    ENGRAM_ASSIGN_OR_RETURN(std::string head, repo_.HeadCommit());
    ENGRAM_ASSIGN_OR_RETURN(std::string stored, engine_.SyncAnchor(options_.source));
    bool dirty = false;
    std::string anchor = AnchorCommit(stored, &dirty);
    report_->from = anchor;
    report_->to = head;
    ENGRAM_ASSIGN_OR_RETURN(std::vector<SyncFailure> failures, engine_.SyncFailures(options_.source));

    // A sync under a different scope must look at every file: a diff would
    // not show files that were out of scope and now are in (or the reverse).
    const std::string scope_key = "scope_fingerprint:" + options_.source;
    ENGRAM_ASSIGN_OR_RETURN(std::string synced_scope, engine_.GetConfigValue(scope_key));
    bool scope_changed = !anchor.empty() && synced_scope != options_.scope.Fingerprint();
    // Pages indexed before engram dated notes are all written again, dated.
    ENGRAM_ASSIGN_OR_RETURN(bool dated, NoteDatesCurrent(engine_, options_.source));
    redate_ = !dated;

    Plan plan;
    if (options_.full || anchor.empty() || dirty || scope_changed || redate_) {
      report_->mode = anchor.empty()   ? "full walk (first sync)"
                      : dirty          ? "full walk (the last sync applied uncommitted changes)"
                      : scope_changed  ? "full walk (the scope changed)"
                      : redate_        ? "full walk (pages get their notes' dates: last commit or frontmatter)"
                                       : "full walk (--full)";
      ENGRAM_RETURN_IF_ERROR(PlanWalk(head, &plan));
    } else if (!repo_.CommitExists(anchor)) {
      report_->mode = "full walk (the last synced commit " + anchor.substr(0, 12) + " no longer exists)";
      ENGRAM_RETURN_IF_ERROR(PlanWalk(head, &plan));
    } else {
      ENGRAM_ASSIGN_OR_RETURN(bool ancestor, repo_.IsAncestor(anchor, head));
      report_->mode = ancestor ? "diff" : "diff (history was rewritten: diffing against the old anchor " +
                                              anchor.substr(0, 12) + ")";
      if (anchor == head && failures.empty()) {
        report_->mode = "up to date";
      } else {
        ENGRAM_RETURN_IF_ERROR(PlanDiff(anchor, head, &plan));
      }
    }
    // Files that failed last time are tried again.
    for (const SyncFailure& f : failures) {
      if (!plan.upserts.count(f.path) && !plan.deletes.count(f.path)) plan.upserts.insert(f.path);
    }
    if (report_->mode != "up to date" || options_.full) {
      ENGRAM_ASSIGN_OR_RETURN(Transaction txn, engine_.Begin());
      ENGRAM_RETURN_IF_ERROR(Apply(head, plan));
      // The anchor never moves past a file the repository could not give.
      if (!unreadable_) ENGRAM_RETURN_IF_ERROR(engine_.SetSyncAnchor(options_.source, head));
      ENGRAM_RETURN_IF_ERROR(engine_.SetConfigValue(scope_key, options_.scope.Fingerprint()));
      if (redate_) ENGRAM_RETURN_IF_ERROR(RecordNoteDates(engine_, options_.source));
      ENGRAM_RETURN_IF_ERROR(txn.Commit());
    }
    if (unreadable_) {
      report_->mode += "; the synced commit stays " + (anchor.empty() ? std::string("unset") : anchor.substr(0, 12)) +
                       " until every file can be read";
    }
    if (options_.worktree) ENGRAM_RETURN_IF_ERROR(ApplyWorktree(head));
    report_->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return Status::Ok();
  }

 private:
  // The indexed file at path, asked of the engine (which sees this sync's own
  // uncommitted writes), so a sync touching a few files reads only those.
  Result<std::optional<SourceFile>> Known(const std::string& path) {
    return engine_.FindSourceFile(options_.source, path);
  }

  // Adds path to the plan when it is a page; a non-page that was a page goes.
  // Deleting a path that has no page is a no-op, so non-pages are simply
  // planned for deletion.
  void PlanPath(const std::string& path, bool is_regular, Plan* plan) {
    std::string why;
    if (!options_.scope.Contains(path, &why)) {
      if (why != "not a Markdown file") ++report_->skipped_by_reason[SkipKind(why)];
      plan->deletes.insert(path);
      return;
    }
    if (!is_regular) {
      report_->skipped.push_back({path, "symbolic link or submodule (not followed)"});
      ++report_->skipped_by_reason[SkipKind(report_->skipped.back().reason)];
      plan->deletes.insert(path);
      return;
    }
    plan->upserts.insert(path);
  }

  Status PlanWalk(const std::string& head, Plan* plan) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<TreeFile> files, repo_.ListFiles(head));
    std::set<std::string> present;
    for (const TreeFile& f : files) {
      if (f.is_submodule) {
        report_->skipped.push_back({f.path, "submodule (not synced)"});
        ++report_->skipped_by_reason[SkipKind(report_->skipped.back().reason)];
        continue;
      }
      PlanPath(f.path, f.is_regular, plan);
      if (plan->upserts.count(f.path)) present.insert(f.path);
    }
    ENGRAM_ASSIGN_OR_RETURN(std::vector<SourceFile> known, engine_.ListSourceFiles(options_.source));
    for (const SourceFile& f : known) {
      if (!present.count(f.path)) plan->deletes.insert(f.path);
    }
    return Status::Ok();
  }

  Status PlanDiff(const std::string& from, const std::string& to, Plan* plan) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<FileChange> changes, repo_.Diff(from, to));
    for (const FileChange& c : changes) {
      switch (c.kind) {
        case FileChange::Kind::kDeleted:
          plan->deletes.insert(c.path);
          break;
        case FileChange::Kind::kRenamed: {
          ENGRAM_ASSIGN_OR_RETURN(std::optional<SourceFile> old_page, Known(c.old_path));
          if (old_page && options_.scope.Contains(c.path) && c.is_regular) {
            plan->renames[c.old_path] = c.path;
            plan->upserts.insert(c.path);
          } else {
            plan->deletes.insert(c.old_path);
            PlanPath(c.path, c.is_regular, plan);
          }
          break;
        }
        default:  // added, modified, type-changed, copied
          PlanPath(c.path, c.is_regular, plan);
          break;
      }
    }
    return Status::Ok();
  }

  void Fail(const std::string& path, const std::string& reason) {
    report_->failed.push_back({path, reason});
    ++report_->skipped_by_reason[SkipKind(reason)];
    (void)engine_.RecordSyncFailure(options_.source, {path, reason, common::NowIso8601()});
    (void)engine_.AppendIngestLog({common::NowIso8601(), path, "error", reason});
  }

  Status Delete(const std::string& path) {
    ENGRAM_ASSIGN_OR_RETURN(std::optional<SourceFile> page, Known(path));
    if (!page) return Status::Ok();
    Status st = engine_.DeletePage(options_.source, page->slug);
    if (!st.ok() && st.code() != StatusCode::kNotFound) return st;
    ++report_->deleted;
    (void)engine_.AppendIngestLog({common::NowIso8601(), path, "delete", "sync"});
    return Status::Ok();
  }

  // What the worker thread learns about one file before the writer sees it.
  struct Prepared {
    Result<std::string> content = Status::Internal("not read");
    std::optional<SensitiveHit> rule;         // sensitive-content rule hit
    std::string hash;
    std::optional<Result<PageWrite>> write;   // analysed page (absent: not needed or not yet done)
  };

  // What the worker learns about a file; analysis is skipped when skip_hash
  // (the indexed page's hash) is the file's. Never throws: whatever preparing
  // the file throws becomes its failure (p.write holds the error), so one
  // file can never abort the batch or the worker thread.
  Prepared Prepare(const std::string& path, Result<std::string> content, bool analyse,
                   const std::string* skip_hash = nullptr) const {
    Prepared p;
    p.content = std::move(content);
    if (!p.content.ok()) return p;
    try {
      p.rule = FindSensitive(path, *p.content, options_.sensitive);
      if (p.rule) return p;
      p.hash = common::Sha256Hex(*p.content);
      if (analyse && (skip_hash == nullptr || *skip_hash != p.hash)) {
        p.write.emplace(PreparePage(path, *p.content, options_.indexing));
      }
    } catch (const std::exception& e) {
      p.hash.clear();
      p.write.emplace(Status::Internal(std::string("could not be prepared (") + e.what() + ")"));
    } catch (...) {
      p.hash.clear();
      p.write.emplace(Status::Internal("could not be prepared (unknown exception)"));
    }
    return p;
  }

  Status Upsert(const std::string& path, Result<std::string> content, const std::string& old_path) {
    Prepared p = Prepare(path, std::move(content), true);
    return Upsert(path, p, old_path);
  }

  // Indexes a file as the page at path; old_path is the file it was renamed from.
  Status Upsert(const std::string& path, Prepared& prepared, const std::string& old_path) {
    const Result<std::string>& content = prepared.content;
    std::optional<SourceFile> previous;
    if (!old_path.empty()) {
      ENGRAM_ASSIGN_OR_RETURN(previous, Known(old_path));
    }
    if (!previous) {
      ENGRAM_ASSIGN_OR_RETURN(previous, Known(path));
    }
    if (!content.ok()) {
      if (content.status().code() == StatusCode::kNotFound) {  // gone since (a retried failure)
        ENGRAM_RETURN_IF_ERROR(engine_.ClearSyncFailure(options_.source, path));
        return Delete(path);
      }
      if (content.status().code() == StatusCode::kCorruption || content.status().code() == StatusCode::kIOError) {
        // The repository could not give the file: keep what the brain has,
        // name the failure, and hold the anchor so the next sync reads it again.
        Fail(path, content.status().message());
        unreadable_ = true;
        return Status::Ok();
      }
      Fail(path, content.status().message());
      if (!old_path.empty()) ENGRAM_RETURN_IF_ERROR(Delete(old_path));
      return Delete(path);
    }
    if (const std::optional<SensitiveHit>& hit = prepared.rule) {
      // Quarantine: nothing of the file is indexed; a page it had goes.
      report_->quarantined.push_back({path, hit->rule, hit->line});
      ++report_->skipped_by_reason["quarantined"];
      ENGRAM_RETURN_IF_ERROR(
          engine_.AppendAudit(options_.source, {common::NowIso8601(), path, hit->rule, hit->line}));
      (void)engine_.AppendIngestLog(
          {common::NowIso8601(), path, "quarantine",
           "rule " + hit->rule + (hit->line > 0 ? " at line " + std::to_string(hit->line) : std::string())});
      ENGRAM_RETURN_IF_ERROR(engine_.ClearSyncFailure(options_.source, path));
      if (!old_path.empty()) ENGRAM_RETURN_IF_ERROR(Delete(old_path));
      return Delete(path);
    }
    const std::string& hash = prepared.hash;
    if (previous && previous->content_hash == hash && previous->path == path && !Forced(path)) {
      ++report_->unchanged;
      return engine_.ClearSyncFailure(options_.source, path);
    }
    if (!prepared.write) prepared.write.emplace(PreparePage(path, *content, options_.indexing));  // never throws
    Result<PageWrite>& write = *prepared.write;
    if (!write.ok()) {
      Fail(path, write.status().message());
      if (!old_path.empty()) ENGRAM_RETURN_IF_ERROR(Delete(old_path));
      return Delete(path);
    }
    write->source = options_.source;
    const std::string slug = write->page.slug;
    ENGRAM_ASSIGN_OR_RETURN(std::optional<SourceFile> owner, engine_.FindSourceFileBySlug(options_.source, slug));
    bool mine = !owner || owner->path == path || owner->path == old_path;
    if (!mine) {
      Fail(path, "slug '" + slug + "' is already used by " + owner->path);
      if (!old_path.empty()) ENGRAM_RETURN_IF_ERROR(Delete(old_path));
      return Delete(path);
    }
    for (const std::string& w : write->page.warnings) {
      report_->warnings.push_back({path, w});
      (void)engine_.AppendIngestLog({common::NowIso8601(), path, "warn", w});
    }
    if (write->date.empty()) write->date = FileDate(path);
    bool renamed = false;
    if (previous && (previous->path != path || previous->slug != slug)) {
      // Same file, new name or slug: the page keeps its identity. When the
      // new slug is held by another page (it is overwritten by this file),
      // the old page goes instead.
      Status st = engine_.RenamePage(options_.source, previous->slug, slug, path);
      if (st.code() == StatusCode::kAlreadyExists) {
        ENGRAM_RETURN_IF_ERROR(Delete(previous->path));
        previous.reset();
      } else {
        ENGRAM_RETURN_IF_ERROR(st);
        renamed = previous->path != path;
      }
    }
    ENGRAM_RETURN_IF_ERROR(engine_.PutPage(*write).status().WithContext("syncing " + path));
    ENGRAM_RETURN_IF_ERROR(engine_.ClearSyncFailure(options_.source, path));
    if (!old_path.empty() && old_path != path) {
      ENGRAM_RETURN_IF_ERROR(engine_.ClearSyncFailure(options_.source, old_path));
    }
    if (renamed) ++report_->renamed;
    else if (previous) ++report_->updated;
    else ++report_->added;
    (void)engine_.AppendIngestLog(
        {common::NowIso8601(), path, renamed ? "rename" : previous.has_value() ? "update" : "add", "sync"});
    return Status::Ok();
  }

  Status Apply(const std::string& head, const Plan& plan) {
    // Deletes first, so that a slug freed by one file can be taken by another.
    // A file that is gone has nothing left to retry.
    for (const std::string& path : plan.deletes) {
      ENGRAM_RETURN_IF_ERROR(Delete(path));
      ENGRAM_RETURN_IF_ERROR(engine_.ClearSyncFailure(options_.source, path));
    }
    std::map<std::string, std::string> renamed_from;
    for (const auto& [old_path, new_path] : plan.renames) renamed_from[new_path] = old_path;
    std::vector<std::string> paths(plan.upserts.begin(), plan.upserts.end());
    // Reading blobs (zlib) and analysing pages run on a worker thread with its
    // own repository handle, ahead of the writes on this thread. The worker
    // skips analysis for files whose hash the brain already has.
    std::map<std::string, std::string> known_hash;
    if (paths.size() > 16) {
      ENGRAM_ASSIGN_OR_RETURN(std::vector<SourceFile> known, engine_.ListSourceFiles(options_.source));
      for (auto& f : known) known_hash[f.path] = std::move(f.content_hash);
    }
    ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<GitRepo> reader, GitRepo::Open(options_.root));
    head_ = head;
    return common::RunPipelined<Prepared>(
        paths.size(),
        [&](size_t i) {
          const std::string& path = paths[i];
          auto known = known_hash.find(path);
          const std::string* skip_hash = known != known_hash.end() && !Forced(path) ? &known->second : nullptr;
          Result<std::string> content = Status::Internal("not read");
          try {
            content = reader->ReadFile(head, path, options_.max_file_bytes);
          } catch (const std::exception& e) {
            content = Status::Internal(std::string("could not be read (") + e.what() + ")");
          }
          return Prepare(path, std::move(content), true, skip_hash);
        },
        [&](size_t i, Prepared& p) {
          auto from = renamed_from.find(paths[i]);
          // Writing is not preparing: an exception here fails the sync
          // (rolled back, the reason recorded for `status`), never the process.
          Status st;
          try {
            st = Upsert(paths[i], p, from == renamed_from.end() ? "" : from->second);
          } catch (const std::exception& e) {
            st = Status::Internal("syncing " + paths[i] + ": " + e.what());
          }
          FaultPoint(i + 1);
          if (options_.progress) options_.progress(i + 1, paths.size());
          return st;
        },
        64);
  }

  Status ApplyWorktree(const std::string& head) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<FileChange> changes, repo_.WorktreeChanges());
    ENGRAM_ASSIGN_OR_RETURN(Transaction txn, engine_.Begin());
    from_worktree_ = true;
    auto read = [&](const std::string& path) {
      return common::ReadFile(options_.root / path, options_.max_file_bytes);
    };
    Status st;
    for (const FileChange& c : changes) {
      if (!st.ok()) break;
      if (c.kind == FileChange::Kind::kDeleted) {
        st = Delete(c.path);
      } else if (c.kind == FileChange::Kind::kRenamed && options_.scope.Contains(c.path)) {
        st = Upsert(c.path, read(c.path), c.old_path);  // keeps the old page's identity when it has one
      } else {
        if (c.kind == FileChange::Kind::kRenamed) st = Delete(c.old_path);
        std::string why;
        if (st.ok() && options_.scope.Contains(c.path, &why) && c.is_regular) st = Upsert(c.path, read(c.path), "");
      }
    }
    if (st.ok()) st = engine_.SetSyncAnchor(options_.source, MakeAnchor(head, true));
    if (st.ok()) st = txn.Commit();
    ENGRAM_RETURN_IF_ERROR(st);
    report_->worktree = true;
    return Status::Ok();
  }

  // Written again even when the page holds its content: a repair, or pages
  // that are to get their dates.
  bool Forced(const std::string& path) const { return redate_ || options_.force.count(path) > 0; }

  // The date of a file whose frontmatter gives none (PageWrite::date): the
  // last commit that changed it, or (sync --worktree) the work tree file's
  // modification time. "" when it cannot be had: the write's time.
  std::string FileDate(const std::string& path) {
    if (from_worktree_) {
      auto mtime = common::ModifiedTime(options_.root / path);
      return mtime.ok() ? common::Iso8601FromUnix(*mtime) : "";
    }
    if (dates_failed_ || head_.empty()) return "";
    Result<std::optional<int64_t>> time = std::optional<int64_t>();
    if (!commit_times_) {
      auto finder = repo_.LastCommits(head_);
      if (finder.ok()) commit_times_ = std::move(*finder);
      else time = finder.status();
    }
    if (commit_times_) time = commit_times_->Find(path);
    if (!time.ok()) {
      // The history cannot be read: the pages still are, dated by this sync.
      dates_failed_ = true;
      report_->warnings.push_back({"", time.status().message() + "; pages without a frontmatter date are dated by "
                                       "this sync"});
      return "";
    }
    return *time ? common::Iso8601FromUnix(**time) : "";
  }

  Engine& engine_;
  GitRepo& repo_;
  const SyncOptions& options_;
  SyncReport* report_;
  bool unreadable_ = false;  // a file of the commit could not be read: the anchor stays
  bool redate_ = false;      // every file is written again to get its date (NoteDatesCurrent)
  std::string head_;         // the commit being applied
  std::unique_ptr<LastCommitFinder> commit_times_;  // made when a file first needs its date
  bool dates_failed_ = false;
  bool from_worktree_ = false;  // applying uncommitted files: dated by their modification time
};

}  // namespace

std::string AnchorCommit(std::string_view anchor, bool* worktree) {
  *worktree = anchor.size() > kWorktreeMark.size() &&
              anchor.substr(anchor.size() - kWorktreeMark.size()) == kWorktreeMark;
  if (*worktree) anchor.remove_suffix(kWorktreeMark.size());
  return std::string(anchor);
}

std::string MakeAnchor(std::string_view commit, bool worktree) {
  std::string anchor(commit);
  if (worktree) anchor += kWorktreeMark;
  return anchor;
}

Status CheckAgainstCommit(Engine& engine, GitRepo& repo, const std::string& source, const Scope& scope,
                          const SensitiveRules& sensitive, std::vector<ImportIssue>* problems, std::set<std::string>* reindex,
                          std::string* synced_commit) {
  ENGRAM_ASSIGN_OR_RETURN(std::string stored, engine.SyncAnchor(source));
  bool dirty = false;
  std::string anchor = AnchorCommit(stored, &dirty);
  if (dirty) {
    problems->push_back({"", "the database also holds uncommitted changes (`sync --worktree`)"});
  }
  *synced_commit = anchor;
  ENGRAM_ASSIGN_OR_RETURN(std::vector<IntegrityProblem> internal, engine.CheckIntegrity());
  for (const auto& p : internal) {
    problems->push_back({p.path, p.what});
    if (!p.path.empty()) reindex->insert(p.path);
  }
  if (anchor.empty()) {
    problems->push_back({"", "never synced: run `engram sync`"});
    return Status::Ok();
  }
  if (!repo.CommitExists(anchor)) {
    problems->push_back({"", "the synced commit " + anchor + " no longer exists"});
    return Status::Ok();
  }
  // A brain whose syncs fail (the hook's sync runs in the background) is
  // consistent with an old commit, which is not what its owner believes.
  auto head = repo.HeadCommit();
  if (head.ok() && *head != anchor) {
    problems->push_back({"", "the synced commit " + anchor.substr(0, 12) + " is not HEAD (" + head->substr(0, 12) +
                                 "): commits since are not indexed; run `engram sync` (`engram status` shows the "
                                 "last sync's error)"});
  }
  ENGRAM_ASSIGN_OR_RETURN(std::vector<SourceFile> pages, engine.ListSourceFiles(source));
  std::map<std::string, const SourceFile*> by_path;
  for (const auto& p : pages) by_path[p.path] = &p;
  ENGRAM_ASSIGN_OR_RETURN(std::vector<SyncFailure> failures, engine.SyncFailures(source));
  std::set<std::string> failed;
  for (const auto& f : failures) {
    failed.insert(f.path);
    problems->push_back({f.path, "could not be indexed: " + f.reason});
  }
  ENGRAM_ASSIGN_OR_RETURN(std::vector<TreeFile> files, repo.ListFiles(anchor));
  std::set<std::string> present;
  for (const TreeFile& f : files) {
    if (!f.is_regular || !scope.Contains(f.path)) continue;
    present.insert(f.path);
    auto content = repo.ReadFile(anchor, f.path, UINT64_MAX);
    if (!content.ok() && content.status().code() == StatusCode::kCorruption) {
      problems->push_back({f.path, "cannot be read from the synced commit: " + content.status().message()});
    }
    std::optional<SensitiveHit> rule;
    if (content.ok()) rule = FindSensitive(f.path, *content, sensitive);
    auto it = by_path.find(f.path);
    if (it == by_path.end()) {
      // A quarantined file has no page on purpose.
      if (!failed.count(f.path) && !rule) problems->push_back({f.path, "file of the synced commit has no page"});
      continue;
    }
    if (rule) {
      // Nothing quarantined may be indexed (rules may have changed since the sync).
      problems->push_back({f.path, "indexed although sensitive-content rule " + rule->rule + " quarantines it"});
      reindex->insert(f.path);
    } else if (content.ok() && common::Sha256Hex(*content) != it->second->content_hash && !dirty) {
      // A stored page that differs from its file is caught here, whatever it holds.
      problems->push_back({f.path, "page differs from the file in the synced commit"});
      reindex->insert(f.path);
    }
  }
  for (const auto& p : pages) {
    if (!present.count(p.path) && !dirty) problems->push_back({p.path, "page has no file in the synced commit"});
  }
  return Status::Ok();
}

Result<SyncReport> SyncGit(Engine& engine, GitRepo& repo, const SyncOptions& options) {
  SyncReport report;
  Syncer syncer(engine, repo, options, &report);
  try {
    ENGRAM_RETURN_IF_ERROR(syncer.Run());
  } catch (const std::exception& e) {  // unwinding rolled the transaction back: nothing of a failed sync lands
    return Status::Internal(std::string("sync failed: ") + e.what());
  }
  return report;
}

}  // namespace engram::sync
