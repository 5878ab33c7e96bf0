#include "sync/git_repo.h"

#include <git2.h>

#include <mutex>
#include <unordered_map>

#include "sync/git_handles.h"

namespace engram::sync {

namespace {

using namespace git;  // NOLINT: the handle types and GitError

// libgit2 must be initialised once per process; it is never shut down
// (threads may still use it at exit).
void InitLibgit2() {
  static std::once_flag once;
  std::call_once(once, [] {
    git_libgit2_init();
    // libgit2 caches no tree over 4 KB by default, so reading each file of a
    // folder with thousands of entries re-inflated that folder's tree.
    git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE, static_cast<size_t>(16) << 20);
  });
}

bool IsRegular(uint32_t mode) { return mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE; }

}  // namespace

const char* FileChangeKindName(FileChange::Kind kind) {
  switch (kind) {
    case FileChange::Kind::kAdded: return "added";
    case FileChange::Kind::kModified: return "modified";
    case FileChange::Kind::kTypeChanged: return "type-changed";
    case FileChange::Kind::kDeleted: return "deleted";
    case FileChange::Kind::kRenamed: return "renamed";
    case FileChange::Kind::kCopied: return "copied";
  }
  return "unknown";
}

struct GitRepo::Impl {
  RepoPtr repo;
  // The tree ReadFile last used: a walk reads thousands of files of one commit.
  std::string cached_commit;
  TreePtr cached_tree;

  Result<TreePtr> TreeOf(const std::string& hex) {
    git_oid oid;
    if (git_oid_fromstr(&oid, hex.c_str()) != 0) return Status::InvalidArgument("'" + hex + "' is not a commit id");
    git_commit* c = nullptr;
    int rc = git_commit_lookup(&c, repo.get(), &oid);
    if (rc != 0) return GitError(rc, "commit " + hex);
    CommitPtr commit(c);
    git_tree* t = nullptr;
    rc = git_commit_tree(&t, commit.get());
    if (rc != 0) return GitError(rc, "tree of " + hex);
    return TreePtr(t);
  }

  static std::vector<FileChange> Collect(git_diff* diff) {
    std::vector<FileChange> out;
    size_t n = git_diff_num_deltas(diff);
    for (size_t i = 0; i < n; ++i) {
      const git_diff_delta* d = git_diff_get_delta(diff, i);
      FileChange c;
      c.path = d->new_file.path != nullptr ? d->new_file.path : "";
      c.is_regular = IsRegular(d->new_file.mode);
      switch (d->status) {
        case GIT_DELTA_ADDED:
        case GIT_DELTA_UNTRACKED:
          c.kind = FileChange::Kind::kAdded;
          break;
        case GIT_DELTA_MODIFIED:
          c.kind = FileChange::Kind::kModified;
          break;
        case GIT_DELTA_TYPECHANGE:
          c.kind = FileChange::Kind::kTypeChanged;
          break;
        case GIT_DELTA_DELETED:
          c.kind = FileChange::Kind::kDeleted;
          c.path = d->old_file.path != nullptr ? d->old_file.path : "";
          c.is_regular = IsRegular(d->old_file.mode);
          break;
        case GIT_DELTA_RENAMED:
          c.kind = FileChange::Kind::kRenamed;
          c.old_path = d->old_file.path != nullptr ? d->old_file.path : "";
          break;
        case GIT_DELTA_COPIED:
          c.kind = FileChange::Kind::kCopied;
          c.old_path = d->old_file.path != nullptr ? d->old_file.path : "";
          break;
        default:
          continue;  // unmodified, ignored, conflicted, unreadable
      }
      out.push_back(std::move(c));
    }
    return out;
  }

  static Status FindSimilar(git_diff* diff) {
    git_diff_find_options opts = GIT_DIFF_FIND_OPTIONS_INIT;
    // Renames and copies; case-only renames are renames too.
    opts.flags = GIT_DIFF_FIND_RENAMES | GIT_DIFF_FIND_COPIES | GIT_DIFF_FIND_FOR_UNTRACKED;
    int rc = git_diff_find_similar(diff, &opts);
    return rc == 0 ? Status::Ok() : GitError(rc, "finding renames");
  }
};

GitRepo::GitRepo(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GitRepo::~GitRepo() = default;

Result<std::unique_ptr<GitRepo>> GitRepo::Open(const std::filesystem::path& root) {
  InitLibgit2();
  git_repository* r = nullptr;
  int rc = git_repository_open_ext(&r, root.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr);
  if (rc != 0) {
    return Status::FailedPrecondition(root.string() + " is not a git repository; use `engram import` for plain folders");
  }
  auto impl = std::make_unique<Impl>();
  impl->repo.reset(r);
  if (git_repository_is_bare(r)) return Status::FailedPrecondition(root.string() + " is a bare repository");
  return std::unique_ptr<GitRepo>(new GitRepo(std::move(impl)));
}

Result<std::string> GitRepo::HeadCommit() {
  git_oid oid;
  int rc = git_reference_name_to_id(&oid, impl_->repo.get(), "HEAD");
  if (rc != 0) return Status::FailedPrecondition("the repository has no commit yet (HEAD is unborn)");
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &oid);
  return std::string(hex);
}

