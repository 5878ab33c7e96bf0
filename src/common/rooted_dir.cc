#include "common/rooted_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <vector>

#include "common/crash_point.h"
#include "common/hash.h"
#include "common/utf8.h"

namespace engram::common {

namespace fs = std::filesystem;

namespace {

std::atomic<bool> g_use_openat2{true};

// Owns one descriptor.
class UniqueFd {
 public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  ~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = o.fd_;
      o.fd_ = -1;
    }
    return *this;
  }
  int get() const { return fd_; }
  int release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }

 private:
  int fd_;
};

std::string Quoted(std::string_view s) {
  std::string q = "'";
  q.append(s).append("'");
  return q;
}

// The components of a relative path; InvalidArgument for an empty one,
// ".", "..", an absolute path or a NUL byte.
Result<std::vector<std::string>> Split(std::string_view relative) {
  if (relative.empty()) return Status::InvalidArgument("empty path");
  if (relative.front() == '/') return Status::InvalidArgument(Quoted(relative) + " is an absolute path");
  if (relative.find('\0') != std::string_view::npos) return Status::InvalidArgument("path contains a NUL byte");
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= relative.size()) {
    size_t end = relative.find('/', start);
    if (end == std::string_view::npos) end = relative.size();
    std::string_view part = relative.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") {
      return Status::InvalidArgument(Quoted(relative) + " has an empty, '.' or '..' component");
    }
    parts.emplace_back(part);
    start = end + 1;
  }
  return parts;
}

std::string Join(const std::vector<std::string>& parts, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    if (i) out += '/';
    out += parts[i];
  }
  return out;
}

Status Errno(const std::string& what, int e) {
  if (e == ENOENT) return Status::NotFound(what + ": no such file or folder");
  if (e == ELOOP) return Status::PermissionDenied(what + " is a symbolic link; it is not followed");
  return Status::IOError(what + ": " + std::strerror(e));
}

// openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS); -1 with errno, ENOSYS where
// the kernel (or a seccomp filter) lacks it.
int OpenBeneath(int dir, const std::string& path) {
  struct open_how how {};
  how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
  return static_cast<int>(::syscall(SYS_openat2, dir, path.c_str(), &how, sizeof how));
}

}  // namespace

RootedDir::~RootedDir() {
  if (fd_ >= 0) ::close(fd_);
}

void RootedDir::UseOpenat2ForTesting(bool use) { g_use_openat2.store(use); }

Result<std::unique_ptr<RootedDir>> RootedDir::Open(const fs::path& root, Links links) {
  const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno(root.string(), errno);
  return std::unique_ptr<RootedDir>(new RootedDir(root, fd, links));
}

