// Two-stage ordered pipeline: produce(i) runs on a worker thread, ahead of
// consume(i, value) on the calling thread, for i = 0..n-1 in order. Used to
// overlap page analysis (pure, thread-safe) with database writes (one writer).
//
// At most `depth` produced values wait at a time. When consume returns an
// error, production stops and that error is returned.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "engram/status.h"

namespace engram::common {

template <typename T, typename Produce, typename Consume>
Status RunPipelined(size_t n, Produce&& produce, Consume&& consume, size_t depth = 256) {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<T> ready;  // produced, in order, not yet consumed
  bool stop = false;    // guarded by mu: the consumer gave up

  std::thread worker([&] {
    for (size_t i = 0; i < n; ++i) {
      T value = produce(i);
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return stop || ready.size() < depth; });
      if (stop) return;
      ready.push_back(std::move(value));
      cv.notify_all();
    }
  });
  Status status;
  for (size_t i = 0; i < n && status.ok(); ++i) {
    std::optional<T> value;
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return !ready.empty(); });
      value.emplace(std::move(ready.front()));
      ready.pop_front();
      cv.notify_all();
    }
    status = consume(i, *value);
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    stop = true;
  }
  cv.notify_all();
  worker.join();
  return status;
}

}  // namespace engram::common
