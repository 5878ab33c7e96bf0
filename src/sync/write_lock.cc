#include "sync/write_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "common/files.h"

namespace engram::sync {

WriteLock::~WriteLock() {
  // Clear the holder line first so a reader of the file never sees a stale
  // holder for a free lock; closing the descriptor releases the flock.
  if (ftruncate(fd_, 0) != 0) {
    // Nothing to do: the lock is released by close() below either way.
  }
  ::close(fd_);
}

Result<std::unique_ptr<WriteLock>> WriteLock::Acquire(const std::filesystem::path& file, std::string_view what,
                                                      int timeout_ms) {
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError(file.string() + ": " + std::strerror(errno));
  auto start = std::chrono::steady_clock::now();
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      int e = errno;
      ::close(fd);
      return Status::IOError(file.string() + ": " + std::strerror(e));
    }
    auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    if (waited.count() >= timeout_ms) {
      char buf[512] = {};
      ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
      ::close(fd);
      std::string holder = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "an unknown process";
      while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\r')) holder.pop_back();
      return Status::Unavailable("another writer holds " + file.string() + " (" + holder + "); waited " +
                                 std::to_string(waited.count()) + " ms (store.lock_timeout_ms)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::string line = "pid " + std::to_string(::getpid()) + ", " + std::string(what) + ", since " +
                     common::NowIso8601() + "\n";
  if (ftruncate(fd, 0) != 0 || ::pwrite(fd, line.data(), line.size(), 0) < 0) {
    // The lock is held; only the holder note is missing. Not worth failing the write for.
  }
  return std::unique_ptr<WriteLock>(new WriteLock(fd));
}

}  // namespace engram::sync
