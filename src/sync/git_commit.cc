#include "sync/git_commit.h"

#include <git2.h>

#include "sync/git_handles.h"

namespace engram::sync {

namespace {

using namespace git;  // NOLINT: the handle types and GitError

std::string Hex(const git_oid& oid) {
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &oid);
  return hex;
}

// What a status flag set means to the user, or "" for a clean path.
std::string Uncommitted(unsigned int flags) {
  if ((flags & GIT_STATUS_CONFLICTED) != 0) return "has an unresolved merge conflict";
  if ((flags & GIT_STATUS_IGNORED) != 0) return "is ignored by git (.gitignore), so it would never be committed";
  if ((flags & GIT_STATUS_WT_NEW) != 0) return "is an untracked file that is not committed yet";
  if ((flags & (GIT_STATUS_INDEX_NEW | GIT_STATUS_INDEX_MODIFIED | GIT_STATUS_INDEX_DELETED |
                GIT_STATUS_INDEX_RENAMED | GIT_STATUS_INDEX_TYPECHANGE)) != 0) {
    return "has staged changes that are not committed";
  }
  if ((flags & (GIT_STATUS_WT_MODIFIED | GIT_STATUS_WT_DELETED | GIT_STATUS_WT_TYPECHANGE |
                GIT_STATUS_WT_RENAMED | GIT_STATUS_WT_UNREADABLE)) != 0) {
    return "has uncommitted local changes";
  }
  return "";
}

}  // namespace

struct GitCommitter::Impl {
  RepoPtr repo;

  Result<SignaturePtr> Signature(const CommitIdentity& who) {
    std::string name = who.name;
    std::string email = who.email;
    if (name.empty() || email.empty()) {
      git_signature* found = nullptr;
      if (git_signature_default(&found, repo.get()) == 0) {
        SignaturePtr user(found);
        if (name.empty()) name = user->name;
        if (email.empty()) email = user->email;
      }
    }
    if (name.empty()) name = "engram";
    if (email.empty()) email = "engram@localhost";
    git_signature* sig = nullptr;
    int rc = git_signature_now(&sig, name.c_str(), email.c_str());
    if (rc != 0) return Status::InvalidArgument("git author '" + name + " <" + email + ">': " + LastGitError(rc));
    return SignaturePtr(sig);
  }

  // The tree the write starts from: the parent's, or an empty one.
  Result<TreePtr> BaseTree(const git_commit* parent) {
    git_tree* tree = nullptr;
    if (parent != nullptr) {
      int rc = git_commit_tree(&tree, parent);
      if (rc != 0) return GitError(rc, "reading HEAD's tree");
      return TreePtr(tree);
    }
    git_treebuilder* b = nullptr;
    int rc = git_treebuilder_new(&b, repo.get(), nullptr);
    if (rc != 0) return GitError(rc, "creating an empty tree");
    BuilderPtr builder(b);
    git_oid empty;
    rc = git_treebuilder_write(&empty, builder.get());
    if (rc == 0) rc = git_tree_lookup(&tree, repo.get(), &empty);
    if (rc != 0) return GitError(rc, "creating an empty tree");
    return TreePtr(tree);
  }
};

GitCommitter::GitCommitter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GitCommitter::~GitCommitter() = default;

Result<std::unique_ptr<GitCommitter>> GitCommitter::Open(const std::filesystem::path& root) {
  static const int kInit = git_libgit2_init();  // once per process, never shut down (as GitRepo)
  (void)kInit;
  git_repository* r = nullptr;
  if (git_repository_open_ext(&r, root.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) != 0) {
    return Status::FailedPrecondition(root.string() + " is not a git repository");
  }
  auto impl = std::make_unique<Impl>();
  impl->repo.reset(r);
  if (git_repository_is_bare(r)) return Status::FailedPrecondition(root.string() + " is a bare repository");
  return std::unique_ptr<GitCommitter>(new GitCommitter(std::move(impl)));
}

Result<std::string> GitCommitter::Head() {
  git_oid oid;
  int rc = git_reference_name_to_id(&oid, impl_->repo.get(), "HEAD");
  if (rc == GIT_ENOTFOUND || rc == GIT_EUNBORNBRANCH) return std::string();
  if (rc != 0) return GitError(rc, "reading HEAD");
  return Hex(oid);
}

