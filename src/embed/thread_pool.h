// A small fork-join pool for the encoder: the caller and n-1 persistent
// workers split a loop of tasks. Workers spin briefly before sleeping, so
// the many short parallel sections of one forward pass stay cheap.
#pragma once

#include <atomic>
#include <cstdint>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace engram::embed {

class ThreadPool {
 public:
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }
  // Runs fn(task, thread) for task in [0, tasks); thread is in [0, size()).
  // Returns when every task has finished. Not re-entrant.
  void ParallelFor(int tasks, const std::function<void(int task, int thread)>& fn);

 private:
  void Work(int thread);
  void RunTasks(int thread);

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::atomic<const std::function<void(int, int)>*> fn_{nullptr};
  // The current job in one word: generation (24 bits) | tasks (20) | next
  // task (20). A worker takes a task with compare-and-swap, so one that
  // wakes late for a finished job can never take a task of the next one.
  std::atomic<uint64_t> job_{0};
  std::atomic<int> done_{0};
  std::atomic<uint64_t> generation_{0};
  bool stop_ = false;
};

}  // namespace engram::embed
