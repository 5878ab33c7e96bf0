#include "common/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace engram::common {

namespace fs = std::filesystem;

Result<std::string> ReadFile(const fs::path& path, uint64_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT) return Status::NotFound(path.string() + ": no such file");
    return Status::IOError(path.string() + ": " + std::strerror(e));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument(path.string() + ": not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return Status::InvalidArgument(path.string() + ": file is " + std::to_string(st.st_size) +
                                   " bytes, over the limit of " + std::to_string(max_bytes));
  }
  std::string data;
  data.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < data.size()) {
    ssize_t r = ::read(fd, data.data() + got, data.size() - got);
    if (r < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      return Status::IOError(path.string() + ": " + std::strerror(e));
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  data.resize(got);
  ::close(fd);
  return data;
}

Status WriteFileAtomic(const fs::path& path, const std::string& data) {
  fs::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError(tmp.string() + ": " + std::strerror(errno));
  size_t put = 0;
  while (put < data.size()) {
    ssize_t w = ::write(fd, data.data() + put, data.size() - put);
    if (w < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return Status::IOError(tmp.string() + ": " + std::strerror(e));
    }
    put += static_cast<size_t>(w);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmp.c_str());
    return Status::IOError(tmp.string() + ": " + std::strerror(errno));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return Status::IOError(path.string() + ": " + std::strerror(e));
  }
  return Status::Ok();
}

std::string NowIso8601() { return Iso8601FromUnix(static_cast<int64_t>(std::time(nullptr))); }

std::string Iso8601FromUnix(int64_t seconds) {
  const auto t = static_cast<std::time_t>(seconds);
  std::tm tm;
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Result<int64_t> ModifiedTime(const fs::path& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    int e = errno;
    if (e == ENOENT) return Status::NotFound(path.string() + ": no such file");
    return Status::IOError(path.string() + ": " + std::strerror(e));
  }
  return static_cast<int64_t>(st.st_mtime);
}

}  // namespace engram::common
