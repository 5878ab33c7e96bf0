// Commits one page write of a git brain: the file as it now is in the work
// tree (or its removal) on top of HEAD, nothing else — changes the user has
// staged or left in other files stay where they are.
//
// The branch moves only if it still points at the commit the write was
// built on (another commit meanwhile fails the write, it never drops one),
// and the index entry of the file follows, so `git status` stays clean.
//
// Threading: one GitCommitter per thread; the brain's write lock keeps
// engram's own writers apart.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "engram/status.h"

namespace engram::sync {

struct CommitIdentity {
  std::string name;   // empty: the repository's user.name, else "engram"
  std::string email;  // empty: the repository's user.email, else "engram@localhost"
};

struct CommitResult {
  std::string commit;   // the new commit's id, 40 hex digits
  std::string warning;  // the commit landed, but the index could not be written
};

class GitCommitter {
 public:
  ~GitCommitter();
  GitCommitter(const GitCommitter&) = delete;
  GitCommitter& operator=(const GitCommitter&) = delete;

  static Result<std::unique_ptr<GitCommitter>> Open(const std::filesystem::path& root);

  // HEAD's commit, or "" when the branch has no commit yet.
  Result<std::string> Head();

  // FailedPrecondition naming the path when a write there would clobber or
  // sweep up the user's own work: uncommitted or staged changes, an
  // untracked file, a conflict, or a path git ignores (it would never be part
  // of a commit, so never of the brain). A path that is clean or absent
  // everywhere is fine.
  Status CheckWritable(const std::string& path);

  // Commits `path` as the work tree now has it (removed: deleted there) on
  // top of `parent` ("" for the first commit) and moves HEAD's branch to it.
  // Nothing is committed on an error; the warning of a result is no error.
  Result<CommitResult> CommitFile(const std::string& parent, const std::string& path, bool removed,
                                 const std::string& message, const CommitIdentity& who);

 private:
  struct Impl;
  explicit GitCommitter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace engram::sync