bool GitRepo::CommitExists(const std::string& hex) {
  git_oid oid;
  if (git_oid_fromstr(&oid, hex.c_str()) != 0) return false;
  git_commit* c = nullptr;
  if (git_commit_lookup(&c, impl_->repo.get(), &oid) != 0) return false;
  git_commit_free(c);
  return true;
}

Result<bool> GitRepo::IsAncestor(const std::string& ancestor, const std::string& descendant) {
  git_oid a, d;
  if (git_oid_fromstr(&a, ancestor.c_str()) != 0 || git_oid_fromstr(&d, descendant.c_str()) != 0) {
    return Status::InvalidArgument("not a commit id");
  }
  if (git_oid_equal(&a, &d)) return true;
  int rc = git_graph_descendant_of(impl_->repo.get(), &d, &a);
  if (rc < 0) return GitError(rc, "ancestry of " + ancestor);
  return rc == 1;
}

Result<std::vector<TreeFile>> GitRepo::ListFiles(const std::string& commit) {
  ENGRAM_ASSIGN_OR_RETURN(TreePtr tree, impl_->TreeOf(commit));
  std::vector<TreeFile> files;
  auto cb = [](const char* root, const git_tree_entry* entry, void* payload) -> int {
    auto* out = static_cast<std::vector<TreeFile>*>(payload);
    git_object_t type = git_tree_entry_type(entry);
    if (type == GIT_OBJECT_TREE) return 0;  // descend
    uint32_t mode = git_tree_entry_filemode(entry);
    out->push_back({std::string(root) + git_tree_entry_name(entry), IsRegular(mode), mode == GIT_FILEMODE_COMMIT});
    return 0;
  };
  int rc = git_tree_walk(tree.get(), GIT_TREEWALK_PRE, cb, &files);
  if (rc != 0) return GitError(rc, "walking " + commit);
  return files;
}

Result<std::vector<FileChange>> GitRepo::Diff(const std::string& from, const std::string& to) {
  ENGRAM_ASSIGN_OR_RETURN(TreePtr a, impl_->TreeOf(from));
  ENGRAM_ASSIGN_OR_RETURN(TreePtr b, impl_->TreeOf(to));
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.flags |= GIT_DIFF_INCLUDE_TYPECHANGE;
  git_diff* d = nullptr;
  int rc = git_diff_tree_to_tree(&d, impl_->repo.get(), a.get(), b.get(), &opts);
  if (rc != 0) return GitError(rc, "diff " + from + ".." + to);
  DiffPtr diff(d);
  ENGRAM_RETURN_IF_ERROR(Impl::FindSimilar(diff.get()));
  return Impl::Collect(diff.get());
}

Result<std::vector<FileChange>> GitRepo::WorktreeChanges() {
  ENGRAM_ASSIGN_OR_RETURN(std::string head, HeadCommit());
  ENGRAM_ASSIGN_OR_RETURN(TreePtr tree, impl_->TreeOf(head));
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.flags |= GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS | GIT_DIFF_INCLUDE_TYPECHANGE;
  git_diff* d = nullptr;
  int rc = git_diff_tree_to_workdir_with_index(&d, impl_->repo.get(), tree.get(), &opts);
  if (rc != 0) return GitError(rc, "work tree changes");
  DiffPtr diff(d);
  ENGRAM_RETURN_IF_ERROR(Impl::FindSimilar(diff.get()));
  return Impl::Collect(diff.get());
}

Result<std::filesystem::path> GitRepo::HooksDir() {
  git_config* snapshot = nullptr;
  int rc = git_repository_config_snapshot(&snapshot, impl_->repo.get());
  if (rc != 0) return GitError(rc, "reading git config");
  Owned<git_config, git_config_free> config(snapshot);
  const char* value = nullptr;
  std::filesystem::path workdir = git_repository_workdir(impl_->repo.get());
  if (git_config_get_string(&value, config.get(), "core.hooksPath") == 0 && value != nullptr && *value != '\0') {
    std::filesystem::path p(value);
    if (p.string().rfind("~/", 0) == 0) {
      const char* home = std::getenv("HOME");
      if (home != nullptr) p = std::filesystem::path(home) / p.string().substr(2);
    }
    return p.is_absolute() ? p : workdir / p;
  }
  return std::filesystem::path(git_repository_path(impl_->repo.get())) / "hooks";
}

