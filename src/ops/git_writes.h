// Page writes on a git brain become commits. A brain whose pages are the
// files of a git repository takes its truth from the commits it syncs: a
// write left uncommitted would be undone by the next `sync --full` or
// `check --repair`. So each put, delete and page edit commits the one file
// it wrote (sync/git_commit.h), and the database takes the page and the new
// anchor in one transaction.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engram/brain.h"
#include "engram/engine.h"
#include "engram/options.h"
#include "sync/git_commit.h"
#include "sync/write_lock.h"

namespace engram::ops {

// The first line of a write's commit message: `templ` with {operation},
// {path}, {caller} and {transport} replaced (an unknown {name} stays as
// written), followed by trailers that always name the operation and the caller.
std::string CommitMessage(std::string_view templ, std::string_view operation, std::string_view path,
                          const OperationContext& ctx);

class GitWrites {
 public:
  // head: the commit the database is synced to ("" for an unborn branch);
  // worktree: the anchor also covers uncommitted files (`sync --worktree`).
  GitWrites(Engine& engine, std::string source, std::unique_ptr<sync::GitCommitter> committer, std::string head,
            bool worktree, const BrainOptions& options);

  // Refuses a write that would clobber or sweep up uncommitted work.
  Status CheckWritable(const std::string& path) { return committer_->CheckWritable(path); }
  // The commit the brain is at: the last write's once one was committed.
  const std::string& head() const { return head_; }

  // Commits `path` as the work tree now has it (removed: its deletion),
  // then runs `apply` (the database's side of the write) and moves the
  // anchor to the new commit in one transaction. An error means nothing was
  // committed; once the commit stands, a database failure is returned as a
  // warning (the next `engram sync` indexes the commit), never an error.
  Result<std::string> Commit(const std::string& path, bool removed, std::string_view operation,
                             const OperationContext& ctx, const std::function<Status()>& apply);

 private:
  // Runs apply and moves the anchor to commit, in one transaction.
  Status IndexCommitted(const std::string& commit, const std::function<Status()>& apply);

  Engine& engine_;
  std::string source_;
  std::unique_ptr<sync::GitCommitter> committer_;
  std::string head_;
  bool worktree_;
  std::string message_template_;
  sync::CommitIdentity who_;
};

// What a page write holds: the brain's write lock and, on a git brain, what
// commits the write (made after the database caught up with HEAD).
struct PageWriteLock {
  std::unique_ptr<sync::WriteLock> lock;
  std::unique_ptr<GitWrites> git;  // null: not a git brain
  // Interrupted writes this lock's holder finished before its own (so that
  // a re-run of one of them can answer with its report).
  std::vector<JournalEntry> finished;
};

}  // namespace engram::ops
