// Waiting for a brain to change: a new commit (HEAD polled every interval)
// or, with the work tree watched, file changes reported by inotify.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>

#include "engram/status.h"

namespace engram::sync {

// Watches every folder of a work tree (hidden folders and node_modules
// excepted, new folders included as they appear) with inotify.
class TreeWatcher {
 public:
  ~TreeWatcher();
  TreeWatcher(const TreeWatcher&) = delete;
  TreeWatcher& operator=(const TreeWatcher&) = delete;

  static Result<std::unique_ptr<TreeWatcher>> Open(const std::filesystem::path& root);

  // Waits up to timeout_ms; true when files changed. Returns early (false)
  // when *stop becomes true or a signal interrupts the wait.
  bool Wait(int timeout_ms, const std::atomic<bool>& stop);

 private:
  explicit TreeWatcher(int fd, std::filesystem::path root) : fd_(fd), root_(std::move(root)) {}
  void AddTree(const std::filesystem::path& dir);

  int fd_;
  std::filesystem::path root_;
};

// Sleeps up to ms in small steps, returning early when *stop becomes true.
void SleepUnlessStopped(int ms, const std::atomic<bool>& stop);

}  // namespace engram::sync