Status GitCommitter::CheckWritable(const std::string& path) {
  unsigned int flags = 0;
  int rc = git_status_file(&flags, impl_->repo.get(), path.c_str());
  if (rc == GIT_ENOTFOUND) {
    // Nowhere yet: only an ignore rule can stand in the way.
    int ignored = 0;
    rc = git_ignore_path_is_ignored(&ignored, impl_->repo.get(), path.c_str());
    if (rc != 0) return GitError(rc, "checking " + path + " against .gitignore");
    flags = ignored != 0 ? GIT_STATUS_IGNORED : 0;
  } else if (rc != 0) {
    return GitError(rc, "git status of " + path);
  }
  const std::string why = Uncommitted(flags);
  if (why.empty()) return Status::Ok();
  return Status::FailedPrecondition("'" + path + "' " + why +
                                    "; engram commits each write it makes and will not mix in or overwrite yours. "
                                    "Commit or discard the change (or move the file), then try again");
}

Result<CommitResult> GitCommitter::CommitFile(const std::string& parent, const std::string& path, bool removed,
                                             const std::string& message, const CommitIdentity& who) {
  git_repository* repo = impl_->repo.get();
  CommitPtr parent_commit;
  if (!parent.empty()) {
    git_oid oid;
    git_commit* c = nullptr;
    int rc = git_oid_fromstr(&oid, parent.c_str());
    if (rc == 0) rc = git_commit_lookup(&c, repo, &oid);
    if (rc != 0) return GitError(rc, "commit " + parent);
    parent_commit.reset(c);
  }
  ENGRAM_ASSIGN_OR_RETURN(TreePtr base, impl_->BaseTree(parent_commit.get()));

  // The index takes the file as `git add` would (filters, stat data), and
  // the new tree takes the index's blob: the two agree by construction.
  git_index* i = nullptr;
  int rc = git_repository_index(&i, repo);
  if (rc != 0) return GitError(rc, "opening the git index");
  IndexPtr index(i);
  rc = git_index_read(index.get(), /*force=*/0);
  if (rc != 0) return GitError(rc, "reading the git index");
  git_tree_update update{};
  update.path = path.c_str();
  if (removed) {
    rc = git_index_remove_bypath(index.get(), path.c_str());
    if (rc != 0) return GitError(rc, "removing " + path + " from the git index");
    update.action = GIT_TREE_UPDATE_REMOVE;
  } else {
    rc = git_index_add_bypath(index.get(), path.c_str());
    if (rc != 0) return GitError(rc, "adding " + path + " to the git index");
    const git_index_entry* entry = git_index_get_bypath(index.get(), path.c_str(), 0);
    if (entry == nullptr) return Status::IOError("the git index lost " + path);
    update.action = GIT_TREE_UPDATE_UPSERT;
    update.id = entry->id;
    update.filemode = static_cast<git_filemode_t>(entry->mode);
  }
  git_oid tree_id;
  rc = git_tree_create_updated(&tree_id, repo, base.get(), 1, &update);
  if (rc != 0) return GitError(rc, "building the tree for " + path);
  git_tree* t = nullptr;
  rc = git_tree_lookup(&t, repo, &tree_id);
  if (rc != 0) return GitError(rc, "reading the new tree");
  TreePtr tree(t);

  ENGRAM_ASSIGN_OR_RETURN(SignaturePtr sig, impl_->Signature(who));
  const git_commit* parents[1] = {parent_commit.get()};
  git_oid commit_id;
  // "HEAD" moves the branch HEAD names, and only while it still points at
  // the parent (GIT_EMODIFIED otherwise): a commit made meanwhile is kept.
  rc = git_commit_create(&commit_id, repo, "HEAD", sig.get(), sig.get(), nullptr, message.c_str(), tree.get(),
                         parent_commit ? 1 : 0, parent_commit ? parents : nullptr);
  if (rc == GIT_EMODIFIED) {
    return Status::FailedPrecondition("HEAD moved while " + path + " was being written (a commit or checkout meanwhile); "
                           "nothing was committed — run `engram sync`, then try again");
  }
  if (rc != 0) return GitError(rc, "committing " + path);
  CommitResult out{Hex(commit_id), ""};
  rc = git_index_write(index.get());
  if (rc != 0) {
    out.warning = "the git index could not be updated (" + LastGitError(rc) + "); `git status` shows " + path +
                  " as changed until `git reset -q -- " + path + "`";
  }
  return out;
}

}  // namespace engram::sync