Result<int> RootedDir::OpenParent(std::string_view relative, bool create, std::string* name, int* created) const {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<std::string> parts, Split(relative));
  *name = parts.back();
  const size_t folders = parts.size() - 1;
  if (created) *created = 0;
  if (folders == 0) {
    const int d = ::fcntl(fd_, F_DUPFD_CLOEXEC, 0);
    if (d < 0) return Errno(root_.string(), errno);
    return d;
  }
  const std::string folder = Join(parts, folders);
  if (links_ == Links::kFollow) {
    std::error_code ec;
    if (create) {
      fs::path p = root_;
      for (size_t i = 0; i < folders; ++i) {
        p /= parts[i];
        if (fs::exists(p, ec)) continue;
        if (!fs::create_directory(p, ec) && ec) return Status::IOError(p.string() + ": " + ec.message());
        if (created) ++*created;
      }
    }
    const int d = ::open((root_ / folder).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d < 0) return Errno(Quoted(folder), errno);
    return d;
  }
  if (g_use_openat2.load()) {
    const int d = OpenBeneath(fd_, folder);
    if (d >= 0) return d;
    const int e = errno;
    if (e == ELOOP || e == EXDEV) {
      return Status::PermissionDenied(Quoted(folder) + " passes through a symbolic link; remote callers cannot write through links");
    }
    if (e != ENOSYS && e != EPERM && !(e == ENOENT && create)) return Errno(Quoted(folder), e);
    // No openat2 here, or folders to create: walk.
  }
  UniqueFd cur(::fcntl(fd_, F_DUPFD_CLOEXEC, 0));
  if (cur.get() < 0) return Errno(root_.string(), errno);
  for (size_t i = 0; i < folders; ++i) {
    const std::string& part = parts[i];
    int next = ::openat(cur.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0 && errno == ENOENT && create) {
      if (::mkdirat(cur.get(), part.c_str(), 0755) == 0) {
        if (created) ++*created;
      } else if (errno != EEXIST) {
        return Errno(Quoted(Join(parts, i + 1)), errno);
      }
      next = ::openat(cur.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (next < 0) {
      const int e = errno;
      struct stat st {};
      if (e == ELOOP || (e == ENOTDIR && ::fstatat(cur.get(), part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                         S_ISLNK(st.st_mode))) {
        return Status::PermissionDenied("folder " + Quoted(Join(parts, i + 1)) +
                                        " is a symbolic link; remote callers cannot write through links");
      }
      return Errno(Quoted(Join(parts, i + 1)), e);
    }
    cur = UniqueFd(next);
  }
  return cur.release();
}

Status RootedDir::WriteFile(std::string_view relative, std::string_view data, bool create_folders,
                            int* folders_created) const {
  std::string name;
  ENGRAM_ASSIGN_OR_RETURN(int pfd, OpenParent(relative, create_folders, &name, folders_created));
  UniqueFd parent(pfd);
  struct stat st {};
  if (::fstatat(parent.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(st.st_mode) && links_ == Links::kRefuse) {
      return Status::PermissionDenied(Quoted(relative) + " is a symbolic link; remote callers cannot write through links");
    }
    if (S_ISDIR(st.st_mode)) return Status::InvalidArgument(Quoted(relative) + " is a folder");
  }
  // The temporary name is hidden (never a page) and random; O_EXCL | O_NOFOLLOW
  // refuse anything planted there, and the descriptor is the parent checked above.
  std::string tmp;
  UniqueFd out;
  for (int attempt = 0; attempt < 8 && out.get() < 0; ++attempt) {
    ENGRAM_ASSIGN_OR_RETURN(std::string hex, RandomHex(8));
    tmp = ".engram-tmp-" + hex;
    out = UniqueFd(::openat(parent.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (out.get() < 0 && errno != EEXIST) return Errno("temporary file for " + Quoted(relative), errno);
  }
  if (out.get() < 0) return Status::IOError("cannot create a temporary file for " + Quoted(relative));
  auto fail = [&](int e) {
    ::unlinkat(parent.get(), tmp.c_str(), 0);
    return Errno(Quoted(relative), e);
  };
  size_t put = 0;
  while (put < data.size()) {
    const ssize_t w = ::write(out.get(), data.data() + put, data.size() - put);
    if (w < 0) {
      if (errno == EINTR) continue;
      return fail(errno);
    }
    put += static_cast<size_t>(w);
  }
  if (::fsync(out.get()) != 0) return fail(errno);
  if (::close(out.release()) != 0) return fail(errno);
  CrashPoint("file written to its temporary name");
  // renameat replaces whatever is at the name — a link included — itself.
  if (::renameat(parent.get(), tmp.c_str(), parent.get(), name.c_str()) != 0) return fail(errno);
  return Status::Ok();
}

Result<std::string> RootedDir::ReadFile(std::string_view relative, uint64_t max_bytes) const {
  std::string name;
  ENGRAM_ASSIGN_OR_RETURN(int pfd, OpenParent(relative, false, &name, nullptr));
  UniqueFd parent(pfd);
  const int flags = O_RDONLY | O_CLOEXEC | (links_ == Links::kRefuse ? O_NOFOLLOW : 0);
  UniqueFd in(::openat(parent.get(), name.c_str(), flags));
  if (in.get() < 0) return Errno(Quoted(relative), errno);
  struct stat st {};
  if (::fstat(in.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return Status::InvalidArgument(Quoted(relative) + " is not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    return Status::InvalidArgument(Quoted(relative) + " is " + std::to_string(st.st_size) + " bytes, over the limit of " +
                                   std::to_string(max_bytes));
  }
  std::string data(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < data.size()) {
    const ssize_t r = ::read(in.get(), data.data() + got, data.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Errno(Quoted(relative), errno);
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  data.resize(got);
  return data;
}

Status RootedDir::RemoveFile(std::string_view relative) const {
  std::string name;
  ENGRAM_ASSIGN_OR_RETURN(int pfd, OpenParent(relative, false, &name, nullptr));
  UniqueFd parent(pfd);
  if (::unlinkat(parent.get(), name.c_str(), 0) != 0) return Errno(Quoted(relative), errno);
  return Status::Ok();
}

bool RootedDir::IsTemporaryName(std::string_view name) {
  constexpr std::string_view kPrefix = ".engram-tmp-";
  if (name.size() != kPrefix.size() + 16 || name.substr(0, kPrefix.size()) != kPrefix) return false;
  for (char c : name.substr(kPrefix.size())) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Result<size_t> RootedDir::RemoveTemporaries(std::string_view relative) const {
  std::string name;
  auto pfd = OpenParent(relative, false, &name, nullptr);
  if (!pfd.ok()) return pfd.status().code() == StatusCode::kNotFound ? Result<size_t>(size_t{0}) : pfd.status();
  UniqueFd parent(*pfd);
  const int listing = ::dup(parent.get());
  if (listing < 0) return Errno("listing the folder of " + Quoted(relative), errno);
  DIR* d = ::fdopendir(listing);
  if (d == nullptr) {
    ::close(listing);
    return Errno("listing the folder of " + Quoted(relative), errno);
  }
  std::vector<std::string> found;
  while (const dirent* e = ::readdir(d)) {
    if (IsTemporaryName(e->d_name)) found.emplace_back(e->d_name);
  }
  ::closedir(d);
  size_t removed = 0;
  for (const std::string& f : found) {
    struct stat st {};
    if (::fstatat(parent.get(), f.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    if (::unlinkat(parent.get(), f.c_str(), 0) == 0) ++removed;
  }
  return removed;
}

void RootedDir::RemoveEmptyFolders(std::string_view relative, int levels) const {
  auto parts = Split(relative);
  if (!parts.ok()) return;
  size_t folders = parts->size() - 1;
  for (int i = 0; i < levels && folders > 0; ++i, --folders) {
    std::string name;
    auto pfd = OpenParent(Join(*parts, folders), false, &name, nullptr);
    if (!pfd.ok()) return;
    UniqueFd parent(*pfd);
    if (::unlinkat(parent.get(), name.c_str(), AT_REMOVEDIR) != 0) return;
  }
}

Result<RootedDir::Kind> RootedDir::Stat(std::string_view relative) const {
  std::string name;
  auto pfd = OpenParent(relative, false, &name, nullptr);
  if (!pfd.ok()) {
    if (pfd.status().code() == StatusCode::kNotFound) return Kind::kMissing;
    return pfd.status();
  }
  UniqueFd parent(*pfd);
  struct stat st {};
  if (::fstatat(parent.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return Kind::kMissing;
    return Errno(Quoted(relative), errno);
  }
  if (S_ISLNK(st.st_mode)) return Kind::kLink;
  if (S_ISREG(st.st_mode)) return Kind::kFile;
  if (S_ISDIR(st.st_mode)) return Kind::kFolder;
  return Kind::kOther;
}

Result<std::string> RootedDir::FindNameVariant(std::string_view relative) const {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<std::string> parts, Split(relative));
  UniqueFd cur(::fcntl(fd_, F_DUPFD_CLOEXEC, 0));
  if (cur.get() < 0) return Errno(root_.string(), errno);
  const int nofollow = links_ == Links::kRefuse ? O_NOFOLLOW : 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    struct stat st {};
    if (::fstatat(cur.get(), part.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      // Not there byte for byte: is it there under another spelling?
      const std::string folded = NfkcCasefold(NormalizeNfc(part));
      UniqueFd listing(::openat(cur.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      if (listing.get() < 0) return Errno(root_.string(), errno);
      DIR* dir = ::fdopendir(listing.get());
      if (dir == nullptr) return Errno(root_.string(), errno);
      listing.release();
      std::string found;
      while (const dirent* e = ::readdir(dir)) {
        const std::string_view entry = e->d_name;
        if (entry == "." || entry == "..") continue;
        if (NfkcCasefold(NormalizeNfc(entry)) == folded) {
          found = std::string(entry);
          break;
        }
      }
      ::closedir(dir);
      if (found.empty()) return std::string();
      std::vector<std::string> prefix(parts.begin(), parts.begin() + static_cast<long>(i));
      prefix.push_back(found);
      return Join(prefix, prefix.size());
    }
    if (i + 1 == parts.size() || !S_ISDIR(st.st_mode)) return std::string();
    UniqueFd next(::openat(cur.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | nofollow));
    if (next.get() < 0) return std::string();
    cur = std::move(next);
  }
  return std::string();
}

}  // namespace engram::common
