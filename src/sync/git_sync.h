// Git-driven incremental sync: brings a source in line with the HEAD commit
// of its repository.
//
// The last synced commit (the anchor) is diffed against HEAD with rename and
// copy detection; the first sync, --full, or a lost anchor walk the whole
// tree. Every change of one sync is applied in one batch, and the anchor is
// written in that same batch: a sync either lands whole or not at all, and
// an interrupted one is redone by the next. A renamed file keeps its page's
// identity. A file that cannot be indexed is named, removed from the brain
// (its old text is no longer the truth), recorded, and retried by the next
// sync; it never blocks the others.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/status.h"
#include "engram/sync_reports.h"
#include "sync/git_repo.h"
#include "sync/scope.h"
#include "sync/sensitive.h"
#include "sync/page_indexer.h"

namespace engram::sync {

struct SyncOptions {
  std::string source = "default";
  std::filesystem::path root;            // the work tree (for --worktree reads)
  uint64_t max_file_bytes = 5u << 20;
  IndexOptions indexing;  // chunking and parsing as the brain does
  bool full = false;      // walk the whole tree even when the anchor could be diffed
  bool worktree = false;  // also apply uncommitted and untracked (not ignored) changes
  std::set<std::string> force;  // paths re-indexed even when their content is unchanged (repair)
  Scope scope;
  SensitiveRules sensitive = SensitiveRules::Defaults();
  // Called after each file of the batch (done, total); may be empty.
  std::function<void(size_t, size_t)> progress;
};

// Problems between the database and the synced commit: files without pages,
// pages without files, pages whose content differs from the commit, files
// the last sync could not index, and the database's own CheckIntegrity.
// `reindex` collects the paths a repair must index again.
Status CheckAgainstCommit(Engine& engine, GitRepo& repo, const std::string& source, const Scope& scope,
                          const SensitiveRules& sensitive,
                          std::vector<ImportIssue>* problems, std::set<std::string>* reindex,
                          std::string* synced_commit);

// A source's anchor names the commit it is synced to, marked when the sync
// also applied the work tree's uncommitted files (`sync --worktree`).
std::string AnchorCommit(std::string_view anchor, bool* worktree);
std::string MakeAnchor(std::string_view commit, bool worktree);

Result<SyncReport> SyncGit(Engine& engine, GitRepo& repo, const SyncOptions& options);

}  // namespace engram::sync
