#include "sync/watch.h"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "sync/scope.h"

namespace engram::sync {

namespace fs = std::filesystem;

namespace {
constexpr uint32_t kEvents = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE;
}

TreeWatcher::~TreeWatcher() { ::close(fd_); }

Result<std::unique_ptr<TreeWatcher>> TreeWatcher::Open(const fs::path& root) {
  int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return Status::IOError(std::string("inotify: ") + std::strerror(errno));
  std::unique_ptr<TreeWatcher> w(new TreeWatcher(fd, root));
  w->AddTree(root);
  return w;
}

void TreeWatcher::AddTree(const fs::path& dir) {
  inotify_add_watch(fd_, dir.c_str(), kEvents);
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec) || it->is_symlink(ec)) continue;
    if (IsIgnoredDirectory(it->path().filename().string())) {
      it.disable_recursion_pending();
      continue;
    }
    inotify_add_watch(fd_, it->path().c_str(), kEvents);
  }
}

bool TreeWatcher::Wait(int timeout_ms, const std::atomic<bool>& stop) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool changed = false;
  while (!stop && std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd_, POLLIN, 0};
    int left = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count());
    int rc = ::poll(&p, 1, std::max(0, std::min(left, 200)));
    if (rc <= 0) {
      if (changed) break;  // a quiet moment after changes: time to sync (debounce)
      continue;
    }
    alignas(inotify_event) char buf[8192];
    ssize_t n;
    while ((n = ::read(fd_, buf, sizeof buf)) > 0) {
      for (char* p2 = buf; p2 < buf + n;) {
        auto* e = reinterpret_cast<inotify_event*>(p2);
        if ((e->mask & IN_ISDIR) && (e->mask & (IN_CREATE | IN_MOVED_TO)) && e->len > 0 &&
            !IsIgnoredDirectory(e->name)) {
          changed = true;  // a new folder: watch it (and what it already holds)
        } else if (e->len > 0 && e->name[0] != '.') {
          changed = true;
        }
        p2 += sizeof(inotify_event) + e->len;
      }
    }
    if (changed) AddTree(root_);  // cheap re-add: existing watches are kept
  }
  return changed;
}

void SleepUnlessStopped(int ms, const std::atomic<bool>& stop) {
  for (int slept = 0; slept < ms && !stop; slept += 50) std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

}  // namespace engram::sync
