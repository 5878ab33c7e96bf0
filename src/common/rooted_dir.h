// A folder that file operations cannot leave: every path below it is
// resolved relative to the folder's own descriptor, one component at a time,
// so a symbolic link planted anywhere on the way — at a folder, at the final
// name, at the temporary name of an atomic write, or swapped in while the
// operation runs — is never followed out.
//
// With Links::kRefuse (remote callers) no symbolic link is followed at all:
// the kernel's openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) resolves the
// parent folder where it exists (Linux ≥ 5.6), else a walk of
// openat(O_NOFOLLOW | O_DIRECTORY) calls does. Final names are created with
// O_EXCL | O_NOFOLLOW in the already-opened parent and renamed within it, so
// what is written lands in the folder that was checked, whatever happens to
// the path afterwards. With Links::kFollow (the local owner, whose vault may
// link folders on purpose) folders are opened by path; the temporary file is
// still created exclusively, never through a link.
//
// Thread safety: a RootedDir is immutable after Open; concurrent calls are
// safe. Errors: PermissionDenied for a link (naming it), NotFound for a
// missing file or folder, IOError otherwise; the path named is relative.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram::common {

class RootedDir {
 public:
  enum class Links { kRefuse, kFollow };

  ~RootedDir();
  RootedDir(const RootedDir&) = delete;
  RootedDir& operator=(const RootedDir&) = delete;

  // Opens root (which may itself be reached through links: it is the owner's
  // choice of folder).
  static Result<std::unique_ptr<RootedDir>> Open(const std::filesystem::path& root, Links links);

  // Writes data to relative ('/'-separated, no "..", no absolute path)
  // atomically: a hidden temporary file in the same folder, created with
  // O_EXCL | O_NOFOLLOW, flushed, then renamed over the name. Missing folders
  // are created (mode 0755) when create_folders is set; *folders_created (if
  // given) gets how many, so a caller that must undo the write can remove
  // them with RemoveEmptyFolders. A final name that is a link is refused with
  // kRefuse and replaced (never followed) with kFollow.
  Status WriteFile(std::string_view relative, std::string_view data, bool create_folders,
                   int* folders_created = nullptr) const;

  // Reads relative (a regular file, at most max_bytes), never through a link
  // with kRefuse.
  Result<std::string> ReadFile(std::string_view relative, uint64_t max_bytes) const;

  // Removes the file relative (never a folder). A link at the name is removed
  // itself, never its target. NotFound when nothing is there.
  Status RemoveFile(std::string_view relative) const;

  // The name WriteFile gives its temporary files: ".engram-tmp-" and 16 hex digits.
  static bool IsTemporaryName(std::string_view name);
  // Removes the temporary files WriteFile left in the folder that holds
  // relative (a process killed between writing one and renaming it); returns
  // how many. Only the holder of the brain's write lock may call it: another
  // writer's temporary file would be in use.
  Result<size_t> RemoveTemporaries(std::string_view relative) const;

  // Removes up to `levels` folders of relative's folder path, deepest first,
  // stopping at the first that is not empty.
  void RemoveEmptyFolders(std::string_view relative, int levels) const;

  // What is at relative, without following a final link.
  enum class Kind { kMissing, kFile, kFolder, kLink, kOther };
  Result<Kind> Stat(std::string_view relative) const;

  // The first existing entry on relative's path whose name equals the
  // requested component after Unicode normalisation and case folding
  // (NFKC_Casefold: case, NFC/NFD, full width) but not byte for byte,
  // returned as a relative path ("" when every component is either exact or
  // new). Lets a caller refuse "notes/HELLO" when "notes/hello" exists.
  Result<std::string> FindNameVariant(std::string_view relative) const;

  const std::filesystem::path& root() const { return root_; }

  // For tests: resolve with the O_NOFOLLOW walk even where openat2 exists.
  static void UseOpenat2ForTesting(bool use);

 private:
  RootedDir(std::filesystem::path root, int fd, Links links) : root_(std::move(root)), fd_(fd), links_(links) {}
  // The folder holding relative's final component, opened (the caller owns
  // the descriptor); *name gets the final component, *created (optional) the
  // number of folders created on the way.
  Result<int> OpenParent(std::string_view relative, bool create, std::string* name, int* created) const;

  std::filesystem::path root_;
  int fd_;
  Links links_;
};

}  // namespace engram::common
