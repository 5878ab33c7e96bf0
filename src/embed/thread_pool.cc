#include "embed/thread_pool.h"

#include <chrono>

namespace engram::embed {

namespace {

inline void CpuRelax() {
#if defined(__x86_64__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { Work(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    generation_.fetch_add(1);
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::RunTasks(int thread) {
  uint64_t job = job_.load(std::memory_order_acquire);
  const uint64_t tag = job >> 40;
  for (;;) {
    const uint64_t tasks = (job >> 20) & 0xFFFFF, next = job & 0xFFFFF;
    if ((job >> 40) != tag || next >= tasks) return;
    if (!job_.compare_exchange_weak(job, job + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
    (*fn_.load(std::memory_order_acquire))(static_cast<int>(next), thread);
    done_.fetch_add(1, std::memory_order_release);
    job = job_.load(std::memory_order_acquire);
  }
}

void ThreadPool::Work(int thread) {
  uint64_t seen = 0;
  for (;;) {
    // Spin for a short while: the next parallel section usually follows soon.
    auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
    while (generation_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < until) {
      for (int i = 0; i < 64; ++i) CpuRelax();
    }
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [&] { return generation_.load() != seen; });
      seen = generation_.load();
      if (stop_) return;
    }
    RunTasks(thread);
  }
}

void ThreadPool::ParallelFor(int tasks, const std::function<void(int, int)>& fn) {
  if (tasks <= 0) return;
  if (workers_.empty() || tasks == 1 || tasks > 0xFFFFF) {
    for (int t = 0; t < tasks; ++t) fn(t, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    fn_.store(&fn, std::memory_order_release);
    done_.store(0, std::memory_order_release);
    const uint64_t tag = ((job_.load() >> 40) + 1) & 0xFFFFFF;
    job_.store((tag << 40) | (static_cast<uint64_t>(tasks) << 20), std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  RunTasks(0);
  // Every task has run once done_ reaches tasks; a worker that wakes late
  // takes an index >= tasks and runs nothing.
  while (done_.load(std::memory_order_acquire) < tasks) CpuRelax();
}

}  // namespace engram::embed
