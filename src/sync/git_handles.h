// libgit2 handles owned by unique_ptr, and libgit2's last error as a Status; shared by the sync module's
// git code (git_repo.cc reads, git_commit.cc writes).
#pragma once

#include <git2.h>

#include <memory>
#include <string>

#include "engram/status.h"

namespace engram::sync::git {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const {
    if (p != nullptr) Free(p);
  }
};
template <typename T, void (*Free)(T*)>
using Owned = std::unique_ptr<T, Deleter<T, Free>>;

using RepoPtr = Owned<git_repository, git_repository_free>;
using IndexPtr = Owned<git_index, git_index_free>;
using CommitPtr = Owned<git_commit, git_commit_free>;
using TreePtr = Owned<git_tree, git_tree_free>;
using SignaturePtr = Owned<git_signature, git_signature_free>;
using BuilderPtr = Owned<git_treebuilder, git_treebuilder_free>;
using DiffPtr = Owned<git_diff, git_diff_free>;
using BlobPtr = Owned<git_blob, git_blob_free>;
using EntryPtr = Owned<git_tree_entry, git_tree_entry_free>;

// libgit2's message for the last failed call, or "libgit2 error RC" when it left none.
inline std::string LastGitError(int rc) {
  const git_error* e = git_error_last();
  return e != nullptr && e->message != nullptr ? e->message : "libgit2 error " + std::to_string(rc);
}

// "WHAT: libgit2's message"; NotFound for GIT_ENOTFOUND, IOError otherwise.
inline Status GitError(int rc, const std::string& what) {
  std::string msg = what + ": " + LastGitError(rc);
  if (rc == GIT_ENOTFOUND) return Status::NotFound(msg);
  return Status::IOError(msg);
}

}  // namespace engram::sync::git
