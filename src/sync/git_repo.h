// A git repository read through libgit2: HEAD, ancestry, the Markdown files
// of a commit, the changes between two commits (with rename and copy
// detection), and file contents as committed.
//
// Threading: one GitRepo per thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engram/status.h"

namespace engram::sync {

struct FileChange {
  enum class Kind { kAdded, kModified, kTypeChanged, kDeleted, kRenamed, kCopied };
  Kind kind = Kind::kModified;
  std::string path;      // new path (the deleted path for kDeleted)
  std::string old_path;  // for kRenamed and kCopied
  bool is_regular = true;  // false for symlinks and submodules at the new path
};

const char* FileChangeKindName(FileChange::Kind kind);

// A file of a commit's tree.
struct TreeFile {
  std::string path;
  bool is_regular = true;     // false: symlink or submodule (not synced)
  bool is_submodule = false;
};

// When files last changed: a walk back from a commit along first parents.
// A file's time is the committer time (seconds since the Unix epoch) of the
// newest commit whose diff against its first parent (the empty tree for a
// root commit) touches the path. Renames are not followed: a renamed file's
// time is its rename's. A change merged from a side branch is dated by the
// merge. The walk goes back only as far as the paths asked for so far need,
// so a sync that writes a few recent files reads a few commits.
// Made by GitRepo::LastCommits; borrows that repository, which must outlive
// it. One thread at a time, the repository's.
class LastCommitFinder {
 public:
  ~LastCommitFinder();
  LastCommitFinder(const LastCommitFinder&) = delete;
  LastCommitFinder& operator=(const LastCommitFinder&) = delete;

  // The time of the last commit that changed path; nothing when no commit
  // of the history did (the path is not in it). IOError/NotFound when the
  // history cannot be read (a damaged repository); the end of a shallow
  // clone's history ends the walk without an error.
  Result<std::optional<int64_t>> Find(const std::string& path);

 private:
  friend class GitRepo;
  struct Walk;
  explicit LastCommitFinder(std::unique_ptr<Walk> walk);
  std::unique_ptr<Walk> walk_;
};

class GitRepo {
 public:
  ~GitRepo();
  GitRepo(const GitRepo&) = delete;
  GitRepo& operator=(const GitRepo&) = delete;

  // FailedPrecondition (suggesting `engram import`) when root is not the top
  // of a git work tree.
  static Result<std::unique_ptr<GitRepo>> Open(const std::filesystem::path& root);

  // The commit HEAD points at, as 40 hex digits. FailedPrecondition when the
  // repository has no commit yet.
  Result<std::string> HeadCommit();
  bool CommitExists(const std::string& hex);
  // True when ancestor is HEAD's ancestor (or HEAD itself).
  Result<bool> IsAncestor(const std::string& ancestor, const std::string& descendant);

  // Every file of the commit's tree, in path order.
  Result<std::vector<TreeFile>> ListFiles(const std::string& commit);
  // Changes from `from` to `to` with renames and copies detected.
  Result<std::vector<FileChange>> Diff(const std::string& from, const std::string& to);
  // Uncommitted and untracked (not ignored) changes of the work tree against HEAD.
  Result<std::vector<FileChange>> WorktreeChanges();
  // The folder git runs hooks from: core.hooksPath (relative to the work
  // tree when relative) or <gitdir>/hooks.
  Result<std::filesystem::path> HooksDir();
  // The file's bytes in the commit; NotFound when it is not there.
  Result<std::string> ReadFile(const std::string& commit, const std::string& path, uint64_t max_bytes);
  // Dates files by the last commit that changed them, walking back from
  // head (LastCommitFinder). InvalidArgument/NotFound for a bad commit.
  Result<std::unique_ptr<LastCommitFinder>> LastCommits(const std::string& head);

 private:
  struct Impl;
  explicit GitRepo(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace engram::sync