Result<std::string> GitRepo::ReadFile(const std::string& commit, const std::string& path, uint64_t max_bytes) {
  if (!impl_->cached_tree || impl_->cached_commit != commit) {
    ENGRAM_ASSIGN_OR_RETURN(impl_->cached_tree, impl_->TreeOf(commit));
    impl_->cached_commit = commit;
  }
  git_tree_entry* e = nullptr;
  int rc = git_tree_entry_bypath(&e, impl_->cached_tree.get(), path.c_str());
  if (rc != 0) return GitError(rc, path);
  EntryPtr entry(e);
  if (!IsRegular(git_tree_entry_filemode(entry.get()))) {
    return Status::InvalidArgument(path + ": not a regular file (symlink or submodule)");
  }
  git_blob* b = nullptr;
  rc = git_blob_lookup(&b, impl_->repo.get(), git_tree_entry_id(entry.get()));
  if (rc != 0) {
    // The commit names the file but its content cannot be had: a damaged
    // repository, never a deletion (NotFound is kept for "no such file").
    char oid[GIT_OID_HEXSZ + 1];
    git_oid_tostr(oid, sizeof oid, git_tree_entry_id(entry.get()));
    return Status::Corruption(GitError(rc, path + ": its content (object " + std::string(oid) +
                                               ") is missing from the repository or damaged")
                                  .message());
  }
  BlobPtr blob(b);
  auto size = static_cast<uint64_t>(git_blob_rawsize(blob.get()));
  if (size > max_bytes) {
    return Status::InvalidArgument(path + ": file is " + std::to_string(size) + " bytes, over the limit of " +
                                   std::to_string(max_bytes));
  }
  return std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())), static_cast<size_t>(size));
}

struct LastCommitFinder::Walk {
  git_repository* repo = nullptr;
  CommitPtr next;  // the next commit to look at; null when the walk is over
  // path -> time of the newest commit that touched it, for every path the
  // commits walked so far touched.
  std::unordered_map<std::string, int64_t> times;

  // Looks at one commit: records the paths its first-parent diff touches
  // (those not seen in a newer commit), then moves to its first parent.
  Status Step() {
    CommitPtr commit = std::move(next);
    git_tree* t = nullptr;
    int rc = git_commit_tree(&t, commit.get());
    if (rc != 0) return GitError(rc, "tree of a commit");
    TreePtr tree(t);
    TreePtr parent_tree;
    if (git_commit_parentcount(commit.get()) > 0) {
      git_commit* p = nullptr;
      rc = git_commit_parent(&p, commit.get(), 0);
      if (rc == GIT_ENOTFOUND) {
        // A shallow clone's history ends here: its files date from this commit.
      } else if (rc != 0) {
        return GitError(rc, "parent of a commit");
      } else {
        next.reset(p);
        git_tree* pt = nullptr;
        rc = git_commit_tree(&pt, next.get());
        if (rc != 0) return GitError(rc, "tree of a commit");
        parent_tree.reset(pt);
      }
    }
    git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
    opts.flags |= GIT_DIFF_SKIP_BINARY_CHECK;  // which paths changed, never how: no blob is read
    git_diff* d = nullptr;
    rc = git_diff_tree_to_tree(&d, repo, parent_tree.get(), tree.get(), &opts);
    if (rc != 0) return GitError(rc, "diff of a commit");
    DiffPtr diff(d);
    const int64_t time = static_cast<int64_t>(git_commit_time(commit.get()));
    const size_t n = git_diff_num_deltas(diff.get());
    for (size_t i = 0; i < n; ++i) {
      const git_diff_delta* delta = git_diff_get_delta(diff.get(), i);
      for (const char* path : {delta->old_file.path, delta->new_file.path}) {
        if (path != nullptr) times.emplace(path, time);  // a newer commit's time stays
      }
    }
    return Status::Ok();
  }
};

LastCommitFinder::LastCommitFinder(std::unique_ptr<Walk> walk) : walk_(std::move(walk)) {}
LastCommitFinder::~LastCommitFinder() = default;

Result<std::optional<int64_t>> LastCommitFinder::Find(const std::string& path) {
  for (;;) {
    auto it = walk_->times.find(path);
    if (it != walk_->times.end()) return std::optional<int64_t>(it->second);
    if (!walk_->next) return std::optional<int64_t>();
    Status st = walk_->Step();
    if (!st.ok()) {
      walk_->next.reset();  // what was read stays usable; nothing older is
      return st.WithContext("dating files by their last commit");
    }
  }
}

Result<std::unique_ptr<LastCommitFinder>> GitRepo::LastCommits(const std::string& head) {
  git_oid oid;
  if (git_oid_fromstr(&oid, head.c_str()) != 0) return Status::InvalidArgument("'" + head + "' is not a commit id");
  git_commit* c = nullptr;
  int rc = git_commit_lookup(&c, impl_->repo.get(), &oid);
  if (rc != 0) return GitError(rc, "commit " + head);
  auto walk = std::make_unique<LastCommitFinder::Walk>();
  walk->repo = impl_->repo.get();
  walk->next.reset(c);
  return std::unique_ptr<LastCommitFinder>(new LastCommitFinder(std::move(walk)));
}

}  // namespace engram::sync
