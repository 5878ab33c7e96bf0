// A git repository read through libgit2: HEAD, ancestry, the Markdown files
// of a commit, the changes between two commits (with rename and copy
// detection), and file contents as committed.
//
// Threading: one GitRepo per thread.
#pragma once

#include <filesystem>
#include <memory>
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

 private:
  struct Impl;
  explicit GitRepo(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace engram::sync
